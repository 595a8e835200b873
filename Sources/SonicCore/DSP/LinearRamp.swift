/// A parameter that glides in a straight line to each new target over a fixed number of samples,
/// one step per sample, so a change never jumps (no clicks).
public struct LinearRamp: Sendable {
    public private(set) var value: Double
    public private(set) var target: Double
    private var step = 0.0
    private var remaining = 0
    /// Ramp length in samples (at least 1).
    public let duration: Int

    public init(value: Double, duration: Int) {
        precondition(duration >= 1)
        self.value = value
        self.target = value
        self.duration = duration
    }

    /// Starts a new glide from wherever the value is now.
    public mutating func glide(to newTarget: Double) {
        guard newTarget != target else { return }
        target = newTarget
        remaining = duration
        step = (newTarget - value) / Double(duration)
    }

    /// Goes to `newTarget` at once (only where nothing can be heard jumping).
    public mutating func jump(to newTarget: Double) {
        value = newTarget
        target = newTarget
        remaining = 0
    }

    public var isGliding: Bool { remaining > 0 }

    /// The value for this sample, then one step further.
    @inline(__always)
    public mutating func next() -> Double {
        let current = value
        if remaining > 0 {
            remaining -= 1
            // Land exactly on the target so a fade to 0 ends at true silence.
            value = remaining == 0 ? target : value + step
        }
        return current
    }
}
