/// A square wave (±level), band-limited by PolyBLEP corrections at each edge so it does not alias, added to both
/// channels: the hard, distinct tone that screen-reader users prefer for stepped data.
public final class SquareOscillator: Oscillator {
    public let sampleRate: Double
    /// `OscillatorParameters.frequencyDef`; glides in octaves.
    public var frequency: ExponentialRamp
    /// `OscillatorParameters.levelDef`.
    public var level: LinearRamp
    private var phase = 0.0

    public init(
        sampleRate: Double, rampSamples: Int, frequency: Double = OscillatorParameters.frequencyDef.defaultValue,
        level: Double = OscillatorParameters.levelDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.frequency = ExponentialRamp(
            value: frequency, duration: rampSamples,
            range: OscillatorParameters.frequencyDef.range(sampleRate: sampleRate))
        self.level = LinearRamp(value: level, duration: rampSamples, range: OscillatorParameters.levelDef.range)
    }

    public func setFrequency(_ frequency: Double, glide: Bool) {
        if glide { self.frequency.glide(to: frequency) } else { self.frequency.jump(to: frequency) }
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        for i in 0..<frames {
            let step = frequency.next() / sampleRate
            var value = phase < 0.5 ? 1.0 : -1.0
            // Smooth the rising edge at 0 and the falling edge at ½ over one sample each side.
            value += Self.blep(phase, step)
            let shifted = phase + 0.5 >= 1 ? phase - 0.5 : phase + 0.5
            value -= Self.blep(shifted, step)
            let sample = Float(value) * Float(level.next())
            audio.left[i] += sample
            audio.right[i] += sample
            phase += step
            if phase >= 1 { phase -= 1 }
        }
    }

    /// The polynomial band-limited step residual for a discontinuity at phase 0.
    @inline(__always)
    static func blep(_ t: Double, _ dt: Double) -> Double {
        if t < dt {
            let x = t / dt
            return x + x - x * x - 1
        }
        if t > 1 - dt {
            let x = (t - 1) / dt
            return x * x + x + x + 1
        }
        return 0
    }
}
