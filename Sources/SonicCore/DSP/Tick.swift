import RealModule

/// A soft tick: a short sine burst that rises over `attack` seconds and dies away exponentially
/// (`decay` seconds per 1/e), like a light tap on a small bell. Above the instrument's pitch range,
/// so it is heard over the tone rather than mistaken for it. A trigger while one rings restarts
/// from the current level, never jumping.
public final class Tick: SoundUnit {
    /// Its peak.
    public static let levelDef = ParameterDef("level", default: 0.25, range: 0...1)
    /// In Hz.
    private static let frequency = 3200.0
    private static let attack = 0.0005
    private static let decay = 0.004

    private let level: Double
    private let phaseStep: Double
    private let attackStep: Double
    private let decayFactor: Double
    private var phase = 0.0
    private var envelope = 0.0
    private var rising = false

    public init(sampleRate: Double, level: Double = Tick.levelDef.defaultValue) {
        self.level = Self.levelDef.clamped(level)
        phaseStep = Self.frequency / sampleRate
        attackStep = 1 / max(1, Self.attack * sampleRate)
        decayFactor = Double.exp(-1 / max(1, Self.decay * sampleRate))
    }

    public func trigger() { rising = true }

    /// Whether it sounds at all (so a silent tick costs nothing).
    public var isRinging: Bool { rising || envelope > 0 }

    /// Adds `frames` samples of the tick to both channels.
    public func process(_ audio: StereoBuffer, frames: Int) {
        guard isRinging else { return }
        for i in 0..<frames {
            if rising {
                envelope += attackStep
                if envelope >= 1 { envelope = 1; rising = false }
            } else {
                envelope *= decayFactor
                // About −100 dB: from here on it is silence.
                if envelope < 1e-5 { envelope = 0; phase = 0; return }
            }
            let sample = FastMath.sine(cycles: phase) * Float(envelope * level)
            audio.left[i] += sample
            audio.right[i] += sample
            phase += phaseStep
            if phase >= 1 { phase -= 1 }
        }
    }
}
