import RealModule

/// A frequency-like parameter (pitch, cutoff) that glides at a constant rate in octaves, one step
/// per sample: the way the ear hears it, and gentler on filters than a straight line in hertz,
/// which rushes through the low octaves. Each step multiplies by a constant factor.
public struct ExponentialRamp: Sendable {
    public private(set) var value: Double
    public private(set) var target: Double
    private var factor = 1.0
    private var remaining = 0
    /// Glide length in samples (at least 1).
    public let duration: Int
    public let range: ClosedRange<Double>
    /// A long jump glides no faster than this, so it takes longer than `duration` (0: no limit).
    private let maximumOctavesPerSample: Double

    /// `range` must be positive. `maximumRate` is in octaves per sample.
    public init(value: Double, duration: Int, range: ClosedRange<Double>, maximumRate: Double = 0) {
        precondition(range.lowerBound > 0 && duration >= 1)
        self.range = range
        self.duration = duration
        maximumOctavesPerSample = maximumRate
        self.value = min(max(value, range.lowerBound), range.upperBound)
        target = self.value
    }

    public var isGliding: Bool { remaining > 0 }

    /// Starts a new glide from wherever the value is now. Values at or below zero, or not finite, are ignored.
    public mutating func glide(to newTarget: Double) {
        guard newTarget > 0, newTarget.isFinite else { return }
        let clamped = min(max(newTarget, range.lowerBound), range.upperBound)
        guard clamped != target else { return }
        target = clamped
        let octaves = Double.log2(clamped / value)
        remaining = duration
        if maximumOctavesPerSample > 0 {
            remaining = max(duration, Int((abs(octaves) / maximumOctavesPerSample).rounded(.up)))
        }
        factor = Double.exp2(octaves / Double(remaining))
    }

    public mutating func jump(to newTarget: Double) {
        guard newTarget > 0, newTarget.isFinite else { return }
        value = min(max(newTarget, range.lowerBound), range.upperBound)
        target = value
        remaining = 0
    }

    /// The value for this sample, then one step further.
    @inline(__always)
    public mutating func next() -> Double {
        let current = value
        if remaining > 0 {
            remaining -= 1
            // Land exactly on the target: repeated products drift by a few ulps.
            value = remaining == 0 ? target : value * factor
        }
        return current
    }
}
