/// An echo: the input comes back after `time` seconds, and each echo returns `feedback` times the last.
/// `mix` blends dry (0) to echoes only (1). The delay time glides per sample and is read between
/// samples, so changing it bends the pitch of the echoes instead of clicking. One line per channel.
public final class FeedbackDelay {
    public static let maximumTime = 2.0
    public let sampleRate: Double
    public var time: LinearRamp
    /// Clamped below ±1 so the loop always decays.
    public var feedback: LinearRamp
    public var mix: LinearRamp
    private let length: Int
    private let lines: UnsafeMutablePointer<Float>
    private let channels: Int
    private var writeIndex = 0

    public init(sampleRate: Double, channels: Int, rampSamples: Int, time: Double = 0.1, feedback: Double = 0.3,
                mix: Double = 1) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.time = LinearRamp(value: time, duration: rampSamples, range: (1 / sampleRate)...Self.maximumTime)
        self.feedback = LinearRamp(value: feedback, duration: rampSamples, range: -0.99...0.99)
        self.mix = LinearRamp(value: mix, duration: rampSamples, range: 0...1)
        length = Int(Self.maximumTime * sampleRate) + 4
        lines = .allocate(capacity: length * channels)
        lines.initialize(repeating: 0, count: length * channels)
    }

    deinit { lines.deallocate() }

    /// Processes each channel's buffer in place.
    public func process(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int) {
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
            for channel in 0..<channels {
                let line = lines + channel * length
                let echo = line[whole] + (line[next] - line[whole]) * fraction
                let x = buffers[channel][i]
                line[writeIndex] = FastMath.flushed(x + fb * echo)
                buffers[channel][i] = x * (1 - wet) + echo * wet
            }
            writeIndex = writeIndex + 1 == length ? 0 : writeIndex + 1
        }
    }
}
