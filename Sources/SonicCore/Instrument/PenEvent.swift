/// A pen (or mouse) report, independent of the window system.
public struct PenEvent: Sendable, Equatable {
    /// CLOCK_MONOTONIC seconds when the event was handled.
    public var time: Double
    /// Position in root-window pixels (fractional: tablets are finer than the screen).
    public var rootX: Double
    public var rootY: Double
    /// 0...1.
    public var pressure: Double
    /// Degrees from vertical along X and Y.
    public var tiltX: Double
    public var tiltY: Double
    public var buttons: PenButtons
    /// False once the pointer has left the window (or the pen its proximity).
    public var inWindow: Bool

    public init(
        time: Double, rootX: Double, rootY: Double, pressure: Double, tiltX: Double, tiltY: Double,
        buttons: PenButtons, inWindow: Bool
    ) {
        self.time = time; self.rootX = rootX; self.rootY = rootY; self.pressure = pressure
        self.tiltX = tiltX; self.tiltY = tiltY; self.buttons = buttons; self.inWindow = inWindow
    }
}
