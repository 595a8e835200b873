/// One input device as the window system lists it.
public struct InputDevice: Sendable, Equatable {
    public var id: Int
    public var name: String
    /// A master device stands for the slaves that move it, and takes on the axes of whichever moved last.
    public var isMaster: Bool
    public var enabled: Bool
    public var valuators: [Valuator]

    public init(id: Int, name: String, isMaster: Bool = false, enabled: Bool = true, valuators: [Valuator]) {
        self.id = id; self.name = name; self.isMaster = isMaster; self.enabled = enabled
        self.valuators = valuators
    }
}

/// A pointer report as XInput2 delivers it, decoded from its C structures but not yet interpreted.
public struct PointerReport: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case motion
        case press(Int)
        case release(Int)
        /// The pointer crossed into or out of the window.
        case crossing(entered: Bool)
    }

    public var kind: Kind
    /// The physical device that caused it.
    public var device: Int
    public var rootX: Double
    public var rootY: Double
    /// The valuators the report carries, by number: drivers send only those that changed.
    public var valuators: [Int: Double]
    /// The buttons held before this report.
    public var buttons: PenButtons

    public init(
        _ kind: Kind, device: Int, rootX: Double, rootY: Double, valuators: [Int: Double] = [:],
        buttons: PenButtons = PenButtons()
    ) {
        self.kind = kind; self.device = device; self.rootX = rootX; self.rootY = rootY
        self.valuators = valuators; self.buttons = buttons
    }
}

/// Turns what any tablet driver reports — xf86-input-wacom, xf86-input-libinput, XWayland — into pen
/// events: each device's axes found by label and scaled by its range, the last value of every axis
/// kept between reports, and the pen's device followed as it comes and goes.
public struct PenTracker: Sendable {
    public enum Output: Sendable, Equatable {
        case pen(PenEvent)
        /// The last pen device went away (unplugged, or disabled).
        case penLost
        /// A pen device appeared where there was none (plugged in, or created as the pen first came near).
        case penFound
    }

    /// The pointing devices by id, with the last axis values each sent.
    private var devices: [Int: PenDevice] = [:]
    private var buttons = PenButtons()
    private var pointerInWindow = true
    /// Where the pointer was last reported, for the event that silences a pen that went away.
    private var lastPosition = (x: 0.0, y: 0.0)

    public init(devices listed: [InputDevice]) { _ = list(listed, at: 0) }

    /// Whether an enabled device reports pen pressure: a tablet. Without one the mouse plays.
    public private(set) var hasPen = false

    /// The devices as the window system lists them now (after a hierarchy or device change). When the
    /// pen goes, a last event with the pen off the tablet silences its tone.
    public mutating func list(_ listed: [InputDevice], at time: Double) -> [Output] {
        var found: [Int: PenDevice] = [:]
        for info in listed where info.enabled {
            var device = PenDevice(valuators: info.valuators)
            // Keep the last axis values across a refresh so a hot-plug elsewhere does not reset the pen.
            if let old = devices[info.id], old.pressureAxis == device.pressureAxis,
                old.tiltXAxis == device.tiltXAxis, old.tiltYAxis == device.tiltYAxis
            {
                device = old
            }
            found[info.id] = device
        }
        devices = found
        let hadPen = hasPen
        hasPen = listed.contains { $0.enabled && !$0.isMaster && PenDevice(valuators: $0.valuators).hasPressure }
        switch (hadPen, hasPen) {
        case (true, false):
            buttons = PenButtons()
            let gone = PenEvent(
                time: time, rootX: lastPosition.x, rootY: lastPosition.y, pressure: 0, tiltX: 0, tiltY: 0,
                buttons: buttons, inWindow: false)
            return [.pen(gone), .penLost]
        case (false, true): return [.penFound]
        default: return []
        }
    }

    /// The pen event a report makes, stamped `time`.
    public mutating func handle(_ report: PointerReport, at time: Double) -> PenEvent {
        var device = devices[report.device] ?? PenDevice(valuators: [])
        switch report.kind {
        case .crossing(let entered):
            pointerInWindow = entered
        case .motion, .press, .release:
            buttons = report.buttons
            if case .press(let button) = report.kind { buttons.insert(button) }
            if case .release(let button) = report.kind { buttons.remove(button) }
            for (number, value) in report.valuators { device.update(number: number, value: value) }
            devices[report.device] = device
            pointerInWindow = true
        }
        lastPosition = (report.rootX, report.rootY)
        return PenEvent(
            time: time, rootX: report.rootX, rootY: report.rootY, pressure: device.pressure(buttons: buttons),
            tiltX: device.tiltXDegrees, tiltY: device.tiltYDegrees, buttons: buttons, inWindow: pointerInWindow)
    }
}
