import ArgumentParser
import SonicAudio
import SonicCore

/// The options of a session with the pen, the sound and the voice, the same for `play` and `learn`.
struct SessionOptions: ParsableArguments {
    @OptionGroup var profileChoice: ProfileChoice

    @Option(name: .customLong("events"), help: "Write the session log (JSON Lines) to this file.")
    var eventsPath: String?

    @Option(help: "Audio buffer in milliseconds: lower is more immediate, higher survives a busy machine.")
    var latency = 10.0

    @Option(
        help:
            "The sound server: pipewire (native), pulse (PulseAudio, or PipeWire's PulseAudio service), or auto: PipeWire when it runs, else PulseAudio."
    )
    var audio = AudioChoice.auto

    @Option(
        help:
            "Who speaks: espeak (eSpeak-NG, in the program's own sound) or dispatcher (speech-dispatcher, as the screen reader does, with your own voice, rate and synthesiser); overrides the profile's."
    )
    var speech: Profile.SpeechEngine?

    @Option(help: "The eSpeak-NG voice (e.g. en, en-us, de); overrides the profile's.")
    var voice: String?

    @Option(
        help:
            "Speech rate in words per minute (\(Profile.SpeechSettings.rates.lowerBound)-\(Profile.SpeechSettings.rates.upperBound)); overrides the profile's."
    )
    var rate: Int?

    @Option(
        help:
            "The braille display, through brltty: auto (used whenever brltty answers), on (as auto, and a line on stderr when it cannot be reached at the start) or off."
    )
    var braille = BrailleChoice.auto

    /// Room for the longest announcement (the key help), in seconds.
    static let speechSeconds = 60.0

    func validate() throws {
        guard latency >= 1 && latency <= 200 else { throw ValidationError("--latency must be 1 to 200 ms") }
        if let rate, !Profile.SpeechSettings.rates.contains(rate) {
            let rates = Profile.SpeechSettings.rates
            throw ValidationError("--rate must be \(rates.lowerBound) to \(rates.upperBound) words per minute")
        }
    }

    /// The command line of `learn` with these options.
    var learnArguments: [String] {
        var arguments = [
            "learn", "--profile", profileChoice.profile, "--latency", "\(latency)", "--audio",
            audio.rawValue, "--braille", braille.rawValue
        ]
        if let eventsPath { arguments += ["--events", eventsPath] }
        if let speech { arguments += ["--speech", speech.rawValue] }
        if let voice { arguments += ["--voice", voice] }
        if let rate { arguments += ["--rate", "\(rate)"] }
        return arguments
    }

    /// The profile, with the speech engine, voice and rate the options give.
    func profile() throws -> Profile {
        var settings = try profileChoice.load()
        if let speech { settings.speech.engine = speech }
        if let voice { settings.speech.voice = voice }
        if let rate { settings.speech.rate = rate }
        return settings
    }
}
