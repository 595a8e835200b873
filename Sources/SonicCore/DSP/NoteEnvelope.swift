/// Shapes short, distinct notes: each trigger rises over `attack` seconds, holds, and falls over `release`,
/// `length` seconds in all. Re-triggering rises from wherever the level is, so notes never click.
public final class NoteEnvelope: SoundUnit {
    /// How long a note lasts, rise and fall included.
    public static let lengthDef = ParameterDef("length", default: 0.12, range: 0.02...2, unit: .seconds)
    private static let attack = 0.005
    private static let release = 0.01

    private let attackStep: Double
    private let releaseStep: Double
    private let holdSamples: Int
    private var level = 0.0
    private var stage = Stage.silent
    private var holdLeft = 0

    private enum Stage { case silent, attack, hold, release }

    public init(sampleRate: Double, length: Double = NoteEnvelope.lengthDef.defaultValue) {
        attackStep = 1 / max(1, Self.attack * sampleRate)
        releaseStep = 1 / max(1, Self.release * sampleRate)
        holdSamples = max(0, Int((Self.lengthDef.clamped(length) - Self.attack - Self.release) * sampleRate))
    }

    public func trigger() {
        stage = .attack
        holdLeft = holdSamples
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        for i in 0..<frames {
            let gain = Float(next())
            audio.left[i] *= gain
            audio.right[i] *= gain
        }
    }

    @inline(__always)
    private func next() -> Double {
        switch stage {
        case .silent:
            break
        case .attack:
            level += attackStep
            if level >= 1 { level = 1; stage = .hold }
        case .hold:
            holdLeft -= 1
            if holdLeft <= 0 { stage = .release }
        case .release:
            level -= releaseStep
            if level <= 0 { level = 0; stage = .silent }
        }
        return level
    }
}
