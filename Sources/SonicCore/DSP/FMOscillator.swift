/// A two-operator FM (phase-modulation) oscillator:
/// `amplitude · sin(2π·fc·t + index · sin(2π·fc·ratio·t))`.
/// With index 0 it is a pure sine. Every parameter glides per sample.
public struct FMOscillator: Sendable {
    public let sampleRate: Double
    /// Carrier frequency in Hz; glides in octaves.
    public var carrierFrequency: ExponentialRamp
    /// Modulator frequency as a multiple of the carrier's.
    public var modulatorRatio: LinearRamp
    /// Peak phase deviation in radians.
    public var index: LinearRamp
    public var amplitude: LinearRamp
    private var carrierPhase = 0.0
    private var modulatorPhase = 0.0

    public init(sampleRate: Double, rampSamples: Int, carrierFrequency: Double = 440, modulatorRatio: Double = 1,
                index: Double = 0, amplitude: Double = 1) {
        self.sampleRate = sampleRate
        let nyquist = sampleRate / 2
        self.carrierFrequency = ExponentialRamp(value: carrierFrequency, duration: rampSamples, range: 1...nyquist)
        self.modulatorRatio = LinearRamp(value: modulatorRatio, duration: rampSamples, range: 0...64)
        self.index = LinearRamp(value: index, duration: rampSamples, range: 0...64)
        self.amplitude = LinearRamp(value: amplitude, duration: rampSamples, range: 0...1)
    }

    /// Writes `frames` samples to `out`.
    public mutating func process(into out: UnsafeMutablePointer<Float>, frames: Int) {
        let inverseRate = 1 / sampleRate
        for i in 0..<frames {
            let frequency = carrierFrequency.next()
            let deviation = index.next() * (1 / (2 * Double.pi))
            let modulation = deviation == 0 ? 0 : deviation * Double(FastMath.sine(cycles: modulatorPhase))
            out[i] = FastMath.sine(cycles: carrierPhase + modulation) * Float(amplitude.next())
            carrierPhase += frequency * inverseRate
            modulatorPhase += frequency * modulatorRatio.next() * inverseRate
            // Keep phases small so their precision never degrades. They only grow, and the carrier by
            // under half a cycle a sample, so a subtraction usually does.
            if carrierPhase >= 1 { carrierPhase -= 1 }
            if modulatorPhase >= 1 { modulatorPhase -= modulatorPhase.rounded(.down) }
        }
    }
}
