import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct InstrumentTests {
    /// 4×1 image 0, 100, 200, 300 shown at scale 10 from (0, 0).
    func makeInstrument() -> (Instrument, SynthControls) {
        let image = GrayImage(width: 4, height: 1, bitDepth: 16, samples: [0, 100, 200, 300])
        let controls = SynthControls()
        let instrument = Instrument(
            image: image, profile: .builtIn, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        return (instrument, controls)
    }

    func pen(x: Double, y: Double = 5, tip: Bool, pressure: Double = 0.5, inWindow: Bool = true) -> PenEvent {
        var buttons = PenButtons()
        if tip { buttons.insert(PenButtons.tip) }
        return PenEvent(
            time: 1, rootX: x, rootY: y, pressure: tip ? pressure : 0, tiltX: 3, tiltY: -4,
            buttons: buttons, inWindow: inWindow)
    }

    @Test func touchingSoundsThePixelUnderTheNib() {
        let (instrument, controls) = makeInstrument()
        let record = instrument.handle(pen(x: 25, tip: true))
        #expect(record.sample == 200 && record.inImage)
        #expect(record.imageX == 2 && record.imageY == 0)
        #expect(abs(record.level - 2.0 / 3) < 1e-12) // percentiles 0.5/99.5 of 4 samples: 0 and 300
        #expect(abs(record.frequency - 110 * pow(16, 2.0 / 3)) < 1e-9)
        #expect(abs(controls.targets.frequency - record.frequency) < 1e-12)
        #expect(controls.targets.amplitude == 0.5 && record.amplitude == 0.5)
    }

    @Test func liftedHoveringOutsideOrLeftIsSilent() {
        let (instrument, controls) = makeInstrument()
        for event in [
            pen(x: 25, tip: false), pen(x: 45, tip: true), pen(x: 25, y: -1, tip: true),
            pen(x: 25, tip: true, inWindow: false), pen(x: 25, tip: true, pressure: 0)
        ] {
            instrument.handle(pen(x: 5, tip: true))
            let record = instrument.handle(event)
            #expect(record.frequency == 0 && record.amplitude == 0)
            #expect(controls.targets.amplitude == 0)
        }
    }

    @Test func recordCarriesThePenState() {
        let (instrument, _) = makeInstrument()
        let record = instrument.handle(pen(x: 12.5, tip: true))
        #expect(record.rootX == 12.5 && record.tiltX == 3 && record.tiltY == -4 && record.pressure == 0.5)
        #expect(record.buttons.list == [1] && record.mode == "intensity-pitch")
        #expect(record.imageX == 0.75)
    }
}

extension InstrumentTests {
    @Test func bilinearSamplingReadsBetweenPixels() throws {
        let profile = try Profile(
            name: "b", file: "b.toml",
            text: "[level]\nsampling = \"bilinear\"\nrange = \"fixed\"\nlow = 0\nhigh = 1000\n")
        let image = GrayImage(width: 2, height: 2, bitDepth: 16, samples: [0, 1000, 0, 1000])
        let instrument = Instrument(
            image: image, profile: profile, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: SynthControls())
        #expect(instrument.sampledValue(at: ImagePoint(x: 0.25, y: 0.5)) == 250)
        #expect(instrument.level(at: ImagePoint(x: 0.5, y: 0)) == 0.5)
        #expect(instrument.sampledValue(at: ImagePoint(x: -0.4, y: 0)) == 0) // clamped at the edge
    }

    @Test func notesChangeOnlyWithTheBand() throws {
        let profile = try Profile(name: "n", file: "n.toml", text: "[tone]\narticulation = \"notes\"\nbands = 4\n")
        #expect(profile.chain.noteLength == 0.12)
        let image = GrayImage(width: 8, height: 1, bitDepth: 16, samples: (0..<8).map { UInt16($0 * 1000) })
        let controls = SynthControls()
        let instrument = Instrument(
            image: image, profile: profile, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        var tip = PenButtons()
        tip.insert(1)
        var notes: [Int] = [], pitches: [Double] = []
        for x in [5.0, 15, 25, 45, 55, 75] {
            instrument.handle(
                PenEvent(time: 0, rootX: x, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
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
        let instrument = Instrument(
            image: image, profile: profile, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        let engine = SynthEngine(chain: profile.chain, sampleRate: 48_000, controls: controls)
        var tip = PenButtons()
        tip.insert(1)
        var out = [Float](repeating: 0, count: 96_000)
        instrument.handle(
            PenEvent(time: 0, rootX: 5, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 24_000, channels: 2) }
        // Lifted half a second later, long after the note ended: nothing more is heard.
        instrument.handle(
            PenEvent(
                time: 0.5, rootX: 5, rootY: 5, pressure: 0, tiltX: 0, tiltY: 0, buttons: PenButtons(), inWindow: true))
        out.withUnsafeMutableBufferPointer {
            engine.render(into: $0.baseAddress! + 48_000, frames: 24_000, channels: 2)
        }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        #expect(SignalAnalysis.bursts(left, threshold: 0.01, window: 48, minimumGap: 480).count == 1)
        #expect(SignalAnalysis.peak(left[24_000...]) < 1e-4)
    }
}
