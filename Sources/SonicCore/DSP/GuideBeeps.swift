/// The guide to a chosen place, heard as a parking sensor is: short beeps, more of them the closer the nib comes,
/// placed left or right where the place lies and higher when it lies above. Each beep rises and falls as a sine
/// squared, so a beep never clicks, and one that has begun always ends; rate, pitch and position glide.
public final class GuideBeeps: SoundUnit {
    /// Beeps a second; 0: none.
    public static let rateDef = ParameterDef("rate", default: 0, range: 0...12)
    public static let frequencyDef = ParameterDef(
        "frequency", default: 1000, range: 250...4000, unit: .hertz, sampleRateShare: 0.5)
    public static let panDef = ParameterDef("pan", default: 0, range: -1...1)
    /// A share of `level`: the cue on arrival is quieter than the beeps that lead there.
    public static let loudnessDef = ParameterDef("loudness", default: 1, range: 0...1)
    /// Each beep's peak: well below the pen's tone, so as not to mask it.
    public static let levelDef = ParameterDef("level", default: 0.1, range: 0...1)
    /// How long a beep lasts: shorter than the gap at the highest rate.
    static let beepTime = 0.04

    public let sampleRate: Double
    public var rate: LinearRamp
    /// Glides in octaves.
    public var frequency: ExponentialRamp
    public var pan: LinearRamp
    public var loudness: LinearRamp
    private let level: Double
    private let beepFrames: Int
    /// How far the next beep has come due, in beeps (it sounds at 1); the frame of the beep sounding, nil between.
    private var untilNext = 1.0
    private var beepFrame: Int?
    private var phase = 0.0

    public init(
        sampleRate: Double, rampSamples: Int, rate: Double = GuideBeeps.rateDef.defaultValue,
        frequency: Double = GuideBeeps.frequencyDef.defaultValue, pan: Double = GuideBeeps.panDef.defaultValue,
        loudness: Double = GuideBeeps.loudnessDef.defaultValue, level: Double = GuideBeeps.levelDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.rate = LinearRamp(value: rate, duration: rampSamples, range: Self.rateDef.range)
        self.frequency = ExponentialRamp(
            value: frequency, duration: rampSamples, range: Self.frequencyDef.range(sampleRate: sampleRate))
        self.pan = LinearRamp(value: pan, duration: rampSamples, range: Self.panDef.range)
        self.loudness = LinearRamp(value: loudness, duration: rampSamples, range: Self.loudnessDef.range)
        self.level = Self.levelDef.clamped(level)
        beepFrames = max(2, Int(Self.beepTime * sampleRate))
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        // Silent and asked for none: nothing to do but be ready to beep at once when asked.
        guard beepFrame != nil || rate.value > 0 || rate.isGliding else {
            untilNext = 1
            return
        }
        for i in 0..<frames {
            let beepsPerFrame = rate.next() / sampleRate
            let hz = frequency.next(), cycles = (pan.next() + 1) / 8, gain = Float(loudness.next() * level)
            untilNext += beepsPerFrame
            if beepFrame == nil && untilNext >= 1 && beepsPerFrame > 0 {
                untilNext -= 1
                beepFrame = 0
                phase = 0
            }
            guard let frame = beepFrame else { continue }
            // sin² over the beep: from silence, to its peak, back to silence.
            let envelope = FastMath.sine(cycles: Double(frame) / Double(2 * beepFrames))
            let sample = FastMath.sine(cycles: phase) * envelope * envelope * gain
            audio.left[i] += sample * FastMath.sine(cycles: cycles + 0.25)
            audio.right[i] += sample * FastMath.sine(cycles: cycles)
            phase += hz / sampleRate
            if phase >= 1 { phase -= 1 }
            beepFrame = frame + 1 < beepFrames ? frame + 1 : nil
        }
    }
}
