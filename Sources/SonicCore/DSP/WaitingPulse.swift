/// The sound of a long wait (a window's map being made, a frame being read): a soft, low swell once a
/// second, like slow breathing — unlike the guide's short beeps and the tick, and well below the
/// pen's tone. It swells in and out as a sine squared, so it never clicks; stopped, it fades out
/// within `fadeTime`, before the voice says the wait is over.
public final class WaitingPulse: SoundUnit {
    /// Each swell's peak (0: none).
    public static let levelDef = ParameterDef("level", default: 0.04, range: 0...1)
    /// In Hz: G4, low and round.
    static let frequency = 392.0
    /// Seconds from one swell to the next, and how long each sounds.
    static let period = 1.0
    static let swellTime = 0.45
    /// Seconds it takes to fade out when stopped (and in, when started in the middle of a swell).
    static let fadeTime = 0.03

    public let sampleRate: Double
    private let level: Double
    private let periodFrames: Int
    private let swellFrames: Int
    private let fadeStep: Double
    private let phaseStep: Double
    /// Whether the wait goes on; set before each block.
    public var isOn = false
    private var fade = 0.0
    /// The frame within the period; a wait starts with a swell.
    private var frame = 0
    private var phase = 0.0

    public init(sampleRate: Double, level: Double = WaitingPulse.levelDef.defaultValue) {
        self.sampleRate = sampleRate
        self.level = Self.levelDef.clamped(level)
        periodFrames = max(2, Int(Self.period * sampleRate))
        swellFrames = max(1, min(periodFrames, Int(Self.swellTime * sampleRate)))
        fadeStep = 1 / max(1, Self.fadeTime * sampleRate)
        phaseStep = Self.frequency / sampleRate
    }

    /// Whether it sounds at all (so it costs nothing while nobody waits).
    public var isSounding: Bool { level > 0 && (isOn || fade > 0) }

    /// Adds `frames` samples to both channels.
    public func process(_ audio: StereoBuffer, frames: Int) {
        guard isSounding else {
            frame = 0
            phase = 0
            return
        }
        let target = isOn ? 1.0 : 0.0
        for i in 0..<frames {
            fade = fade < target ? min(target, fade + fadeStep) : max(target, fade - fadeStep)
            if frame < swellFrames {
                // sin² over the swell: from silence, to its peak, back to silence.
                let envelope = FastMath.sine(cycles: Double(frame) / Double(2 * swellFrames))
                let sample = FastMath.sine(cycles: phase) * envelope * envelope * Float(level * fade)
                audio.left[i] += sample
                audio.right[i] += sample
            }
            phase += phaseStep
            if phase >= 1 { phase -= 1 }
            frame = frame + 1 < periodFrames ? frame + 1 : 0
        }
    }
}
