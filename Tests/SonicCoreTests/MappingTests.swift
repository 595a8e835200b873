import Foundation
import Testing

@testable import SonicCore

@Suite struct LevelStretchTests {
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
        #expect(stretch.low == 0) // rank 5 of 1000: the last low outlier
        #expect(stretch.high == 19_890) // rank 995: the high outliers (ranks 996...1000) are clipped
        let tighter = LevelStretch(statistics: stats, lowPercentile: 1, highPercentile: 99)
        #expect(tighter.low == 10_040) // rank 10: the fifth regular sample
        #expect(tighter.high == 19_840) // rank 990
        // Headroom: level 1 lies half the span above the 99.5th percentile, so what is brighter still rises.
        let roomy = LevelStretch(statistics: stats, lowPercentile: 0.5, highPercentile: 99.5, headroom: 0.5)
        #expect(roomy.low == 0 && roomy.high == 19_890 * 1.5)
        #expect(abs(roomy.level(value: 19_890) - 2.0 / 3) < 1e-12 && roomy.level(value: 25_000) > 0.8)
    }

    @Test func stretchCurvesAndPolarity() {
        func level(_ curve: LevelStretch.Curve, _ t: Double, inverted: Bool = false) -> Double {
            LevelStretch(low: 1000, high: 2000, curve: curve, inverted: inverted).level(value: 1000 + 1000 * t)
        }
        for curve in LevelStretch.Curve.allCases {
            #expect(level(curve, 0) == 0 && abs(level(curve, 1) - 1) < 1e-12, "\(curve)")
            #expect(level(curve, -3) == 0 && abs(level(curve, 7) - 1) < 1e-12, "\(curve) clamps")
            #expect(abs(level(curve, 0.3, inverted: true) - (1 - level(curve, 0.3))) < 1e-12)
        }
        #expect(level(.linear, 0.25) == 0.25)
        #expect(level(.sqrt, 0.25) == 0.5)
        #expect(abs(level(.log, 0.25) - log(1 + 250) / log(1001)) < 1e-12)
        #expect(abs(level(.asinh, 0.25) - asinh(2.5) / asinh(10)) < 1e-12)
        // The dark end gets more of the range with the non-linear curves, log the most.
        for curve in [LevelStretch.Curve.log, .sqrt, .asinh] { #expect(level(curve, 0.1) > 0.25) }
        #expect(level(.log, 0.1) > level(.sqrt, 0.1))
    }
}

@Suite struct PitchMapTests {
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

    @Test func pitchShapes() {
        let exponential = PitchMap(baseFrequency: 110, octaves: 4)
        #expect(abs(exponential.frequency(level: 0.75) - 110 * 8) < 1e-9)
        let linear = PitchMap(baseFrequency: 110, octaves: 4, shape: .linear)
        #expect(abs(linear.frequency(level: 0.5) - (110 + 1760) / 2) < 1e-9)
        let sample = PitchMap(baseFrequency: 110, octaves: 4, shape: .sample(divisor: 120))
        #expect(sample.frequency(level: 0.9, sample: 30_000) == 250)
        #expect(sample.frequency(level: 0, sample: 600) == 20) // never below 20 Hz
    }

    @Test(arguments: [
        (PitchMap.Scale.chromatic, Array(0..<12)), (.major, [0, 2, 4, 5, 7, 9, 11]), (.pentatonic, [0, 2, 4, 7, 9])
    ])
    func quantizedPitchesAreScaleNotesAndTheNearestOnes(scale: PitchMap.Scale, degrees: [Int]) {
        let map = PitchMap(baseFrequency: 220, octaves: 3, scale: scale)
        var allowed: [Double] = [220 * 16]
        for octave in 0...3 {
            for degree in degrees { allowed.append(220 * pow(2, Double(octave) + Double(degree) / 12)) }
        }
        for k in 0...300 {
            let f = map.frequency(level: Double(k) / 300)
            let continuous = PitchMap(baseFrequency: 220, octaves: 3).frequency(level: Double(k) / 300)
            // A note of the scale …
            #expect(allowed.contains { abs($0 / f - 1) < 1e-12 }, "\(f) Hz is not in the \(scale) scale")
            // … and the nearest one, in semitones.
            let distance = abs(12 * log2(f / continuous))
            #expect(allowed.allSatisfy { abs(12 * log2($0 / continuous)) >= distance - 1e-9 })
        }
    }
}

@Suite struct NoteNameTests {
    @Test func noteNames() {
        #expect(NoteName.of(440) == "A4" && NoteName.of(261.63) == "C4" && NoteName.of(110) == "A2")
        #expect(NoteName.of(466.16) == "A#4" && NoteName.of(1760) == "A6" && NoteName.of(2) == nil)
    }
}

@Suite struct ViewportTests {
    @Test(
        arguments: [
            ((1920, 1080), (384, 384)), ((1920, 1080), (50, 10)), ((1280, 800), (4096, 4096)), ((1024, 768), (37, 11)),
            ((3840, 2160), (1000, 3000)), ((800, 600), (1, 1)), ((1366, 768), (1366, 768))
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

    @Test(
        arguments: [
            ((1920, 1080), (384, 384)), ((1280, 800), (4096, 3000)), ((1024, 768), (37, 11)),
            ((3840, 2160), (50, 10))
        ] as [((Int, Int), (Int, Int))])
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
        #expect(v.imagePoint(rootX: 5, rootY: 5) == ImagePoint(x: 0, y: 0)) // centre of pixel (0,0)
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

@Suite struct ViewTests {
    let window = ScreenRect(x: 0, y: 0, width: 1920, height: 1080)

    @Test func zoomOneIsTheFit() {
        let view = View(imageWidth: 384, imageHeight: 384, window: window)
        #expect(view.viewport == Viewport(fitting: 384, 384, into: window))
    }

    @Test func zoomKeepsThePointUnderTheAnchor() {
        var view = View(imageWidth: 1500, imageHeight: 900, window: window)
        let anchor = (x: 700.3, y: 455.7)
        let before = view.viewport.imagePoint(rootX: anchor.x, rootY: anchor.y)
        for zoom in [1.5, 3, 16] {
            view.zoom(to: zoom, keeping: anchor)
            #expect(abs(view.scale - 1.2 * zoom) < 1e-12)
            let after = view.viewport.imagePoint(rootX: anchor.x, rootY: anchor.y)
            #expect(abs(after.x - before.x) < 1e-9 && abs(after.y - before.y) < 1e-9)
        }
    }

    @Test func theImageNeverLeavesTheWindow() {
        var view = View(imageWidth: 1500, imageHeight: 900, window: window)
        // Left of the image (in the letterbox): clamped so its left edge meets the window's.
        view.zoom(to: 4, keeping: (5, 500))
        #expect(abs(view.viewport.originX) < 1e-9)
        let pastTheEdge = view.pan(dx: 100, dy: 0)
        #expect(!pastTheEdge) // already at the left edge
        let inwards = view.pan(dx: -100, dy: 0)
        #expect(inwards && abs(view.viewport.originX + 100) < 1e-9)
        #expect(view.nextStep(in: true) == 6 && view.nextStep(in: false) == 3)
        // Zoomed out again, the whole image is centred whatever the pan.
        view.zoom(to: 1, keeping: (900, 500))
        #expect(view.viewport == Viewport(fitting: 1500, 900, into: window))
    }
}
