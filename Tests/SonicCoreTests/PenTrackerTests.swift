import Foundation
import Testing

@testable import SonicCore

/// The pen as each tablet driver reports it — xf86-input-wacom, xf86-input-libinput, XWayland — gives
/// the same sound, the same barrel gestures, and silence when it leaves the tablet.
@Suite struct PenTrackerTests {
    /// A driver's pen device and how it reports a pen's state.
    struct Driver: CustomTestStringConvertible {
        let name: String
        let pen: InputDevice
        /// The other devices the server lists beside the pen.
        let others: [InputDevice]
        let pressureMaximum: Double
        /// Raw tilt units per degree.
        let tiltUnitsPerDegree: Double
        /// Whether the pen's device exists before the pen first comes near the tablet.
        let listedAtStart: Bool
        /// Button number of the pen's third button, which nothing is bound to.
        let thirdButton: Int
        /// What leaving the tablet looks like after the tip lifts: wacom and libinput leave proximity (no
        /// XI2 event, the axes keep their last values; libinput's pressure may even stay above zero),
        /// XWayland has no proximity and sets pressure and tilt to zero.
        let leavingZeroesTheAxes: Bool
        let liftLeavesPressure: Bool

        var testDescription: String { name }

        func valuators(pressure: Double? = nil, tilt: (x: Double, y: Double)? = nil) -> [Int: Double] {
            var values: [Int: Double] = [:]
            if let pressure { values[2] = (pressure * pressureMaximum).rounded() }
            if let tilt {
                values[3] = (tilt.x * tiltUnitsPerDegree).rounded()
                values[4] = (tilt.y * tiltUnitsPerDegree).rounded()
            }
            return values
        }
    }

    static let keyboardAndMouse = [
        InputDevice(id: 2, name: "Virtual core pointer", isMaster: true, valuators: axes(x: 1919, y: 1079)),
        InputDevice(id: 3, name: "Virtual core keyboard", isMaster: true, valuators: []),
        InputDevice(id: 4, name: "Virtual core XTEST pointer", valuators: axes(x: -1, y: -1))
    ]

    static func axes(x: Double, y: Double) -> [Valuator] {
        [
            Valuator(number: 0, label: "Abs X", minimum: 0, maximum: x, resolution: 0),
            Valuator(number: 1, label: "Abs Y", minimum: 0, maximum: y, resolution: 0)
        ]
    }

    static func pen(
        _ id: Int, _ name: String, position: Double, pressure: Double, tilt: ClosedRange<Double>,
        tiltResolution: Double
    ) -> InputDevice {
        InputDevice(
            id: id, name: name,
            valuators: axes(x: position, y: position) + [
                Valuator(number: 2, label: "Abs Pressure", minimum: 0, maximum: pressure, resolution: 0),
                Valuator(
                    number: 3, label: "Abs Tilt X", minimum: tilt.lowerBound, maximum: tilt.upperBound,
                    resolution: tiltResolution),
                Valuator(
                    number: 4, label: "Abs Tilt Y", minimum: tilt.lowerBound, maximum: tilt.upperBound,
                    resolution: tiltResolution)
            ])
    }

    /// The valuator tables of platform-notes §9 and the pen-tablet fixture's.
    static let drivers = [
        Driver(
            name: "xf86-input-wacom",
            pen: pen(
                10, "Wacom Intuos Pro M Pen stylus", position: 44_704, pressure: 65536, tilt: -64...63,
                tiltResolution: 57),
            others: keyboardAndMouse, pressureMaximum: 65536, tiltUnitsPerDegree: 1, listedAtStart: true,
            thirdButton: 8, leavingZeroesTheAxes: false, liftLeavesPressure: false),
        Driver(
            name: "xf86-input-libinput",
            pen: pen(
                14, "Wacom Intuos Pro M Pen Pen (0x8c3e0a1b)", position: 65535, pressure: 2047, tilt: -64...64,
                tiltResolution: 0),
            others: keyboardAndMouse, pressureMaximum: 2047, tiltUnitsPerDegree: 1, listedAtStart: false,
            thirdButton: 62, leavingZeroesTheAxes: false, liftLeavesPressure: true),
        Driver(
            name: "XWayland",
            pen: pen(
                12, "xwayland-tablet stylus:11", position: 262_143, pressure: 65535, tilt: -64...63,
                tiltResolution: 57),
            others: keyboardAndMouse + [
                pen(
                    13, "xwayland-tablet eraser:11", position: 262_143, pressure: 65535, tilt: -64...63,
                    tiltResolution: 57)
            ],
            pressureMaximum: 65535, tiltUnitsPerDegree: 1, listedAtStart: true, thirdButton: 8,
            leavingZeroesTheAxes: true, liftLeavesPressure: false)
    ]

    /// A session on a 4 × 4 image at 10 screen pixels a pixel, its pixel (1, 1) at level 1.
    final class Session {
        let stack = SoundStack(profile: .plainMapping, sampleRate: 48_000, speechSeconds: 0.1)
        let controller: SessionController
        var tracker: PenTracker
        let driver: Driver
        var time = 10.0
        var held = PenButtons()
        var outputs: [ControllerOutput] = []

        init(_ driver: Driver) {
            self.driver = driver
            var samples = [UInt16](repeating: 0, count: 16)
            samples[5] = 60000; samples[15] = 1
            controller = SessionController(
                sound: stack.sound(playing: GrayImage(width: 4, height: 4, bitDepth: 16, samples: samples)),
                opened: OpenedImage(fileName: "t.png"))
            _ = controller.place(window: ScreenRect(x: 0, y: 0, width: 40, height: 40))
            tracker = PenTracker(devices: driver.others + (driver.listedAtStart ? [driver.pen] : []))
        }

        var targets: SynthTargets { stack.controls.targets }

        func list(_ devices: [InputDevice]) {
            time += 0.01
            for output in tracker.list(devices, at: time) {
                switch output {
                case .pen(let event): outputs += controller.handle(event)
                case .penLost: outputs += controller.penDevice(found: false)
                case .penFound: outputs += controller.penDevice(found: true)
                }
            }
        }

        func report(
            _ kind: PointerReport.Kind = .motion, pressure: Double? = nil, tilt: (x: Double, y: Double)? = nil,
            at x: Double = 15, _ y: Double = 15, after seconds: Double = 0.01
        ) {
            time += seconds
            let report = PointerReport(
                kind, device: driver.pen.id, rootX: x, rootY: y,
                valuators: driver.valuators(pressure: pressure, tilt: tilt), buttons: held)
            if case .press(let button) = kind { held.insert(button) }
            if case .release(let button) = kind { held.remove(button) }
            outputs += controller.handle(tracker.handle(report, at: time))
            outputs += controller.poll(at: time)
        }

        func doubleClickLowerBarrel() {
            for _ in 0..<2 {
                report(.press(PenButtons.lowerBarrel), after: 0.05)
                report(.release(PenButtons.lowerBarrel), after: 0.05)
            }
        }

        /// The loudest sample of the next `seconds` of sound.
        func loudest(_ seconds: Double) -> Float {
            let frames = Int(seconds * 48_000)
            var sound = [Float](repeating: 0, count: 2 * frames)
            sound.withUnsafeMutableBufferPointer {
                stack.renderer.render(into: $0.baseAddress!, frames: frames, channels: 2)
            }
            return sound.map(abs).max() ?? 0
        }

        var spoken: [String] { outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } } }
    }

    @Test(arguments: drivers) func thePenPlaysAlikeWhateverTheDriver(driver: Driver) {
        let session = Session(driver)
        let pitch = Profile.plainMapping.pitch.frequency(level: 1)
        if !driver.listedAtStart {
            // libinput creates the pen's device as the pen first comes near: a hierarchy change.
            #expect(!session.tracker.hasPen)
            session.list(driver.others + [driver.pen])
            #expect(session.spoken == ["Pen found."])
        }
        #expect(session.tracker.hasPen)

        // Hovering: silent. Touching the bright pixel: its pitch, at the fixed loudness of mode 1.
        session.report(pressure: 0, tilt: (0, 0))
        #expect(session.targets.amplitude == 0)
        session.report(.press(PenButtons.tip), pressure: 0.5)
        #expect(abs(session.targets.frequency - pitch) < 1e-9)
        #expect(session.targets.amplitude == Profile.plainMapping.amplitude)
        #expect(session.loudest(0.05) > 0.1)

        // The lower barrel button's double click: mode 2, where pressure sets the loudness.
        session.doubleClickLowerBarrel()
        #expect(session.controller.state.mode == .pressureAmplitude)
        session.report(pressure: 1)
        #expect(abs(session.targets.amplitude - Profile.plainMapping.pressure.fullLevel) < 1e-3)
        session.report(pressure: 0.25)
        #expect(abs(session.targets.amplitude - session.controller.instrument.loudness(pressure: 0.25)) < 2e-3)

        // Mode 3: leaning 30 degrees (half the lean range) puts the cutoff two octaves above the pitch.
        session.doubleClickLowerBarrel()
        #expect(session.controller.state.mode == .tiltFilter)
        session.report(pressure: 0.5, tilt: (30, 0))
        let cutoff = session.targets.cutoff ?? 0
        #expect(abs(log2(cutoff / pitch) - 2) < 0.05, "\(driver.name): cutoff \(cutoff) Hz for a pitch of \(pitch) Hz")

        // The third button is bound to nothing, and does nothing.
        let spokenBefore = session.spoken.count
        session.report(.press(driver.thirdButton))
        session.report(.release(driver.thirdButton))
        session.report(after: 1)
        #expect(session.spoken.count == spokenBefore && session.controller.state.mode == .tiltFilter)

        // Lifting and leaving the tablet, as the driver shows it: the tone is gone within 10 ms.
        session.report(.release(PenButtons.tip), pressure: driver.liftLeavesPressure ? 0.02 : 0)
        if driver.leavingZeroesTheAxes { session.report(pressure: 0, tilt: (0, 0)) }
        #expect(session.targets.amplitude == 0)
        _ = session.loudest(0.01)
        #expect(session.loudest(0.02) < 1e-4, "\(driver.name): still sounding 10 ms after the pen left")
    }

    @Test(arguments: drivers) func aPenUnpluggedAndPluggedBackIsAnnouncedAndFallsSilent(driver: Driver) {
        let session = Session(driver)
        session.list(driver.others + [driver.pen])
        session.outputs = []
        session.report(.press(PenButtons.tip), pressure: 0.5)
        #expect(session.targets.amplitude > 0)
        // Unplugged mid-stroke: the device goes from the list, and the pen can never say it left.
        session.list(driver.others.filter { !PenDevice(valuators: $0.valuators).hasPressure })
        #expect(session.spoken == ["Pen lost."])
        #expect(session.targets.amplitude == 0)
        #expect(!session.tracker.hasPen)
        // Back again, as a new device: found, and it plays.
        var back = driver.pen
        back.id += 20
        session.list(driver.others + [back])
        #expect(session.spoken == ["Pen lost.", "Pen found."])
        session.held = PenButtons()
        let report = PointerReport(
            .press(PenButtons.tip), device: back.id, rootX: 15, rootY: 15, valuators: driver.valuators(pressure: 0.5))
        session.outputs += session.controller.handle(session.tracker.handle(report, at: 20))
        #expect(session.targets.amplitude > 0)
        // A disabled device counts as gone too (what `xinput disable` does to it).
        back.enabled = false
        session.list(driver.others.filter { !PenDevice(valuators: $0.valuators).hasPressure } + [back])
        #expect(session.spoken.last == "Pen lost.")
    }

    @Test func aListingThatKeepsThePenKeepsItsLastAxisValues() {
        let driver = Self.drivers[0]
        var tracker = PenTracker(devices: driver.others + [driver.pen])
        _ = tracker.handle(
            PointerReport(.motion, device: 10, rootX: 1, rootY: 1, valuators: driver.valuators(pressure: 0.5)), at: 1)
        // Another device plugged in: a hierarchy change that says nothing about the pen.
        #expect(
            tracker.list(driver.others + [driver.pen, InputDevice(id: 30, name: "mouse", valuators: [])], at: 2).isEmpty
        )
        var tip = PenButtons()
        tip.insert(PenButtons.tip)
        let event = tracker.handle(PointerReport(.motion, device: 10, rootX: 2, rootY: 2, buttons: tip), at: 3)
        #expect(abs(event.pressure - 0.5) < 1e-4)
    }
}
