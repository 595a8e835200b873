/// A two-operator FM (phase-modulation) oscillator: `level · sin(2π·fc·t + index · sin(2π·fc·ratio·t))`, added to
/// both channels. With index 0 it is a pure sine. Every parameter glides per sample.
public final class FMOscillator: Oscillator {
    /// The modulator's frequency as a multiple of the carrier's.
    public static let modulatorRatioDef = ParameterDef("modulator ratio", default: 1, range: 0...16)
    /// The peak phase deviation in radians (0: a pure sine).
    public static let indexDef = ParameterDef("index", default: 0, range: 0...20)

    public let sampleRate: Double
    /// `OscillatorParameters.frequencyDef`; glides in octaves.
    public var carrierFrequency: ExponentialRamp
    public var modulatorRatio: LinearRamp
    public var index: LinearRamp
    /// `OscillatorParameters.levelDef`.
    public var level: LinearRamp
    private var carrierPhase = 0.0
    private var modulatorPhase = 0.0

    public init(
        sampleRate: Double, rampSamples: Int, carrierFrequency: Double = OscillatorParameters.frequencyDef.defaultValue,
        modulatorRatio: Double = FMOscillator.modulatorRatioDef.defaultValue,
        index: Double = FMOscillator.indexDef.defaultValue, level: Double = OscillatorParameters.levelDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.carrierFrequency = ExponentialRamp(
            value: carrierFrequency, duration: rampSamples,
            range: OscillatorParameters.frequencyDef.range(sampleRate: sampleRate))
        self.modulatorRatio = LinearRamp(
            value: modulatorRatio, duration: rampSamples, range: Self.modulatorRatioDef.range)
        self.index = LinearRamp(value: index, duration: rampSamples, range: Self.indexDef.range)
        self.level = LinearRamp(value: level, duration: rampSamples, range: OscillatorParameters.levelDef.range)
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
