import Foundation
import Testing
@testable import SonicCore

@Suite struct SampleStatisticsTests {
    /// Nearest rank, straight from the definition: the ⌈p/100 · N⌉-th smallest sample.
    func referencePercentile<T>(_ sorted: [T], _ p: Double) -> T {
        let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
        return sorted[min(rank, sorted.count) - 1]
    }

    @Test func percentilesMatchNearestRankDefinition() {
        var random = SeededRandom(seed: 7)
        for count in [1, 2, 7, 200, 1001, 40_000] {
            let samples = (0..<count).map { _ in UInt16(truncatingIfNeeded: random.next() % 5000) }
            let stats = SampleStatistics(GrayImage(width: count, height: 1, bitDepth: 16, samples: samples))
            let sorted = samples.sorted()
            for p in [0.0, 0.5, 1, 25, 50, 99, 99.5, 100] {
                #expect(stats.percentile(p) == Double(referencePercentile(sorted, p)), "p=\(p) n=\(count)")
            }
            #expect(stats.minimum == Double(sorted.first!) && stats.maximum == Double(sorted.last!))
        }
    }

    /// Float and 32-bit data are binned, not counted value by value: the percentiles must still be exact.
    @Test func floatAndWideIntegerPercentilesAreExact() {
        var random = SeededRandom(seed: 11)
        for (type, count) in [(SampleType.float32, 1), (.float32, 7), (.float32, 5000), (.int32, 3001), (.float64, 40_000)] {
            // Clustered values with ties and a far outlier, so some bins hold many samples and most none.
            let samples = (0..<count).map { k -> Float in
                if k == 0 { return -3e7 }
                let v = Float(random.next() % 2000) * 0.001 - 0.5
                return type == .int32 ? (v * 1000).rounded() : v
            }
            let stats = SampleStatistics(GrayImage(width: count, height: 1, sampleType: type, samples: samples))
            let sorted = samples.sorted()
            for p in [0.0, 0.5, 1, 25, 50, 99, 99.5, 100] {
                #expect(stats.percentile(p) == Double(referencePercentile(sorted, p)), "\(type) p=\(p) n=\(count)")
            }
            #expect(stats.minimum == Double(sorted.first!) && stats.maximum == Double(sorted.last!))
            let mean = samples.reduce(0.0) { $0 + Double($1) } / Double(count)
            #expect(abs(stats.mean - mean) <= 1e-9 * max(1, abs(mean)))
            #expect(stats.bands(8).reduce(0) { $0 + $1.count } == count)
        }
    }

    @Test func signedSixteenBitImagesCountNegativeValues() {
        let samples: [Float] = [-32768, -5, -5, 0, 7, 32767]
        let stats = SampleStatistics(GrayImage(width: 6, height: 1, sampleType: .int16, samples: samples))
        #expect(stats.minimum == -32768 && stats.maximum == 32767)
        #expect(stats.percentile(50) == -5 && stats.percentile(51) == 0)
        #expect(stats.bands(2).map(\.count) == [3, 3])
    }

    @Test func notANumberPlaysAsTheLowestValueAndIsCounted() {
        let image = GrayImage(width: 4, height: 1, sampleType: .float32, samples: [.nan, 2.5, -.infinity, -1])
        #expect(image.samples == [-1, 2.5, -1, -1] && image.nonFiniteCount == 2)
        let empty = GrayImage(width: 2, height: 1, sampleType: .float64, samples: [.nan, .infinity])
        #expect(empty.samples == [0, 0] && empty.nonFiniteCount == 2)
        #expect(GrayImage(width: 1, height: 1, sampleType: .float32, samples: [3]).nonFiniteCount == 0)
    }

    @Test func exactRanksAreNotRoundedUp() {
        // 200 samples 0...199: the 0.5th percentile is rank 1 (value 0), the 99.5th is rank 199 (value 198).
        let stats = SampleStatistics(GrayImage(width: 200, height: 1, bitDepth: 16, samples: (0..<200).map(UInt16.init)))
        #expect(stats.percentile(0.5) == 0)
        #expect(stats.percentile(99.5) == 198)
    }
}

@Suite struct IntensityMappingTests {
    @Test func levelIsClampedLinearStretch() {
        let stretch = LevelStretch(low: 1000, high: 3000)
        #expect(stretch.level(value: 1000) == 0)
        #expect(stretch.level(value: 2000) == 0.5)
        #expect(stretch.level(value: 3000) == 1)
        #expect(stretch.level(value: 0) == 0)
        #expect(stretch.level(value: 65535) == 1)
        #expect(abs(stretch.level(value: 1500) - 0.25) < 1e-15)
    }

    @Test func flatImageIsLevelZero() {
        #expect(LevelStretch(low: 500, high: 500).level(value: 500) == 0)
    }

    @Test func stretchUsesThePercentilesOfTheImage() {
        // 1000 samples: ten outliers at each end must not set the range.
        var samples = [UInt16](repeating: 0, count: 5) + [UInt16](repeating: 60000, count: 5)
        samples += (0..<990).map { UInt16(10_000 + $0 * 10) }
        let stats = SampleStatistics(GrayImage(width: 1000, height: 1, bitDepth: 16, samples: samples))
        let stretch = LevelStretch(statistics: stats, lowPercentile: 0.5, highPercentile: 99.5)
        #expect(stretch.low == 0)           // rank 5 of 1000: the last low outlier
        #expect(stretch.high == 19_890)     // rank 995: the high outliers (ranks 996...1000) are clipped
        let tighter = LevelStretch(statistics: stats, lowPercentile: 1, highPercentile: 99)
        #expect(tighter.low == 10_040)      // rank 10: the fifth regular sample
        #expect(tighter.high == 19_840)     // rank 990
    }

    @Test func frequencyIsFourOctavesFrom110() {
        let pitch = PitchMap(baseFrequency: 110, octaves: 4)
        #expect(pitch.frequency(level: 0) == 110)
        #expect(abs(pitch.frequency(level: 1) - 1760) < 1e-9)
        #expect(abs(pitch.frequency(level: 0.5) - 440) < 1e-9)
        for level in stride(from: 0.0, through: 1, by: 0.05) {
            let expected = 110 * Foundation.pow(16, level)
            #expect(abs(pitch.frequency(level: level) / expected - 1) < 1e-12)
        }
    }
}

@Suite struct ViewportTests {
    @Test(arguments: [
        ((1920, 1080), (384, 384)), ((1920, 1080), (50, 10)), ((1280, 800), (4096, 4096)), ((1024, 768), (37, 11)),
        ((3840, 2160), (1000, 3000)), ((800, 600), (1, 1)), ((1366, 768), (1366, 768)),
    ] as [((Int, Int), (Int, Int))])
    func fitsCentredWithAspectKept(screen: (Int, Int), image: (Int, Int)) {
        let (sw, sh) = screen, (iw, ih) = image
        let v = Viewport(fitting: iw, ih, into: ScreenRect(x: 0, y: 0, width: sw, height: sh))
        let drawnWidth = Double(iw) * v.scale, drawnHeight = Double(ih) * v.scale
        // One dimension fills the screen, the other fits inside it.
        #expect(abs(drawnWidth - Double(sw)) < 1e-9 || abs(drawnHeight - Double(sh)) < 1e-9)
        #expect(drawnWidth <= Double(sw) + 1e-9 && drawnHeight <= Double(sh) + 1e-9)
        // Centred: equal margins on either side.
        let left = v.originX, right = Double(sw) - v.originX - drawnWidth
        let top = v.originY, bottom = Double(sh) - v.originY - drawnHeight
        #expect(abs(left - right) < 1e-9 && abs(top - bottom) < 1e-9)
    }

    @Test(arguments: [((1920, 1080), (384, 384)), ((1280, 800), (4096, 3000)), ((1024, 768), (37, 11)),
                      ((3840, 2160), (50, 10))] as [((Int, Int), (Int, Int))])
    func penToPixelRoundTripsWithinAHundredthOfAPixel(screen: (Int, Int), image: (Int, Int)) {
        let area = ScreenRect(x: 17, y: 5, width: screen.0, height: screen.1)
        let v = Viewport(fitting: image.0, image.1, into: area)
        var random = SeededRandom(seed: 3)
        for _ in 0..<500 {
            // Tablet positions come in tenths of a screen pixel.
            let rootX = Double(area.x) + (random.unitInterval() * Double(area.width) * 10).rounded() / 10
            let rootY = Double(area.y) + (random.unitInterval() * Double(area.height) * 10).rounded() / 10
            let p = v.imagePoint(rootX: rootX, rootY: rootY)
            // Independent formula: pixel (i, j)'s centre is at origin + (i + 0.5)·scale.
            let expectedX = (rootX - v.originX) / v.scale - 0.5
            let expectedY = (rootY - v.originY) / v.scale - 0.5
            #expect(abs(p.x - expectedX) <= 0.01 && abs(p.y - expectedY) <= 0.01)
            let back = v.rootPoint(of: p)
            #expect(abs(back.x - rootX) < 1e-9 && abs(back.y - rootY) < 1e-9)
        }
    }

    @Test func pixelCentresAndEdgesLandInTheRightPixel() {
        // 10×10 image on a 100×100 screen: scale 10, origin (0, 0).
        let v = Viewport(fitting: 10, 10, into: ScreenRect(x: 0, y: 0, width: 100, height: 100))
        #expect(v.scale == 10 && v.originX == 0 && v.originY == 0)
        #expect(v.imagePoint(rootX: 5, rootY: 5) == ImagePoint(x: 0, y: 0))           // centre of pixel (0,0)
        #expect(v.imagePoint(rootX: 95, rootY: 45) == ImagePoint(x: 9, y: 4))
        #expect(v.imagePoint(rootX: 9.99, rootY: 0).nearestPixel == (0, 0))
        #expect(v.imagePoint(rootX: 10, rootY: 0).nearestPixel == (1, 0))
        #expect(v.imagePoint(rootX: 0, rootY: 0).nearestPixel == (0, 0))
        #expect(v.imagePoint(rootX: -0.01, rootY: 0).nearestPixel == (-1, 0))
    }

    @Test func letterboxOffsetsTheOrigin() {
        // A square image on a wide screen sits in the middle.
        let v = Viewport(fitting: 384, 384, into: ScreenRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(v.scale == 1080.0 / 384)
        #expect(v.originX == 420 && v.originY == 0)
    }
}

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
                let expected: UInt32 = image.contains(pixelX: p.x, y: p.y)
                    ? PixelFormat.rgb888.pixel(gray: UInt8(image[p.x, p.y])) : 0
                #expect(pixels[y * window.width + x] == expected)
            }
        }
    }

    @Test func theDisplayFollowsTheStretchCurveAndPolarity() {
        let image = GrayImage(width: 3, height: 1, bitDepth: 8, samples: [0, 64, 255])
        let window = ScreenRect(x: 0, y: 0, width: 3, height: 1), v = Viewport(originX: 0, originY: 0, scale: 1)
        let sqrt = ImageRaster(image: image, stretch: LevelStretch(low: 0, high: 255, curve: .sqrt), format: .rgb888)
        #expect(sqrt.render(window: window, viewport: v) == [0x000000, 0x808080, 0xFFFFFF])   // √(64/255) ≈ 0.501
        let inverted = ImageRaster(image: image, stretch: LevelStretch(low: 0, high: 255, inverted: true), format: .rgb888)
        #expect(inverted.render(window: window, viewport: v) == [0xFFFFFF, 0xBFBFBF, 0x000000])
    }

    @Test func sixteenBitImagesAreContrastStretched() {
        let image = GrayImage(width: 3, height: 1, bitDepth: 16, samples: [1000, 2000, 3000])
        let raster = ImageRaster(image: image, stretch: LevelStretch(low: 1000, high: 3000), format: .rgb888)
        let pixels = raster.render(window: ScreenRect(x: 0, y: 0, width: 3, height: 1),
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
