import ArgumentParser
import SonicAudio
import SonicCore

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image full-screen and play it: the pen's nib sounds the intensity under it.",
        discussion: Bindings.help(spoken: false))

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

    @OptionGroup var session: SessionOptions

    @OptionGroup var pixelSize: PixelSizeChoice

    // Unconditional: a window may begin with a minus sign (-0.05:0.05keV).
    @Option(
        parsing: .unconditional,
        help:
            "For a spectrum image: play and show the map of this energy window, A:B with an optional unit (450:470eV, 4.4:4.6keV); the same as map takes."
    )
    var window: String?

    @Option(
        help: "For a spectrum image: play and show the map of this element's main X-ray line or edge (Ti, titanium).")
    var element: String?

    @Option(
        help:
            "With --window or --element: before, to take away a flat background measured in a window as wide just below."
    )
    var background: String?

    @Option(
        name: .customLong("export-tags"),
        help: "Also keep the tags in this CSV file (id, x, y, snapped), rewritten after every change.")
    var exportTags: String?

    func validate() throws {
        if window != nil && element != nil { throw ValidationError("give --window or --element, not both") }
        if let element, Element.named(element) == nil {
            throw ValidationError("--element takes an element's symbol or name, e.g. Ti or titanium; not \(element)")
        }
        if let background {
            guard background == "before" else { throw ValidationError("--background takes before; not \(background)") }
            guard window != nil || element != nil else {
                throw ValidationError("--background needs --window or --element")
            }
        }
    }

    func run() throws {
        try PlaySession.play(self)
    }
}
