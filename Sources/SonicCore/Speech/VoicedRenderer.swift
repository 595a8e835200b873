import RealModule

/// What the audio thread plays: the instrument, ducked while the voice speaks, with the voice on top.
/// The voice is either in the stream (eSpeak-NG, from the speech buffer) or outside it
/// (speech-dispatcher, reported by `activity`); the instrument ducks under both.
public final class VoicedRenderer {
    public let engine: SynthEngine
    public let speech: SpeechBuffer
    public let activity: SpeechActivity
    private let duckGain: Double
    private let speechGain: Float
    /// Frames to stay ducked after the voice's last sample, so the tone does not swell between utterances.
    private let holdFrames: Int
    private var framesSinceSpeech: Int

    /// - Parameters:
    ///   - duckDecibels: how far the instrument drops while the voice speaks.
    ///   - volume: the voice's level, 0...1.
    ///   - activity: a voice speaking outside this stream.
    public init(
        engine: SynthEngine, speech: SpeechBuffer, activity: SpeechActivity = SpeechActivity(), duckDecibels: Double,
        volume: Double
    ) {
        self.engine = engine
        self.speech = speech
        self.activity = activity
        duckGain = Double.pow(10, -duckDecibels / 20)
        speechGain = Float(min(max(volume, 0), 1))
        holdFrames = Int(0.1 * engine.sampleRate)
        framesSinceSpeech = holdFrames
    }

    /// Fills `frames` interleaved frames; `time` places the engine's changes (see `SynthEngine.render`).
    public func render(into output: UnsafeMutablePointer<Float>, frames: Int, channels: Int, at time: Double? = nil) {
        var done = 0
        while done < frames {
            // Block by block, so the duck follows the voice closely.
            let n = min(SynthEngine.blockSize, frames - done)
            let out = output + done * channels
            let outsideVoice = activity.isSpeaking
            let speaking = outsideVoice || framesSinceSpeech < holdFrames || speech.hasQueuedSamples
            engine.duck(to: speaking ? duckGain : 1)
            engine.render(
                into: out, frames: n, channels: channels, at: time.map { $0 + Double(done) / engine.sampleRate })
            let spoken = speech.mix(into: out, frames: n, channels: channels, gain: speechGain)
            framesSinceSpeech = spoken > 0 || outsideVoice ? 0 : framesSinceSpeech + n
            // Voice and instrument together stay within ±1.
            for i in 0..<n * channels { out[i] = min(max(out[i], -1), 1) }
            done += n
        }
    }
}
