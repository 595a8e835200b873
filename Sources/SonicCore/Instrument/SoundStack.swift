/// Everything that makes the sound, wired the one way `play`, `render` and the engine benchmark all
/// share: the synth targets, the engine playing the profile's chain from them, the speech buffer the
/// in-stream voice fills, what an outside voice reports, and the renderer the audio thread calls,
/// which ducks the engine under either voice.
public struct SoundStack {
    public let profile: Profile
    public let controls = SynthControls()
    public let speech: SpeechBuffer
    /// Whether speech-dispatcher is speaking one of our messages.
    public let speechActivity = SpeechActivity()
    public let renderer: VoicedRenderer

    /// - Parameter speechSeconds: how much speech the buffer holds ahead of the audio thread.
    public init(profile: Profile, sampleRate: Int, speechSeconds: Double) {
        self.profile = profile
        speech = SpeechBuffer(capacity: Int(speechSeconds * Double(sampleRate)))
        renderer = VoicedRenderer(
            engine: SynthEngine(chain: profile.chain, sampleRate: Double(sampleRate), controls: controls),
            speech: speech, activity: speechActivity, duckDecibels: profile.speech.duckDecibels,
            volume: profile.speech.volume)
    }

    /// The way to this stack's sound for a session playing `image` (with the spectra of a spectrum image, for the
    /// spectrum mode); the engine is given the image's sweeps as it first renders. Made once, before the audio thread
    /// runs.
    public func sound(playing image: GrayImage, spectra: SpectrumVoice? = nil) -> SessionSound {
        let instrument = Instrument(
            image: image, profile: profile, statistics: SampleStatistics(image), spectra: spectra)
        controls.sweepTables.offer(instrument.sweepTables)
        return SessionSound(instrument: instrument, controls: controls)
    }
}
