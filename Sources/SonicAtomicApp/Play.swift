import ArgumentParser
import SonicAudio
import SonicCore

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image full-screen and play it: the pen's nib sounds the intensity under it.",
        discussion: Bindings.help(spoken: false))

    static let sampleRate = 48_000
    /// Room for the longest announcement (the key help) at 48 kHz.
    static let speechSeconds = 60.0

    @Argument(
        help:
            "An image file: PNG, DigitalMicrograph DM3/DM4, TIFF, EMD or HyperSpy (known by its content, not its name); a stack plays from its first frame, a spectrum image its acquired image or total counts. Default: the bundled atomic lattice."
    )
    var image: String?

    @Option(
        name: .customLong("image"),
        help: "Which signal of a file holding several (1, 2, ...; `inspect` lists them). Default: the largest image.")
    var imageNumber: Int?

    @Option(
        help:
            "Play a stack's frames added (sum) or averaged (mean) into one image, rather than one by one with Page Up and Page Down."
    )
    var frames: FrameCombination?

    @Option(help: "A profile name (from your profiles, then the shipped ones) or a path to a profile file.")
    var profile = "default"

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

    @Option(help: "Speech rate in words per minute (80-450); overrides the profile's.")
    var rate: Int?

    @Option(
        name: .customLong("pixel-size"),
        help:
            "The size of a pixel (e.g. 9.33pm, 0.933nm): lattice parameters are then spoken in picometres. Saved with the tags."
    )
    var pixelSize: String?

    @Option(
        name: .customLong("export-tags"),
        help: "Also keep the tags in this CSV file (id, x, y, snapped), rewritten after every change.")
    var exportTags: String?

    func validate() throws {
        if let imageNumber, imageNumber < 1 { throw ValidationError("--image counts from 1") }
        guard latency >= 1 && latency <= 200 else { throw ValidationError("--latency must be 1 to 200 ms") }
        if let rate, !(80...450).contains(rate) { throw ValidationError("--rate must be 80 to 450 words per minute") }
        if let pixelSize, PixelSize(pixelSize) == nil {
            throw ValidationError("--pixel-size must be a size like 9.33pm, 0.933nm or 9.33Å")
        }
    }

    func run() throws {
        let session = try PlaySession(self)
        session.run()
        session.shutDown()
    }
}
