import RealModule

/// A Moog-style four-pole (24 dB/octave) low-pass ladder with resonance, in zero-delay-feedback
/// (topology-preserving) form: stable for every cutoff and resonance. Only the feedback saturates,
/// so without resonance the filter is exactly linear; near resonance 1 it self-oscillates, and the
/// saturation holds that at a steady level.
///
/// `cutoff` is where the response is 3 dB down at resonance 0 — the four poles sit higher, at
/// cutoff / √(2^¼ − 1) — and the prewarping makes that exact at any sample rate.
public final class MoogLadder: SoundUnit {
    /// √(2^¼ − 1): the −3 dB frequency of four equal one-pole stages relative to their pole frequency.
    static let minus3dBRatio = 0.43497944204608224

    /// Feedback gain at resonance 1: just past the 4 where the loop starts to oscillate by itself.
    static let maximumFeedback: Float = 4.1

    /// The output is raised by 1 + k/2 (k = `maximumFeedback`·resonance): resonance thins the passband by
    /// 1/(1 + k), and this keeps a resonant ladder about as loud as an open one without boosting the peak too far.
    static let compensation: Float = 0.5

    /// How fast the cutoff may sweep, in octaves per second: a resonant ladder swept faster "zaps",
    /// ringing up through the octaves; a jump of seven octaves then takes about 140 ms.
    public static let maximumSweepRate = 50.0

    /// The −3 dB point. Near the Nyquist frequency the prewarping runs away, so it stays below 0.45 of the sample rate.
    public static let cutoffDef = ParameterDef(
        "cutoff", default: 2000, range: 20...20_000, unit: .hertz, sampleRateShare: 0.45)
    /// 0 (none) … 1 (self-oscillation).
    public static let resonanceDef = ParameterDef("resonance", default: 0, range: 0...1)

    public let sampleRate: Double
    /// Glides in octaves.
    public var cutoff: ExponentialRamp
    public var resonance: LinearRamp
    /// The four stages' states of each channel.
    private var leftStages = (Float(0), Float(0), Float(0), Float(0))
    private var rightStages = (Float(0), Float(0), Float(0), Float(0))

    public init(
        sampleRate: Double, rampSamples: Int, cutoff: Double = MoogLadder.cutoffDef.defaultValue,
        resonance: Double = MoogLadder.resonanceDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.cutoff = ExponentialRamp(
            value: cutoff, duration: rampSamples, range: Self.cutoffDef.range(sampleRate: sampleRate),
            maximumRate: Self.maximumSweepRate / sampleRate)
        self.resonance = LinearRamp(value: resonance, duration: rampSamples, range: Self.resonanceDef.range)
    }

    /// The one-pole integrator gain g = tan(π·fp/fs) for the poles that put −3 dB at `cutoff`.
    static func integratorGain(cutoff: Double, sampleRate: Double) -> Double {
        Double.tan(Double.pi * cutoff / sampleRate) / minus3dBRatio
    }

    /// Filters a stereo pair in place.
    public func process(_ audio: StereoBuffer, frames: Int) {
        let l = audio.left, r = audio.right
        var fc = cutoff.value
        var g = Self.integratorGain(cutoff: fc, sampleRate: sampleRate)
        for i in 0..<frames {
            let now = cutoff.next()
            if now != fc {
                fc = now
                g = Self.integratorGain(cutoff: fc, sampleRate: sampleRate)
            }
            let k = Self.maximumFeedback * Float(resonance.next())
            let G = Float(g / (1 + g))
            let makeUp = 1 + Self.compensation * k
            l[i] = Self.tick(l[i], &leftStages, G: G, k: k) * makeUp
            r[i] = Self.tick(r[i], &rightStages, G: G, k: k) * makeUp
        }
    }

    /// One sample through the ladder. Each stage is a TPT one-pole y = G·x + (1 − G)·s. The output is
    /// solved for without a unit delay as if the loop were linear, and what is fed back of it passes a
    /// saturator: identical for small signals, bounded for any.
    @inline(__always)
    private static func tick(_ x: Float, _ s: inout (Float, Float, Float, Float), G: Float, k: Float) -> Float {
        let B = 1 - G
        // Output of the cascade with zero input: the stored states carried through the stages.
        let S = G * G * G * B * s.0 + G * G * B * s.1 + G * B * s.2 + B * s.3
        let G4 = G * G * G * G
        let u = x - k * FastMath.saturate((G4 * x + S) / (1 + k * G4))
        var v = G * (u - s.0); let y1 = v + s.0; s.0 = FastMath.flushed(y1 + v)
        v = G * (y1 - s.1); let y2 = v + s.1; s.1 = FastMath.flushed(y2 + v)
        v = G * (y2 - s.2); let y3 = v + s.2; s.2 = FastMath.flushed(y3 + v)
        v = G * (y3 - s.3); let y4 = v + s.3; s.3 = FastMath.flushed(y4 + v)
        return y4
    }
}
