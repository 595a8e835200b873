/// Keeps the master within ±1 without a hard edge: linear up to `threshold`, then a smooth
/// saturating curve that approaches 1. Anything non-finite becomes silence.
public final class SoftLimiter: SoundUnit {
    /// Where the curve starts.
    public static let thresholdDef = ParameterDef("threshold", default: 0.9, range: 0.1...0.99)

    public let threshold: Float

    public init(threshold: Double = SoftLimiter.thresholdDef.defaultValue) {
        self.threshold = Float(Self.thresholdDef.clamped(threshold))
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        limit(audio.left, frames: frames)
        limit(audio.right, frames: frames)
    }

    private func limit(_ buffer: UnsafeMutablePointer<Float>, frames: Int) {
        let t = threshold, knee = 1 - threshold
        for i in 0..<frames {
            let x = buffer[i]
            let magnitude = abs(x)
            if magnitude <= t { continue }
            guard x.isFinite else { buffer[i] = 0; continue }
            let limited = t + knee * FastMath.saturate((magnitude - t) / knee)
            buffer[i] = x < 0 ? -limited : limited
        }
    }
}
