/// An echo: the input comes back after `time` seconds, and each echo returns `feedback` times the last.
/// `mix` blends dry (0) to echoes only (1). The delay time glides per sample and is read between
/// samples, so changing it bends the pitch of the echoes instead of clicking. One line per channel.
public final class FeedbackDelay: SoundUnit {
    /// The line holds the longest.
    public static let timeDef = ParameterDef("time", default: 0.1, range: 0.001...2, unit: .seconds)
    /// Below ±1, so the loop always decays.
    public static let feedbackDef = ParameterDef("feedback", default: 0.3, range: -0.99...0.99)
    public static let mixDef = ParameterDef("mix", default: 0.5, range: 0...1)

    public let sampleRate: Double
    public var time: LinearRamp
    public var feedback: LinearRamp
    public var mix: LinearRamp
    private let length: Int
    /// The left line, then the right.
    private let lines: UnsafeMutablePointer<Float>
    private var writeIndex = 0

    public init(
        sampleRate: Double, rampSamples: Int, time: Double = FeedbackDelay.timeDef.defaultValue,
        feedback: Double = FeedbackDelay.feedbackDef.defaultValue, mix: Double = FeedbackDelay.mixDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.time = LinearRamp(value: time, duration: rampSamples, range: Self.timeDef.range)
        self.feedback = LinearRamp(value: feedback, duration: rampSamples, range: Self.feedbackDef.range)
        self.mix = LinearRamp(value: mix, duration: rampSamples, range: Self.mixDef.range)
        length = Int(Self.timeDef.range.upperBound * sampleRate) + 4
        lines = .allocate(capacity: length * 2)
        lines.initialize(repeating: 0, count: length * 2)
    }

    deinit { lines.deallocate() }

    public func process(_ audio: StereoBuffer, frames: Int) {
        let leftLine = lines, rightLine = lines + length
        for i in 0..<frames {
            let delaySamples = time.next() * sampleRate
            let fb = Float(feedback.next())
            let wet = Float(mix.next())
            // Read position `delaySamples` behind the write position, linearly interpolated.
            var readPosition = Double(writeIndex) - delaySamples
            if readPosition < 0 { readPosition += Double(length) }
            let whole = Int(readPosition)
            let fraction = Float(readPosition - Double(whole))
            let next = whole + 1 == length ? 0 : whole + 1
            audio.left[i] = Self.echo(audio.left[i], leftLine, whole, next, fraction, writeIndex, fb, wet)
            audio.right[i] = Self.echo(audio.right[i], rightLine, whole, next, fraction, writeIndex, fb, wet)
            writeIndex = writeIndex + 1 == length ? 0 : writeIndex + 1
        }
    }

    /// One channel's sample: the echo read from its line, the input and the fed-back echo written to it, and the
    /// blend of the two.
    @inline(__always)
    private static func echo(
        _ x: Float, _ line: UnsafeMutablePointer<Float>, _ whole: Int, _ next: Int,
        _ fraction: Float, _ writeIndex: Int, _ feedback: Float, _ wet: Float
    ) -> Float {
        let echo = line[whole] + (line[next] - line[whole]) * fraction
        line[writeIndex] = FastMath.flushed(x + feedback * echo)
        return x * (1 - wet) + echo * wet
    }
}
