/// Tells a single click of a button from a double click. A single click is only known once the
/// double-click time has passed without a second press, so it is reported by `poll`.
public struct ClickDetector: Sendable {
    public enum Gesture: Sendable, Equatable { case single, double }

    public let doubleClickTime: Double
    /// Time of a first press still waiting to learn whether a second one follows.
    private var pendingPress: Double?

    public init(doubleClickTime: Double) { self.doubleClickTime = doubleClickTime }

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

/// The pen's buttons and nib, as gestures: the lower barrel button's clicks and double clicks, the
/// upper one's presses and drags, and taps of the nib.
public struct PenGestures: Sendable {
    public enum Recognized: Sendable, Equatable {
        case gesture(PenGesture)
        /// The upper barrel button dragged this far (screen pixels) since the last report.
        case drag(dx: Double, dy: Double)
        case dragEnd
        /// A tap of the nib at this root position.
        case tap(x: Double, y: Double)
    }

    /// Screen pixels the pen may wander while the upper barrel button is held and still count as a press.
    public static let dragThreshold = 4.0

    private var lowerBarrel: ClickDetector
    private var upperBarrel = DragDetector(threshold: Self.dragThreshold)
    private var taps: TapDetector
    private var lastButtons = PenButtons()

    public init(_ settings: Profile.GestureSettings) {
        lowerBarrel = ClickDetector(doubleClickTime: settings.doubleClickTime)
        taps = TapDetector(maximumTime: settings.tapTime, maximumDistance: settings.tapDistance)
    }

    /// What `event` completes: a double click at once, a single click only once the double-click
    /// time has passed (here, or from `poll`).
    public mutating func update(_ event: PenEvent) -> [Recognized] {
        var recognized: [Recognized] = []
        let pressed = PenButtons(bits: event.buttons.bits & ~lastButtons.bits)
        lastButtons = event.buttons
        if pressed.contains(PenButtons.lowerBarrel) {
            switch lowerBarrel.press(at: event.time) {
            case .double: recognized.append(.gesture(.lowerBarrelDoubleClick))
            case .single: recognized.append(.gesture(.lowerBarrelClick))
            case nil: break
            }
        }
        let upperDown = event.buttons.contains(PenButtons.upperBarrel)
        for gesture in upperBarrel.update(down: upperDown, x: event.rootX, y: event.rootY) {
            switch gesture {
            case .press: recognized.append(.gesture(.upperBarrelPress))
            case .dragStart: recognized.append(.gesture(.upperBarrelDrag))
            case .drag(let dx, let dy): recognized.append(.drag(dx: dx, dy: dy))
            case .dragEnd: recognized.append(.dragEnd)
            }
        }
        let tipDown = event.buttons.contains(PenButtons.tip) && event.pressure > 0
        if let tap = taps.update(tipDown: tipDown, time: event.time, x: event.rootX, y: event.rootY) {
            recognized.append(.tap(x: tap.x, y: tap.y))
        }
        return recognized
    }

    /// A single click of the lower barrel button whose double-click time ran out by `time`.
    public mutating func poll(at time: Double) -> PenGesture? {
        lowerBarrel.poll(at: time) == .single ? .lowerBarrelClick : nil
    }

    /// When `poll` will next have something to say.
    public var deadline: Double? { lowerBarrel.deadline }
}
