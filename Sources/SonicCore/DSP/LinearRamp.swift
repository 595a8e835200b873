/// A parameter that glides in a straight line to each new target over a fixed number of samples,
/// one step per sample, so a change never jumps (no clicks). Targets are clamped to a range, and
/// non-finite ones are ignored, so no parameter can carry NaN or infinity into the signal.
public struct LinearRamp: Sendable {
    public private(set) var value: Double
    public private(set) var target: Double
    private var step = 0.0
    private var remaining = 0
    /// Ramp length in samples (at least 1).
    public let duration: Int
    public let range: ClosedRange<Double>

    public init(
        value: Double, duration: Int,
        range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    ) {
        precondition(duration >= 1)
        let start = min(max(value, range.lowerBound), range.upperBound)
        self.value = start
        self.target = start
        self.duration = duration
        self.range = range
    }

    /// Starts a new glide from wherever the value is now, over `duration` samples (or the ramp's own).
    public mutating func glide(to newTarget: Double, over samples: Int? = nil) {
        guard newTarget.isFinite else { return }
        let clamped = min(max(newTarget, range.lowerBound), range.upperBound)
        guard clamped != target else { return }
        target = clamped
        remaining = max(1, samples ?? duration)
        step = (clamped - value) / Double(remaining)
    }

    /// Goes to `newTarget` at once (only where nothing can be heard jumping).
    public mutating func jump(to newTarget: Double) {
        guard newTarget.isFinite else { return }
        value = min(max(newTarget, range.lowerBound), range.upperBound)
        target = value
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
