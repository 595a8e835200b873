import Testing

@testable import SonicCore

@Suite struct ImageRasterTests {
    @Test func screenPixelsShowThePixelThePenReads() {
        let image = GrayImage(width: 7, height: 3, bitDepth: 8, samples: (0..<21).map { UInt16($0 * 12) })
        let window = ScreenRect(x: 3, y: 2, width: 97, height: 61)
        let v = Viewport(fitting: 7, 3, into: window)
        let raster = ImageRaster(image: image, stretch: LevelStretch(low: 0, high: 255), format: .rgb888)
        let pixels = raster.render(window: window, viewport: v)
        for y in 0..<window.height {
            for x in 0..<window.width {
                // The pen at this screen pixel's centre reads:
                let p = v.imagePoint(rootX: Double(window.x + x) + 0.5, rootY: Double(window.y + y) + 0.5).nearestPixel
                let expected: UInt32 =
                    image.contains(pixelX: p.x, y: p.y)
                    ? PixelFormat.rgb888.pixel(gray: UInt8(image[p.x, p.y])) : 0
                #expect(pixels[y * window.width + x] == expected)
            }
        }
    }

    @Test func theDisplayFollowsTheStretchCurveAndPolarity() {
        let image = GrayImage(width: 3, height: 1, bitDepth: 8, samples: [0, 64, 255])
        let window = ScreenRect(x: 0, y: 0, width: 3, height: 1), v = Viewport(originX: 0, originY: 0, scale: 1)
        let sqrt = ImageRaster(image: image, stretch: LevelStretch(low: 0, high: 255, curve: .sqrt), format: .rgb888)
        #expect(sqrt.render(window: window, viewport: v) == [0x000000, 0x808080, 0xFFFFFF]) // √(64/255) ≈ 0.501
        let inverted = ImageRaster(
            image: image, stretch: LevelStretch(low: 0, high: 255, inverted: true), format: .rgb888)
        #expect(inverted.render(window: window, viewport: v) == [0xFFFFFF, 0xBFBFBF, 0x000000])
    }

    @Test func sixteenBitImagesAreContrastStretched() {
        let image = GrayImage(width: 3, height: 1, bitDepth: 16, samples: [1000, 2000, 3000])
        let raster = ImageRaster(image: image, stretch: LevelStretch(low: 1000, high: 3000), format: .rgb888)
        let pixels = raster.render(
            window: ScreenRect(x: 0, y: 0, width: 3, height: 1),
            viewport: Viewport(originX: 0, originY: 0, scale: 1))
        #expect(pixels == [0x000000, 0x808080, 0xFFFFFF])
    }

    @Test func pixelFormatScalesIntoEachMask() {
        let rgb565 = PixelFormat(redMask: 0xF800, greenMask: 0x07E0, blueMask: 0x001F)
        #expect(rgb565.pixel(gray: 255) == 0xFFFF)
        #expect(rgb565.pixel(gray: 0) == 0)
        #expect(PixelFormat.rgb888.pixel(gray: 0x42) == 0x424242)
    }
}

/// The text size's steps, its pixels on desktops of any scale, and lines clipped to the window.
@Suite struct TextSizeTests {
    @Test func stepsFromOneToFourTimesAndSaysWhenItCannot() {
        var size = TextSize()
        var scales = [size.scale]
        while size.step(larger: true) { scales.append(size.scale) }
        #expect(scales == [1, 1.5, 2, 2.5, 3, 4])
        #expect(!size.step(larger: true) && size.scale == 4)
        while size.step(larger: false) {}
        #expect(size.scale == 1)
        // A profile's size between two steps steps to the next one either way.
        var between = TextSize(scale: 2.2)
        #expect(between.step(larger: true) && between.scale == 2.5)
        between = TextSize(scale: 2.2)
        #expect(between.step(larger: false) && between.scale == 2)
        #expect(TextSize(scale: 9).scale == 4 && TextSize(scale: 0.1).scale == 1)
    }

    @Test func pixelsFollowTheDesktopsScale() {
        #expect(TextSize().pixelSize(dpi: 96) == 18)
        #expect(TextSize(scale: 3).pixelSize(dpi: 96) == 54)
        #expect(TextSize(scale: 2).pixelSize(dpi: 192) == 72)
        #expect(TextSize().lineWidth(dpi: 96) == 2 && TextSize(scale: 4).lineWidth(dpi: 96) == 8)
        #expect(TextSize.dpi(resource: "192") == 192 && TextSize.dpi(resource: " 120.5\t") == 120.5)
        for nonsense in [nil, "", "big", "0", "-96", "100000"] { #expect(TextSize.dpi(resource: nonsense) == nil) }
    }

    @Test func linesAreClippedToTheWindowAndKeepTheirDirection() {
        let inside = ScreenSegment(x0: 10, y0: 20, x1: 30, y1: 40)
        #expect(inside.clipped(width: 100, height: 100, margin: 0) == inside)
        #expect(ScreenSegment(x0: -50, y0: 5, x1: -10, y1: 90).clipped(width: 100, height: 100, margin: 0) == nil)
        // Zoomed far in: a cell edge from far off screen to far off screen crosses the window.
        let edge = ScreenSegment(x0: -40_000, y0: -40_000, x1: 60_000, y1: 60_000)
        let clipped = edge.clipped(width: 1920, height: 1080, margin: 8)
        #expect(clipped == ScreenSegment(x0: -8, y0: -8, x1: 1088, y1: 1088))
        // A horizontal line along the top edge, and one just above the margin.
        #expect(
            ScreenSegment(x0: -5, y0: 0, x1: 200, y1: 0).clipped(width: 100, height: 50, margin: 2)
                == ScreenSegment(x0: -2, y0: 0, x1: 102, y1: 0))
        #expect(ScreenSegment(x0: 0, y0: -3, x1: 50, y1: -3).clipped(width: 100, height: 50, margin: 2) == nil)
    }
}
