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
        let doubleClickTime = Profile.builtIn.gestures.doubleClickTime
        #expect(g.update(event(1, [2])).isEmpty && g.deadline != nil)
        _ = g.update(event(1.05, []))
        #expect(g.update(event(1.1, [2])) == [.gesture(.lowerBarrelDoubleClick)])
        // The second press of a double click, held, is no hold.
        #expect(g.poll(at: 2).isEmpty)
        _ = g.update(event(2.1, []))
        _ = g.update(event(3, [2]))
        _ = g.update(event(3.05, []))
        #expect(g.poll(at: 3.1).isEmpty && g.poll(at: 3 + doubleClickTime + 0.01) == [.lowerBarrelClick])
        // The upper button: a press once the double-click time has passed, a double click at once.
        _ = g.update(event(4, [3]))
        #expect(g.update(event(4.1, [])).isEmpty)
        #expect(g.poll(at: 4.1 + doubleClickTime + 0.01) == [.upperBarrelPress])
        _ = g.update(event(4.8, [3]))
        _ = g.update(event(4.85, []))
        _ = g.update(event(4.9, [3]))
        #expect(g.update(event(4.95, [])) == [.gesture(.upperBarrelDoubleClick)])
        _ = g.update(event(5, [3]))
        #expect(g.update(event(5.1, [3], x: 20)) == [.gesture(.upperBarrelDrag), .drag(dx: 10, dy: 0)])
        #expect(g.update(event(5.2, [], x: 20)) == [.dragEnd])
        _ = g.update(event(6, [1], pressure: 0.5))
        #expect(g.update(event(6.05, [])) == [.tap(x: 10, y: 10)])
    }

    /// Either barrel button held still for the hold time is a hold, known without an event; its release is then no
    /// click, no press and no drag. Moved, it is none.
    @Test func aBarrelButtonHeldStillIsAHold() {
        var g = PenGestures(Profile.builtIn.gestures)
        func event(_ t: Double, _ buttons: [Int], x: Double = 10) -> PenEvent {
            var b = PenButtons()
            for n in buttons { b.insert(n) }
            return PenEvent(time: t, rootX: x, rootY: 10, pressure: 0, tiltX: 0, tiltY: 0, buttons: b, inWindow: true)
        }
        let hold = PenGestures.holdTime
        _ = g.update(event(1, [2]))
        // Still held past the double-click time: not yet a click, and not yet a hold.
        #expect(g.poll(at: 1.5).isEmpty && abs(g.deadline! - (1 + hold)) < 1e-9)
        #expect(g.poll(at: 1 + hold) == [.lowerBarrelHold])
        #expect(g.update(event(2, [])).isEmpty && g.poll(at: 3).isEmpty)
        // Released before the hold time: a click, known at the release.
        _ = g.update(event(4, [2]))
        #expect(g.update(event(4.5, [])) == [.gesture(.lowerBarrelClick)])
        // The upper button held: a hold, and its release nothing; through events as much as through polling.
        _ = g.update(event(5, [3]))
        #expect(g.update(event(5 + hold + 0.01, [3])) == [.gesture(.upperBarrelHold)])
        #expect(g.update(event(6, [3], x: 30)).isEmpty && g.update(event(6.1, [], x: 30)).isEmpty)
        #expect(g.poll(at: 8).isEmpty)
        // Moved more than the drag threshold while held: no hold, but a click.
        _ = g.update(event(9, [2]))
        _ = g.update(event(9.1, [2], x: 20))
        #expect(g.poll(at: 9 + hold + 0.1) == [.lowerBarrelClick])
    }
}

@Suite struct SessionControllerTests {
    func make() -> SessionController {
        TestPlayer(
            GrayImage(width: 10, height: 10, bitDepth: 16, samples: (0..<100).map { UInt16($0 * 600) }), scale: 10
        )
        .controller()
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
        #expect(c.state.mode == .pressureAmplitude)
        _ = c.handle(pen(1.2))
        // One click: nothing until the double-click time has passed, then where am I.
        #expect(c.handle(pen(3.0, buttons: [2])).count == 1)
        #expect(c.handle(pen(3.05)).count == 1)
        #expect(c.poll(at: 3.2).isEmpty)
        // Pixel (5, 3) holds 21000; the percentiles are 0 and 59400: 35 percent.
        #expect(speech(c.poll(at: 3.41)) == ["x 5, y 3, intensity 35 percent"])
    }

    @Test func upperBarrelRepeatsOrRemovesATag() {
        let c = make()
        _ = c.handle(key: "Space", at: 0)
        _ = c.handle(pen(1, buttons: []))
        // The upper button acts once released (held and dragged, it would move the view instead) and the
        // double-click time has passed.
        #expect(speech(c.handle(pen(1.1, buttons: [3]))).isEmpty)
        #expect(speech(c.handle(pen(1.15, buttons: []))).isEmpty)
        #expect(speech(c.poll(at: 1.6)) == ["The pen is not on the tablet."])
        _ = c.handle(key: "4", at: 0)
        // A tap tags; the upper button takes it back.
        _ = c.handle(pen(2.0, buttons: [1], pressure: 0.5))
        let tap = c.handle(pen(2.1, buttons: [], pressure: 0))
        #expect(tap.contains(.tagAdded(Tag(id: 1, x: 5, y: 3))))
        #expect(speech(tap) == ["Tag 1 at x 5, y 3, intensity 35 percent."])
        _ = c.handle(pen(2.5, buttons: [3]))
        _ = c.handle(pen(2.55, buttons: []))
        let undo = c.poll(at: 3)
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
        let pages = Bindings.helpPages(mode: c.state.mode, frames: false, spectra: false)
        #expect(speech(c.handle(key: "F1", at: 0)) == [pages[0]])
        #expect(speech(c.handle(key: "F1", at: 0)) == [pages[1]])
        #expect(c.handle(key: "Q", at: 0) == [.speak("Goodbye."), .quit])
        #expect(speech(c.handle(key: "Escape", at: 0)) == [Phrases.escapeAgainToQuit])
        #expect(c.handle(key: "Escape", at: 0).last == .quit)
        // A key that does nothing here says where it does something, or that it does nothing.
        #expect(speech(c.handle(key: "Enter", at: 0)) == ["Enter: tag the column, in tagging mode only."])
        #expect(speech(c.handle(key: "K", at: 0)) == ["K does nothing. F1 says the keys."])
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
