/// A two-operator FM (phase-modulation) oscillator: `level · sin(2π·fc·t + index · sin(2π·fc·ratio·t))`, added to
/// both channels. With index 0 it is a pure sine. Every parameter glides per sample.
public final class FMOscillator: Oscillator {
    public let sampleRate: Double
    /// Carrier frequency in Hz; glides in octaves.
    public var carrierFrequency: ExponentialRamp
    /// Modulator frequency as a multiple of the carrier's.
    public var modulatorRatio: LinearRamp
    /// Peak phase deviation in radians.
    public var index: LinearRamp
    /// Its level in the mix, 0...4.
    public var level: LinearRamp
    private var carrierPhase = 0.0
    private var modulatorPhase = 0.0

    public init(
        sampleRate: Double, rampSamples: Int, carrierFrequency: Double = 440, modulatorRatio: Double = 1,
        index: Double = 0, level: Double = 1
    ) {
        self.sampleRate = sampleRate
        let nyquist = sampleRate / 2
        self.carrierFrequency = ExponentialRamp(value: carrierFrequency, duration: rampSamples, range: 1...nyquist)
        self.modulatorRatio = LinearRamp(value: modulatorRatio, duration: rampSamples, range: 0...64)
        self.index = LinearRamp(value: index, duration: rampSamples, range: 0...64)
        self.level = LinearRamp(value: level, duration: rampSamples, range: 0...4)
    }

    public func setFrequency(_ frequency: Double, glide: Bool) {
        if glide { carrierFrequency.glide(to: frequency) } else { carrierFrequency.jump(to: frequency) }
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        let inverseRate = 1 / sampleRate
        for i in 0..<frames {
            let frequency = carrierFrequency.next()
            let deviation = index.next() * (1 / (2 * Double.pi))
            let modulation = deviation == 0 ? 0 : deviation * Double(FastMath.sine(cycles: modulatorPhase))
            let sample = FastMath.sine(cycles: carrierPhase + modulation) * Float(level.next())
            audio.left[i] += sample
            audio.right[i] += sample
            carrierPhase += frequency * inverseRate
            modulatorPhase += frequency * modulatorRatio.next() * inverseRate
            // Keep phases small so their precision never degrades. They only grow, and the carrier by
            // under half a cycle a sample, so a subtraction usually does.
            if carrierPhase >= 1 { carrierPhase -= 1 }
            if modulatorPhase >= 1 { modulatorPhase -= modulatorPhase.rounded(.down) }
        }
    }
}
