/// Shapes short, distinct notes: each trigger rises over `attack`, holds, and falls over `release`,
/// `length` seconds in all. Re-triggering rises from wherever the level is, so notes never click.
public final class NoteEnvelope: SoundUnit {
    private let attackStep: Double
    private let releaseStep: Double
    private let holdSamples: Int
    private var level = 0.0
    private var stage = Stage.silent
    private var holdLeft = 0

    private enum Stage { case silent, attack, hold, release }

    public init(sampleRate: Double, length: Double, attack: Double = 0.005, release: Double = 0.01) {
        attackStep = 1 / max(1, attack * sampleRate)
        releaseStep = 1 / max(1, release * sampleRate)
        holdSamples = max(0, Int((length - attack - release) * sampleRate))
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
