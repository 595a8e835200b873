/// Tells a single click of a button from a double click. A single click is only known once the
/// double-click time has passed without a second press, so it is reported by `poll`.
public struct ClickDetector: Sendable {
    public enum Gesture: Sendable, Equatable { case single, double }

    public let doubleClickTime: Double
    /// Time of a first press still waiting to learn whether a second one follows.
    private var pendingPress: Double?

    public init(doubleClickTime: Double) { self.doubleClickTime = doubleClickTime }

    /// The press waiting to learn whether a second follows is no click after all (it became a hold).
    public mutating func cancel() { pendingPress = nil }

    /// A press at `time`: a double click if it follows a pending press closely enough.
    public mutating func press(at time: Double) -> Gesture? {
        if let first = pendingPress, time - first <= doubleClickTime {
            pendingPress = nil
            return .double
        }
        let expired = poll(at: time)
        pendingPress = time
        return expired
    }

    /// A single click whose double-click time ran out by `time`, if any.
    public mutating func poll(at time: Double) -> Gesture? {
        guard let first = pendingPress, time - first > doubleClickTime else { return nil }
        pendingPress = nil
        return .single
    }

    /// When `poll` will next have something to say.
    public var deadline: Double? { pendingPress.map { $0 + doubleClickTime } }
}

/// A tap: the tip goes down and comes up again soon, close to where it landed.
public struct TapDetector: Sendable {
    public let maximumTime: Double
    /// In screen pixels.
    public let maximumDistance: Double
    private var down: (time: Double, x: Double, y: Double)?
    private var strayed = false

    public init(maximumTime: Double, maximumDistance: Double) {
        self.maximumTime = maximumTime
        self.maximumDistance = maximumDistance
    }

    /// Follows the tip; returns where a tap landed when the tip comes up from one.
    public mutating func update(tipDown: Bool, time: Double, x: Double, y: Double) -> (x: Double, y: Double)? {
        if tipDown {
            if let d = down {
                if ((x - d.x) * (x - d.x) + (y - d.y) * (y - d.y)).squareRoot() > maximumDistance { strayed = true }
            } else {
                down = (time, x, y)
                strayed = false
            }
            return nil
        }
        guard let d = down else { return nil }
        down = nil
        let moved = ((x - d.x) * (x - d.x) + (y - d.y) * (y - d.y)).squareRoot() > maximumDistance
        return strayed || moved || time - d.time > maximumTime ? nil : (d.x, d.y)
    }
}

/// Tells a press of a button in place from a drag: moving more than `threshold` screen pixels from
/// where it went down makes it a drag, which then reports every movement; a press is known on release.
public struct DragDetector: Sendable {
    public enum Gesture: Sendable, Equatable {
        /// Released where it was pressed.
        case press
        case dragStart
        /// The pen moved this far (screen pixels) since the last report while dragging.
        case drag(dx: Double, dy: Double)
        case dragEnd
    }

    /// In screen pixels.
    public let threshold: Double
    /// Where the button went down, or the drag last was, while it is held.
    private var held: (x: Double, y: Double, dragging: Bool)?

    public init(threshold: Double) { self.threshold = threshold }

    /// Follows the button (`down`) and the pen's position.
    public mutating func update(down: Bool, x: Double, y: Double) -> [Gesture] {
        guard let last = held else {
            if down { held = (x, y, false) }
            return []
        }
        guard down else {
            held = nil
            return [last.dragging ? .dragEnd : .press]
        }
        let dx = x - last.x, dy = y - last.y
        guard last.dragging || (dx * dx + dy * dy).squareRoot() > threshold else { return [] }
        held = (x, y, true)
        return (last.dragging ? [] : [.dragStart]) + [.drag(dx: dx, dy: dy)]
    }
}

/// A button held down and still: once it has been for `holdTime`, a hold. Moving more than `threshold` screen pixels
/// from where it went down makes that press none.
public struct HoldDetector: Sendable {
    public let holdTime: Double
    /// In screen pixels.
    public let threshold: Double
    private var state = State.up

    private enum State {
        case up
        /// Down since then, there, and still so far.
        case pending(time: Double, x: Double, y: Double)
        /// Down, and recognized as a hold.
        case held
        /// Down, and no hold: it moved, or was the second press of a double click.
        case over
    }

    public init(holdTime: Double, threshold: Double) {
        self.holdTime = holdTime
        self.threshold = threshold
    }

    /// Follows the button (`isDown`) and the pen; true when this makes it a hold.
    public mutating func update(isDown: Bool, time: Double, x: Double, y: Double) -> Bool {
        switch (isDown, state) {
        case (false, _): state = .up
        case (true, .up): state = .pending(time: time, x: x, y: y)
        case (true, .pending(_, let downX, let downY)):
            if ((x - downX) * (x - downX) + (y - downY) * (y - downY)).squareRoot() > threshold {
                state = .over
            } else {
                return poll(at: time)
            }
        case (true, .held), (true, .over): break
        }
        return false
    }

    /// Whether the button, still down and still, has become a hold by `time`.
    public mutating func poll(at time: Double) -> Bool {
        guard case .pending(let downTime, _, _) = state, time - downTime >= holdTime else { return false }
        state = .held
        return true
    }

    /// Whether it is down and may still become a hold.
    public var isPending: Bool { if case .pending = state { true } else { false } }

    /// Whether it is down and has been recognized as a hold.
    public var isHeld: Bool { if case .held = state { true } else { false } }

    /// When `poll` will make it a hold, if it stays still.
    public var deadline: Double? {
        if case .pending(let time, _, _) = state { time + holdTime } else { nil }
    }

    /// This press is not to become a hold.
    public mutating func forget() { if isPending { state = .over } }
}

/// The pen's buttons and nib, as gestures: each barrel button's clicks, double clicks and holds, the upper one's
/// drags, and taps of the nib. A click that may yet be a double click, or (while the button stays down) a hold, is
/// known once the double-click time has passed and the button is up.
public struct PenGestures: Sendable {
    public enum Recognized: Sendable, Equatable {
        case gesture(PenGesture)
        /// The upper barrel button dragged this far (screen pixels) since the last report.
        case drag(dx: Double, dy: Double)
        case dragEnd
        /// A tap of the nib at this root position.
        case tap(x: Double, y: Double)
    }

    /// Screen pixels the pen may wander while a barrel button is held and still count as a press or a hold.
    public static let dragThreshold = 4.0
    /// How long a barrel button is held still to be a hold.
    public static let holdTime = 0.6

    /// The lower button's clicks count its presses; the upper one's, its presses released without a drag.
    private var lowerClicks: ClickDetector
    private var upperClicks: ClickDetector
    private var lowerHold = HoldDetector(holdTime: Self.holdTime, threshold: Self.dragThreshold)
    private var upperHold = HoldDetector(holdTime: Self.holdTime, threshold: Self.dragThreshold)
    private var upperBarrel = DragDetector(threshold: Self.dragThreshold)
    private var taps: TapDetector
    private var lastButtons = PenButtons()

    public init(_ settings: Profile.GestureSettings) {
        lowerClicks = ClickDetector(doubleClickTime: settings.doubleClickTime)
        upperClicks = ClickDetector(doubleClickTime: settings.doubleClickTime)
        taps = TapDetector(maximumTime: settings.tapTime, maximumDistance: settings.tapDistance)
    }

    /// What `event` completes: a double click at once, a hold once held still long enough, a single click only
    /// once the double-click time has passed and the button is up (here, or from `poll`).
    public mutating func update(_ event: PenEvent) -> [Recognized] {
        var recognized: [Recognized] = []
        let pressed = PenButtons(bits: event.buttons.bits & ~lastButtons.bits)
        lastButtons = event.buttons
        let lowerDown = event.buttons.contains(PenButtons.lowerBarrel)
        if lowerHold.update(isDown: lowerDown, time: event.time, x: event.rootX, y: event.rootY) {
            lowerClicks.cancel()
            recognized.append(.gesture(.lowerBarrelHold))
        }
        if pressed.contains(PenButtons.lowerBarrel) {
            switch lowerClicks.press(at: event.time) {
            case .double:
                lowerHold.forget()
                recognized.append(.gesture(.lowerBarrelDoubleClick))
            case .single: recognized.append(.gesture(.lowerBarrelClick))
            case nil: break
            }
        }
        let upperDown = event.buttons.contains(PenButtons.upperBarrel)
        let wasHeld = upperHold.isHeld
        if upperHold.update(isDown: upperDown, time: event.time, x: event.rootX, y: event.rootY) {
            recognized.append(.gesture(.upperBarrelHold))
        }
        // After a hold, the rest of that press, its release included, is no press and no drag.
        let afterHold = wasHeld || upperHold.isHeld
        for gesture in upperBarrel.update(down: upperDown, x: event.rootX, y: event.rootY) where !afterHold {
            switch gesture {
            case .press:
                switch upperClicks.press(at: event.time) {
                case .double: recognized.append(.gesture(.upperBarrelDoubleClick))
                case .single: recognized.append(.gesture(.upperBarrelPress))
                case nil: break
                }
            case .dragStart: recognized.append(.gesture(.upperBarrelDrag))
            case .drag(let dx, let dy): recognized.append(.drag(dx: dx, dy: dy))
            case .dragEnd: recognized.append(.dragEnd)
            }
        }
        let tipDown = event.buttons.contains(PenButtons.tip) && event.pressure > 0
        if let tap = taps.update(tipDown: tipDown, time: event.time, x: event.rootX, y: event.rootY) {
            recognized.append(.tap(x: tap.x, y: tap.y))
        }
        return recognized + poll(at: event.time).map(Recognized.gesture)
    }

    /// What has come due by `time` without an event: a hold, or a single click whose double-click time ran out
    /// (the lower button's once it is up again).
    public mutating func poll(at time: Double) -> [PenGesture] {
        var gestures: [PenGesture] = []
        if lowerHold.poll(at: time) {
            lowerClicks.cancel()
            gestures.append(.lowerBarrelHold)
        }
        if upperHold.poll(at: time) { gestures.append(.upperBarrelHold) }
        if !lowerHold.isPending && lowerClicks.poll(at: time) == .single { gestures.append(.lowerBarrelClick) }
        if upperClicks.poll(at: time) == .single { gestures.append(.upperBarrelPress) }
        return gestures
    }

    /// When `poll` will next have something to say.
    public var deadline: Double? {
        [lowerHold.deadline, upperHold.deadline, lowerHold.isPending ? nil : lowerClicks.deadline, upperClicks.deadline]
            .compactMap { $0 }.min()
    }
}
