import ArgumentParser
import SonicAudio
import SonicCore

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image full-screen and play it: the pen's nib sounds the intensity under it.",
        discussion: Bindings.help(spoken: false))

    /// Room for the longest announcement (the key help), in seconds.
    static let speechSeconds = 60.0

    @Argument(
        help:
            "An image file: PNG, DigitalMicrograph DM3/DM4, TIFF, EMD or HyperSpy (known by its content, not its name); a stack plays from its first frame, a spectrum image its acquired image or total counts. Default: the bundled atomic lattice."
    )
    var image: String?

    @OptionGroup var imageChoice: ImageChoice

    @Option(
        help:
            "Play a stack's frames added (sum) or averaged (mean) into one image, rather than one by one with Page Up and Page Down."
    )
    var frames: FrameCombination?

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

    @OptionGroup var pixelSize: PixelSizeChoice

    @Option(
        name: .customLong("export-tags"),
        help: "Also keep the tags in this CSV file (id, x, y, snapped), rewritten after every change.")
    var exportTags: String?

    func validate() throws {
        guard latency >= 1 && latency <= 200 else { throw ValidationError("--latency must be 1 to 200 ms") }
        if let rate, !Profile.SpeechSettings.rates.contains(rate) {
            let rates = Profile.SpeechSettings.rates
            throw ValidationError("--rate must be \(rates.lowerBound) to \(rates.upperBound) words per minute")
        }
    }

    func run() throws {
        let session = try PlaySession(self)
        session.run()
        session.shutDown()
    }
}
