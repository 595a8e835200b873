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
