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
