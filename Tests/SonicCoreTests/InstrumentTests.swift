import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct InstrumentTests {
    /// 4×1 image 0, 100, 200, 300 shown at scale 10 from (0, 0).
    func makePlayer() -> TestPlayer {
        TestPlayer(GrayImage(width: 4, height: 1, bitDepth: 16, samples: [0, 100, 200, 300]), scale: 10)
    }

    func pen(x: Double, y: Double = 5, tip: Bool, pressure: Double = 0.5, inWindow: Bool = true) -> PenEvent {
        var buttons = PenButtons()
        if tip { buttons.insert(PenButtons.tip) }
        return PenEvent(
            time: 1, rootX: x, rootY: y, pressure: tip ? pressure : 0, tiltX: 3, tiltY: -4,
            buttons: buttons, inWindow: inWindow)
    }

    @Test func touchingSoundsThePixelUnderTheNib() {
        let player = makePlayer()
        let record = player.handle(pen(x: 25, tip: true))
        #expect(record.sample == 200 && record.inImage)
        #expect(record.imageX == 2 && record.imageY == 0)
        #expect(abs(record.level - 2.0 / 3) < 1e-12) // percentiles 0.5/99.5 of 4 samples: 0 and 300
        #expect(abs(record.frequency - 110 * pow(16, 2.0 / 3)) < 1e-9)
        #expect(abs(player.targets.frequency - record.frequency) < 1e-12)
        #expect(player.targets.amplitude == 0.5 && record.amplitude == 0.5)
    }

    @Test func liftedHoveringOutsideOrLeftIsSilent() {
        let player = makePlayer()
        for event in [
            pen(x: 25, tip: false), pen(x: 45, tip: true), pen(x: 25, y: -1, tip: true),
            pen(x: 25, tip: true, inWindow: false), pen(x: 25, tip: true, pressure: 0)
        ] {
            player.handle(pen(x: 5, tip: true))
            let record = player.handle(event)
            #expect(record.frequency == 0 && record.amplitude == 0)
            #expect(player.targets.amplitude == 0)
        }
    }

    @Test func recordCarriesThePenState() {
        let player = makePlayer()
        let record = player.handle(pen(x: 12.5, tip: true))
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
        let instrument = TestPlayer(image, profile: profile, scale: 10).instrument
        #expect(instrument.sampledValue(at: ImagePoint(x: 0.25, y: 0.5)) == 250)
        #expect(instrument.level(at: ImagePoint(x: 0.5, y: 0)) == 0.5)
        #expect(instrument.sampledValue(at: ImagePoint(x: -0.4, y: 0)) == 0) // clamped at the edge
    }

    @Test func notesChangeOnlyWithTheBand() throws {
        let profile = try Profile(
            name: "n", file: "n.toml", text: "[level]\nheadroom = 0\n[tone]\narticulation = \"notes\"\nbands = 4\n")
        #expect(profile.chain.noteLength == 0.12)
        let image = GrayImage(width: 8, height: 1, bitDepth: 16, samples: (0..<8).map { UInt16($0 * 1000) })
        let player = TestPlayer(image, profile: profile, scale: 10)
        var tip = PenButtons()
        tip.insert(1)
        var notes: [Int] = [], pitches: [Double] = []
        for x in [5.0, 15, 25, 45, 55, 75] {
            player.handle(
                PenEvent(time: 0, rootX: x, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
            notes.append(player.targets.note)
            pitches.append(player.targets.frequency)
        }
        // Levels 0, 1/7, 2/7, 4/7, 5/7, 1 fall in bands 0, 0, 1, 2, 2, 3: a new note at each new band.
        #expect(notes == [1, 1, 2, 3, 3, 4])
        #expect(abs(pitches[0] - 110 * pow(16, 0.125)) < 1e-9 && pitches[5] == 110 * pow(16, 0.875))
    }

    @Test func liftingThePenEndsANoteWithoutStartingAnother() throws {
        let profile = try Profile(name: "n", file: "n.toml", text: "[tone]\narticulation = \"notes\"\n")
        let image = GrayImage(width: 1, height: 1, bitDepth: 16, samples: [30_000])
        let player = TestPlayer(image, profile: profile, scale: 10)
        let engine = SynthEngine(chain: profile.chain, sampleRate: 48_000, controls: player.controls)
        var tip = PenButtons()
        tip.insert(1)
        var out = [Float](repeating: 0, count: 96_000)
        player.handle(
            PenEvent(time: 0, rootX: 5, rootY: 5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true))
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 24_000, channels: 2) }
        // Lifted half a second later, long after the note ended: nothing more is heard.
        player.handle(
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

@Suite struct InstrumentModeTests {
    /// A 4×4 image, all at level 1 (1760 Hz), at scale 10.
    func setup(_ profile: Profile = .plainMapping) -> TestPlayer {
        var samples = [UInt16](repeating: 0, count: 16)
        samples[15] = 1; samples[5] = 60000; samples[6] = 60000
        return TestPlayer(GrayImage(width: 4, height: 4, bitDepth: 16, samples: samples), profile: profile, scale: 10)
    }

    func touch(pressure: Double, tiltX: Double = 0, tiltY: Double = 0) -> PenEvent {
        var b = PenButtons()
        b.insert(1)
        return PenEvent(
            time: 0, rootX: 15, rootY: 15, pressure: pressure, tiltX: tiltX, tiltY: tiltY, buttons: b, inWindow: true)
    }

    @Test func loudnessIsFixedOrFollowsPressure() {
        let player = setup()
        player.handle(touch(pressure: 0.2))
        #expect(player.targets.amplitude == 0.5 && player.targets.cutoff == nil)
        player.set(mode: .pressureAmplitude)
        // The mode applies to the sound at once.
        let p = Profile.plainMapping.pressure
        #expect(abs(player.targets.amplitude - p.fullLevel * (0.2 - p.threshold) / (1 - p.threshold)) < 1e-12)
        player.handle(touch(pressure: 1))
        #expect(abs(player.targets.amplitude - p.fullLevel) < 1e-12)
        player.handle(touch(pressure: p.threshold))
        #expect(player.targets.amplitude == 0)
        player.set(mode: .unitCellTagging)
        #expect(player.targets.amplitude == 0.5)
    }

    @Test func tiltOpensAndClosesTheFilterAroundThePitch() {
        let player = setup()
        player.set(mode: .tiltFilter)
        player.handle(touch(pressure: 0.5))
        let pitch = player.targets.frequency
        #expect(abs(pitch - 1760) < 1e-9)
        #expect(abs(player.targets.cutoff! - 16 * pitch) < 1e-6)
        #expect(player.targets.timbre == 6 && player.targets.resonance == 0)
        player.handle(touch(pressure: 0.5, tiltX: 30))
        #expect(abs(player.targets.cutoff! - 4 * pitch) < 1e-6) // half the lean range: half way in octaves
        player.handle(touch(pressure: 0.5, tiltX: 60))
        #expect(abs(player.targets.cutoff! - pitch) < 1e-6)
        #expect(player.targets.resonance == 0) // leaning sideways: no resonance
        player.handle(touch(pressure: 0.5, tiltY: 60))
        #expect(abs(player.targets.resonance! - 0.8) < 1e-9) // fully towards the user
        player.handle(touch(pressure: 0.5, tiltY: -60))
        #expect(player.targets.resonance == 0) // away
    }

    @Test func tiltCanPanInstead() throws {
        let profile = try Profile(name: "p", file: "p.toml", text: "[tilt]\nazimuth = \"pan\"\n")
        #expect(profile.chain.panned)
        let player = setup(profile)
        player.set(mode: .tiltFilter)
        player.handle(touch(pressure: 0.5, tiltX: -60))
        #expect(abs(player.targets.pan + 1) < 1e-9)
        player.handle(touch(pressure: 0.5, tiltX: 30))
        #expect(abs(player.targets.pan - 0.5) < 1e-9)
        #expect(player.targets.resonance == nil)
    }

    @Test func pressureCurveIsABezierThroughTheCorners() {
        let linear = PressureCurve.linear
        for x in stride(from: 0.0, through: 1, by: 0.1) { #expect(abs(linear(x) - x) < 1e-9) }
        // Control points above the diagonal lift a light touch, below it soften it.
        let soft = PressureCurve(x1: 0, y1: 0.75, x2: 0.25, y2: 1),
            hard = PressureCurve(x1: 0.75, y1: 0, x2: 1, y2: 0.25)
        #expect(soft(0.2) > 0.5 && hard(0.2) < 0.05)
        #expect(soft(0) == 0 && abs(soft(1) - 1) < 1e-9 && hard(0) == 0 && abs(hard(1) - 1) < 1e-9)
        // Monotonic, and exactly the Bézier: check against its parametric form.
        var previous = -1.0
        for i in 0...50 {
            let t = Double(i) / 50
            let u = 1 - t
            let x = 3 * u * u * t * 0 + 3 * u * t * t * 0.25 + t * t * t
            let y = 3 * u * u * t * 0.75 + 3 * u * t * t * 1 + t * t * t
            #expect(abs(soft(x) - y) < 1e-6)
            #expect(soft(x) >= previous)
            previous = soft(x)
        }
        // Out of range: clamped.
        #expect(linear(-1) == 0 && linear(2) == 1)
    }

    @Test func tiltGivesAltitudeAndAzimuth() {
        let upright = PenTilt(tiltX: 0, tiltY: 0)
        #expect(upright.altitude == 0 && upright.azimuth == 0)
        let right = PenTilt(tiltX: 40, tiltY: 0)
        #expect(abs(right.altitude - 40) < 1e-9 && abs(right.azimuth) < 1e-9)
        let towards = PenTilt(tiltX: 0, tiltY: 30)
        #expect(abs(towards.altitude - 30) < 1e-9 && abs(towards.azimuth - 90) < 1e-9)
        let left = PenTilt(tiltX: -20, tiltY: 0)
        #expect(abs(left.altitude - 20) < 1e-9 && abs(abs(left.azimuth) - 180) < 1e-9)
        // Both at 45°: the pen's direction is (1, 1, 1), 54.7° from vertical, leaning diagonally.
        let diagonal = PenTilt(tiltX: 45, tiltY: 45)
        #expect(abs(diagonal.altitude - atan(sqrt(2)) * 180 / .pi) < 1e-9 && abs(diagonal.azimuth - 45) < 1e-9)
        let away = PenTilt(tiltX: 0, tiltY: -60)
        #expect(abs(away.azimuth + 90) < 1e-9)
    }

    @Test func modeCycleWrapsAndSelects() {
        var cycle = ModeCycle(order: [.intensityPitch, .tiltFilter, .unitCellTagging])
        #expect(cycle.current == .intensityPitch && cycle.number == 1)
        cycle.next(); cycle.next()
        #expect(cycle.current == .unitCellTagging && cycle.number == 3)
        cycle.next()
        #expect(cycle.current == .intensityPitch)
        cycle.previous()
        #expect(cycle.current == .unitCellTagging)
        #expect(cycle.select(number: 2) && cycle.current == .tiltFilter)
        #expect(!cycle.select(number: 4) && !cycle.select(number: 0) && cycle.current == .tiltFilter)
        #expect(!cycle.select(.pressureAmplitude) && cycle.select(.intensityPitch) && cycle.number == 1)
        #expect(Mode.pressureAmplitude.spokenName == "pressure amplitude")
    }
}
