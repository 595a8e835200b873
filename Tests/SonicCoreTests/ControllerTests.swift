import Foundation
import Testing

@testable import SonicCore

@Suite struct GestureTests {
    @Test func doubleClickWithinTheTimeSingleOtherwise() {
        var d = ClickDetector(doubleClickTime: 0.4)
        #expect(d.press(at: 10.0) == nil)
        #expect(abs(d.deadline! - 10.4) < 1e-9)
        #expect(d.poll(at: 10.3) == nil)
        #expect(d.press(at: 10.35) == .double)
        #expect(d.deadline == nil && d.poll(at: 20) == nil)
        // A lone press becomes a single click once the time has passed.
        #expect(d.press(at: 11.0) == nil)
        #expect(d.poll(at: 11.39) == nil)
        #expect(d.poll(at: 11.41) == .single)
        #expect(d.poll(at: 12) == nil)
        // A press after the window reports the earlier single click and starts again.
        #expect(d.press(at: 13.0) == nil)
        #expect(d.press(at: 13.5) == .single)
        #expect(d.press(at: 13.8) == .double)
        // Three quick presses: a double, then the start of another.
        #expect(d.press(at: 20.0) == nil)
        #expect(d.press(at: 20.1) == .double)
        #expect(d.press(at: 20.2) == nil && abs(d.deadline! - 20.6) < 1e-9)
    }

    @Test func tapIsQuickAndStill() {
        var t = TapDetector(maximumTime: 0.3, maximumDistance: 4)
        func run(_ steps: [(down: Bool, time: Double, x: Double, y: Double)]) -> (x: Double, y: Double)? {
            var result: (x: Double, y: Double)?
            for s in steps { if let tap = t.update(tipDown: s.down, time: s.time, x: s.x, y: s.y) { result = tap } }
            return result
        }
        let tap = run([(true, 1.0, 100, 100), (true, 1.1, 102, 101), (false, 1.2, 103, 102)])
        #expect(tap?.x == 100 && tap?.y == 100)
        #expect(run([(true, 2.0, 100, 100), (false, 2.31, 100, 100)]) == nil) // too slow
        #expect(run([(true, 3.0, 100, 100), (true, 3.1, 105, 100), (false, 3.2, 100, 100)]) == nil) // strayed
        #expect(run([(true, 4.0, 100, 100), (false, 4.1, 103, 103)]) == nil) // ended 4.2 px away
        #expect(run([(false, 5.0, 100, 100)]) == nil) // never down
    }

    @Test func aPressInPlaceOrADrag() {
        var d = DragDetector(threshold: 4)
        #expect(d.update(down: true, x: 100, y: 100).isEmpty)
        #expect(d.update(down: true, x: 103, y: 102).isEmpty, "within the threshold")
        #expect(d.update(down: false, x: 103, y: 102) == [.press])
        #expect(d.update(down: true, x: 100, y: 100).isEmpty)
        // Past the threshold: a drag, the first step from where the button went down.
        #expect(d.update(down: true, x: 105, y: 100) == [.dragStart, .drag(dx: 5, dy: 0)])
        #expect(d.update(down: true, x: 106, y: 98) == [.drag(dx: 1, dy: -2)])
        #expect(d.update(down: false, x: 106, y: 98) == [.dragEnd])
        #expect(d.update(down: false, x: 106, y: 98).isEmpty)
    }

    @Test func penGesturesFromButtonsAndNib() {
        var g = PenGestures(Profile.builtIn.gestures)
        func event(_ t: Double, _ buttons: [Int], x: Double = 10, pressure: Double = 0) -> PenEvent {
            var b = PenButtons()
            for n in buttons { b.insert(n) }
            return PenEvent(
                time: t, rootX: x, rootY: 10, pressure: pressure, tiltX: 0, tiltY: 0, buttons: b, inWindow: true)
        }
        #expect(g.update(event(1, [2])).isEmpty && g.deadline != nil)
        _ = g.update(event(1.05, []))
        #expect(g.update(event(1.1, [2])) == [.gesture(.lowerBarrelDoubleClick)])
        _ = g.update(event(1.2, []))
        _ = g.update(event(3, [2]))
        #expect(
            g.poll(at: 3.1) == nil
                && g.poll(at: 3 + Profile.builtIn.gestures.doubleClickTime + 0.01) == .lowerBarrelClick)
        _ = g.update(event(4, [3]))
        #expect(g.update(event(4.1, [])) == [.gesture(.upperBarrelPress)])
        _ = g.update(event(5, [3]))
        #expect(g.update(event(5.1, [3], x: 20)) == [.gesture(.upperBarrelDrag), .drag(dx: 10, dy: 0)])
        #expect(g.update(event(5.2, [], x: 20)) == [.dragEnd])
        _ = g.update(event(6, [1], pressure: 0.5))
        #expect(g.update(event(6.05, [])) == [.tap(x: 10, y: 10)])
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

@Suite struct InstrumentModeTests {
    /// A 4×4 image, all at level 1 (1760 Hz), at scale 10.
    func setup(_ profile: Profile = .builtIn) -> (Instrument, SynthControls) {
        var samples = [UInt16](repeating: 0, count: 16)
        samples[15] = 1; samples[5] = 60000; samples[6] = 60000
        let image = GrayImage(width: 4, height: 4, bitDepth: 16, samples: samples)
        let controls = SynthControls()
        let instrument = Instrument(
            image: image, profile: profile, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        return (instrument, controls)
    }

    func touch(pressure: Double, tiltX: Double = 0, tiltY: Double = 0) -> PenEvent {
        var b = PenButtons()
        b.insert(1)
        return PenEvent(
            time: 0, rootX: 15, rootY: 15, pressure: pressure, tiltX: tiltX, tiltY: tiltY, buttons: b, inWindow: true)
    }

    @Test func loudnessIsFixedOrFollowsPressure() {
        let (instrument, controls) = setup()
        instrument.handle(touch(pressure: 0.2))
        #expect(controls.targets.amplitude == 0.5 && controls.targets.cutoff == nil)
        instrument.set(mode: .pressureAmplitude, at: 0)
        // The mode applies to the sound at once.
        let p = Profile.builtIn.pressure
        #expect(abs(controls.targets.amplitude - p.fullLevel * (0.2 - p.threshold) / (1 - p.threshold)) < 1e-12)
        instrument.handle(touch(pressure: 1))
        #expect(abs(controls.targets.amplitude - p.fullLevel) < 1e-12)
        instrument.handle(touch(pressure: p.threshold))
        #expect(controls.targets.amplitude == 0)
        instrument.set(mode: .unitCellTagging, at: 0)
        #expect(controls.targets.amplitude == 0.5)
    }

    @Test func tiltOpensAndClosesTheFilterAroundThePitch() {
        let (instrument, controls) = setup()
        instrument.set(mode: .tiltFilter, at: 0)
        instrument.handle(touch(pressure: 0.5))
        let pitch = controls.targets.frequency
        #expect(abs(pitch - 1760) < 1e-9)
        #expect(abs(controls.targets.cutoff! - 16 * pitch) < 1e-6)
        #expect(controls.targets.timbre == 6 && controls.targets.resonance == 0)
        instrument.handle(touch(pressure: 0.5, tiltX: 30))
        #expect(abs(controls.targets.cutoff! - 4 * pitch) < 1e-6) // half the lean range: half way in octaves
        instrument.handle(touch(pressure: 0.5, tiltX: 60))
        #expect(abs(controls.targets.cutoff! - pitch) < 1e-6)
        #expect(controls.targets.resonance == 0) // leaning sideways: no resonance
        instrument.handle(touch(pressure: 0.5, tiltY: 60))
        #expect(abs(controls.targets.resonance! - 0.8) < 1e-9) // fully towards the user
        instrument.handle(touch(pressure: 0.5, tiltY: -60))
        #expect(controls.targets.resonance == 0) // away
    }

    @Test func tiltCanPanInstead() throws {
        let profile = try Profile(name: "p", file: "p.toml", text: "[tilt]\nazimuth = \"pan\"\n")
        #expect(profile.chain.panned)
        let (instrument, controls) = setup(profile)
        instrument.set(mode: .tiltFilter, at: 0)
        instrument.handle(touch(pressure: 0.5, tiltX: -60))
        #expect(abs(controls.targets.pan + 1) < 1e-9)
        instrument.handle(touch(pressure: 0.5, tiltX: 30))
        #expect(abs(controls.targets.pan - 0.5) < 1e-9)
        #expect(controls.targets.resonance == nil)
    }
}

@Suite struct SessionControllerTests {
    func make() -> SessionController {
        let image = GrayImage(width: 10, height: 10, bitDepth: 16, samples: (0..<100).map { UInt16($0 * 600) })
        let instrument = Instrument(
            image: image, profile: .builtIn, statistics: SampleStatistics(image),
            viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: SynthControls())
        return SessionController(instrument: instrument, opened: OpenedImage(fileName: "test.png"))
    }

    func pen(_ t: Double, x: Double = 55, y: Double = 35, buttons: [Int] = [], pressure: Double = 0) -> PenEvent {
        var b = PenButtons()
        for n in buttons { b.insert(n) }
        return PenEvent(time: t, rootX: x, rootY: y, pressure: pressure, tiltX: 0, tiltY: 0, buttons: b, inWindow: true)
    }

    func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    @Test func greetsWithTheImageAndMode() {
        let c = make()
        #expect(speech(c.start()) == ["SonicAtomic. test.png, 10 by 10 pixels, 16 bit. Mode 1, intensity pitch."])
        #expect(speech(c.start(notices: ["Note: x."])).first?.hasSuffix("Mode 1, intensity pitch. Note: x.") == true)
    }

    @Test func barrelDoubleClickNextModeSingleClickWhereAmI() {
        let c = make()
        _ = c.handle(pen(1.0))
        _ = c.handle(pen(1.05, buttons: [2]))
        _ = c.handle(pen(1.09))
        let second = c.handle(pen(1.17, buttons: [2]))
        #expect(second.contains(.mode(.pressureAmplitude)))
        #expect(speech(second) == ["Mode 2, pressure amplitude."])
        #expect(c.instrument.mode == .pressureAmplitude)
        _ = c.handle(pen(1.2))
        // One click: nothing until the double-click time has passed, then where am I.
        #expect(c.handle(pen(3.0, buttons: [2])).count == 1)
        #expect(c.poll(at: 3.2).isEmpty)
        // Pixel (5, 3) holds 21000; the percentiles are 0 and 59400: 35 percent.
        #expect(speech(c.poll(at: 3.41)) == ["x 5, y 3, intensity 35 percent"])
    }

    @Test func upperBarrelRepeatsOrRemovesATag() {
        let c = make()
        _ = c.handle(key: "Space", at: 0)
        _ = c.handle(pen(1, buttons: []))
        // The upper button acts on release (held and dragged, it would move the view instead).
        #expect(speech(c.handle(pen(1.1, buttons: [3]))).isEmpty)
        #expect(speech(c.handle(pen(1.15, buttons: []))) == ["The pen is not on the tablet."])
        _ = c.handle(key: "4", at: 0)
        // A tap tags; the upper button takes it back.
        _ = c.handle(pen(2.0, buttons: [1], pressure: 0.5))
        let tap = c.handle(pen(2.1, buttons: [], pressure: 0))
        #expect(tap.contains(.tagAdded(Tag(id: 1, x: 5, y: 3))))
        #expect(speech(tap) == ["Tag 1 at x 5, y 3, intensity 35 percent."])
        _ = c.handle(pen(2.5, buttons: [3]))
        let undo = c.handle(pen(2.55, buttons: []))
        #expect(undo.contains(.tagRemoved(Tag(id: 1, x: 5, y: 3))) && speech(undo) == ["Removed tag 1."])
        #expect(c.book.tags.isEmpty)
    }

    @Test func tapsOnlyTagInTaggingModeAndInsideTheImage() {
        let c = make()
        _ = c.handle(pen(1.0, buttons: [1], pressure: 0.5))
        #expect(!c.handle(pen(1.1)).contains { if case .tagAdded = $0 { true } else { false } })
        _ = c.handle(key: "4", at: 0)
        _ = c.handle(pen(2.0, x: 150, buttons: [1], pressure: 0.5))
        #expect(speech(c.handle(pen(2.1, x: 150))) == ["Not tagged: outside the image."])
        #expect(c.book.tags.isEmpty)
    }

    @Test func keysDoEverything() {
        let c = make()
        #expect(c.handle(key: "Tab", at: 0).contains(.mode(.pressureAmplitude)))
        #expect(c.handle(key: "Shift+Tab", at: 0).contains(.mode(.intensityPitch)))
        #expect(c.handle(key: "Shift+Tab", at: 0).contains(.mode(.unitCellTagging)))
        #expect(c.handle(key: "3", at: 0).contains(.mode(.tiltFilter)))
        #expect(speech(c.handle(key: "7", at: 0)) == ["There is no mode 7."])
        _ = c.handle(pen(1, x: 95, y: 95))
        #expect(speech(c.handle(key: "Space", at: 0)) == ["x 9, y 9, intensity 100 percent"])
        #expect(speech(c.handle(key: "R", at: 0)) == ["x 9, y 9, intensity 100 percent"])
        #expect(speech(c.handle(key: "BackSpace", at: 0)) == ["No tags to remove."])
        #expect(speech(c.handle(key: "F1", at: 0)) == [Phrases.keyHelp])
        #expect(c.handle(key: "Q", at: 0) == [.speak("Goodbye."), .quit])
        #expect(c.handle(key: "Escape", at: 0).last == .quit)
        #expect(c.handle(key: "x", at: 0).isEmpty)
    }

    @Test func closingTheWindowQuitsAsTheQuitKeyDoes() {
        #expect(make().handle(.windowClosed, at: 0) == [.speak("Goodbye."), .quit])
    }

    /// While the sound server is away nothing can be heard: the panel says so, and once it is back the
    /// user hears that it is, with the last thing they asked for meanwhile.
    @Test func soundThatComesBackSaysSoWithWhatWasAskedMeanwhile() {
        let c = make()
        _ = c.handle(key: "H", at: 0)
        #expect(c.soundLost().isEmpty)
        #expect(c.overlay.status.first == Phrases.noSoundServer)
        _ = c.handle(pen(1, x: 95, y: 95))
        _ = c.handle(key: "Space", at: 1)
        _ = c.handle(key: "7", at: 2)
        #expect(speech(c.soundBack()) == ["Sound is back. There is no mode 7."])
        #expect(c.overlay.status.first == "Mode 1: intensity pitch")
        #expect(speech(c.handle(key: "R", at: 3)) == ["Sound is back. There is no mode 7."])
        // Nothing asked for meanwhile: only that it is back.
        _ = c.soundLost()
        #expect(speech(c.soundBack()) == ["Sound is back."])
    }
}
