import Foundation
import Testing
import TestSupport
@testable import SonicCore

@Suite struct StretchAndPitchTests {
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

    @Test func pitchShapes() {
        let exponential = PitchMap(baseFrequency: 110, octaves: 4)
        #expect(abs(exponential.frequency(level: 0.75) - 110 * 8) < 1e-9)
        let linear = PitchMap(baseFrequency: 110, octaves: 4, shape: .linear)
        #expect(abs(linear.frequency(level: 0.5) - (110 + 1760) / 2) < 1e-9)
        let sample = PitchMap(baseFrequency: 110, octaves: 4, shape: .sample(divisor: 120))
        #expect(sample.frequency(level: 0.9, sample: 30_000) == 250)
        #expect(sample.frequency(level: 0, sample: 600) == 20)        // never below 20 Hz
    }

    @Test(arguments: [(PitchMap.Scale.chromatic, Array(0..<12)), (.major, [0, 2, 4, 5, 7, 9, 11]), (.pentatonic, [0, 2, 4, 7, 9])])
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

    @Test func noteNames() {
        #expect(NoteName.of(440) == "A4" && NoteName.of(261.63) == "C4" && NoteName.of(110) == "A2")
        #expect(NoteName.of(466.16) == "A#4" && NoteName.of(1760) == "A6" && NoteName.of(2) == nil)
    }
}

@Suite struct InstrumentProfileTests {
    @Test func bilinearSamplingReadsBetweenPixels() throws {
        let profile = try Profile(name: "b", file: "b.toml", text: "[level]\nsampling = \"bilinear\"\nrange = \"fixed\"\nlow = 0\nhigh = 1000\n")
        let image = GrayImage(width: 2, height: 2, bitDepth: 16, samples: [0, 1000, 0, 1000])
        let instrument = Instrument(image: image, profile: profile, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: SynthControls())
        #expect(instrument.sampledValue(at: ImagePoint(x: 0.25, y: 0.5)) == 250)
        #expect(instrument.level(at: ImagePoint(x: 0.5, y: 0)) == 0.5)
        #expect(instrument.sampledValue(at: ImagePoint(x: -0.4, y: 0)) == 0)           // clamped at the edge
    }

    @Test func notesChangeOnlyWithTheBand() throws {
        let profile = try Profile(name: "n", file: "n.toml", text: "[tone]\narticulation = \"notes\"\nbands = 4\n")
        #expect(profile.chain.noteLength == 0.12)
        let image = GrayImage(width: 8, height: 1, bitDepth: 16, samples: (0..<8).map { UInt16($0 * 1000) })
        let controls = SynthControls()
        let instrument = Instrument(image: image, profile: profile, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        var tip = PenButtons()
        tip.insert(1)
        var notes: [Int] = [], pitches: [Double] = []
        for x in [5.0, 15, 25, 45, 55, 75] {
            instrument.handle(PenEvent(time: 0, rootX: x, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
            notes.append(controls.targets.note)
            pitches.append(controls.targets.frequency)
        }
        // Levels 0, 1/7, 2/7, 4/7, 5/7, 1 fall in bands 0, 0, 1, 2, 2, 3: a new note at each new band.
        #expect(notes == [1, 1, 2, 3, 3, 4])
        #expect(abs(pitches[0] - 110 * pow(16, 0.125)) < 1e-9 && pitches[5] == 110 * pow(16, 0.875))
    }

    @Test func liftingThePenEndsANoteWithoutStartingAnother() throws {
        let profile = try Profile(name: "n", file: "n.toml", text: "[tone]\narticulation = \"notes\"\n")
        let image = GrayImage(width: 1, height: 1, bitDepth: 16, samples: [30_000])
        let controls = SynthControls()
        let instrument = Instrument(image: image, profile: profile, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        let engine = SynthEngine(chain: profile.chain, sampleRate: 48_000, controls: controls)
        var tip = PenButtons()
        tip.insert(1)
        var out = [Float](repeating: 0, count: 96_000)
        instrument.handle(PenEvent(time: 0, rootX: 5, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 24_000, channels: 2) }
        // Lifted half a second later, long after the note ended: nothing more is heard.
        instrument.handle(PenEvent(time: 0.5, rootX: 5, rootY: 5, pressure: 0, tiltX: 0, tiltY: 0, buttons: PenButtons(), inWindow: true))
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress! + 48_000, frames: 24_000, channels: 2) }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        #expect(SignalAnalysis.bursts(left, threshold: 0.01, window: 48, minimumGap: 480).count == 1)
        #expect(SignalAnalysis.peak(left[24_000...]) < 1e-4)
    }

    @Test func notesAreShortAndDistinct() {
        var chain = SoundChain(oscillators: [.init(waveform: .square, level: 0.5)])
        chain.noteLength = 0.12
        let controls = SynthControls()
        let engine = SynthEngine(chain: chain, sampleRate: 48_000, controls: controls)
        controls.set(SynthTargets(frequency: 440, amplitude: 1, note: 1))
        var out = [Float](repeating: 0, count: 48_000)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 24_000, channels: 2) }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let sounding = SignalAnalysis.bursts(left, threshold: 0.05, window: 48, minimumGap: 480)
        #expect(sounding.count == 1)
        #expect(abs(Double(sounding[0].count) / 48_000 - 0.12) < 0.01)
        #expect(abs(SignalAnalysis.zeroCrossingFrequency(left[500..<5000], sampleRate: 48_000)! / 440 - 1) < 0.002)
    }

    @Test func squareWaveHasOddHarmonicsAndLittleAliasing() {
        var oscillator = SquareOscillator(sampleRate: 48_000, rampSamples: 240, frequency: 1000)
        var x = [Float](repeating: 0, count: 48_000)
        x.withUnsafeMutableBufferPointer { buffer in oscillator.process(into: buffer.baseAddress!, frames: buffer.count) }
        // 4/(πn) for odd n; the band-limiting tapers the upper ones a little (7 % at 7 kHz).
        for (n, tolerance) in [(1, 0.01), (3, 0.02), (5, 0.05), (7, 0.1)] {
            let expected = 4 / (Double.pi * Double(n))
            #expect(abs(Spectrum.amplitude(x[...], at: 1000 * Double(n), sampleRate: 48_000) / expected - 1) < tolerance, "harmonic \(n)")
        }
        #expect(Spectrum.amplitude(x[...], at: 2000, sampleRate: 48_000) < 0.005)
        // A naive square aliases the 25th harmonic (25 kHz) down to 23 kHz; band-limited, it is small.
        #expect(Spectrum.amplitude(x[...], at: 23_000, sampleRate: 48_000) < 0.01)
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
        #expect(!pastTheEdge)   // already at the left edge
        let inwards = view.pan(dx: -100, dy: 0)
        #expect(inwards && abs(view.viewport.originX + 100) < 1e-9)
        #expect(view.nextStep(in: true) == 6 && view.nextStep(in: false) == 3)
        // Zoomed out again, the whole image is centred whatever the pan.
        view.zoom(to: 1, keeping: (900, 500))
        #expect(view.viewport == Viewport(fitting: 1500, 900, into: window))
    }
}

@Suite struct ProfileSettingsTests {
    @Test func theShippedProfilesLoadAndSayWhatTheyAre() throws {
        for name in ["default", "pentatonic", "classic", "discrete"] {
            let path = ProfileTests.repository.appendingPathComponent("profiles/\(name).toml").path
            let profile = try Profile(name: name, file: path, text: String(contentsOfFile: path, encoding: .utf8))
            #expect(!profile.description.isEmpty)
        }
    }

    @Test(arguments: [
        ("[level]\nstretch = \"cube\"\n", 2, "level.stretch", "must be one of"),
        ("[level]\nrange = \"fixed\"\nlow = 100\nhigh = 50\n", 4, "level.high", "must be above level.low"),
        ("[level]\nlow = 100\n", 2, "level.low", "applies with range = \"fixed\""),
        ("[level]\ninverted = 1\n", 2, "level.inverted", "must be true or false"),
        ("[level]\nsampling = \"cubic\"\n", 2, "level.sampling", "must be one of"),
        ("[pitch]\nshape = \"log\"\n", 2, "pitch.shape", "must be one of"),
        ("[pitch]\ndivisor = 120\n", 2, "pitch.divisor", "applies with shape = \"sample\""),
        ("[pitch]\nscale = \"blues\"\n", 2, "pitch.scale", "must be one of"),
        ("[tone]\nbands = 8\n", 2, "tone.bands", "applies with articulation = \"notes\""),
        ("[tone]\narticulation = \"notes\"\nnote_length = 5\n", 3, "tone.note_length", "between 0.02 and 2"),
        ("[oscillator1]\nwaveform = \"saw\"\n", 2, "oscillator1.waveform", "must be one of"),
    ] as [(String, Int, String, String)])
    func errorsNameFileLineAndKey(text: String, line: Int, key: String, message: String) {
        ProfileTests.expectError(text, line: line, key: key, message: message)
    }
}

@Suite struct ZoomControllerTests {
    @Test func keysZoomPanAndShowTheStatus() {
        let image = GrayImage(width: 1500, height: 900, bitDepth: 16, samples: (0..<1_350_000).map { UInt16($0 % 60000) })
        let instrument = Instrument(image: image, profile: .builtIn, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 1), controls: SynthControls())
        let c = SessionController(instrument: instrument, opened: OpenedImage(fileName: "big.png"))
        #expect(c.place(window: ScreenRect(x: 0, y: 0, width: 1920, height: 1080)) == [.viewport(Viewport(fitting: 1500, 900, into: ScreenRect(x: 0, y: 0, width: 1920, height: 1080)))])
        func speech(_ o: [ControllerOutput]) -> [String] { o.compactMap { if case .speak(let t) = $0 { t } else { nil } } }
        #expect(speech(c.handle(key: "+", at: 1)) == ["Zoom 1.5 times."])
        #expect(speech(c.handle(key: "=", at: 2)) == ["Zoom 2 times."])
        #expect(speech(c.handle(key: "-", at: 3)) == ["Zoom 1.5 times."])
        #expect(speech(c.handle(key: "Left", at: 4)).first?.hasPrefix("Showing x ") == true)
        #expect(speech(c.handle(key: "0", at: 5)) == ["Zoom 1 time."])
        #expect(speech(c.handle(key: "-", at: 6)) == ["Zoom 1 time: the whole image."])
        #expect(speech(c.handle(key: "Left", at: 7)) == ["The whole image is in view."])
        #expect(c.overlay.status.isEmpty)
        #expect(speech(c.handle(key: "H", at: 8)) == ["Status panel shown."])
        #expect(c.overlay.status.first == "Mode 1: intensity pitch" && c.overlay.status.last == "Zoom 1 time   Tags 0")
    }
}
