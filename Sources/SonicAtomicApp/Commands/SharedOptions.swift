import ArgumentParser
import SonicCore
import SonicImageFiles

/// `--image N`: which of a file's signals a command opens.
struct ImageChoice: ParsableArguments {
    @Option(
        name: .customLong("image"),
        help:
            "Which signal of a file holding several (1, 2, ..., as inspect lists them). Default: the largest image; for map, the largest spectrum image."
    )
    var number: Int?

    func validate() throws {
        if let number, number < 1 { throw ValidationError("--image counts from 1") }
    }
}

/// `--pixel-size SIZE`: a pixel's size when the file's calibration is missing or wrong.
struct PixelSizeChoice: ParsableArguments {
    @Option(
        name: .customLong("pixel-size"),
        help:
            "The size of a pixel (e.g. 9.33pm or 0.933nm), overriding the file's calibration: lengths are then in picometres."
    )
    var text: String?

    var size: PixelSize? { text.flatMap(PixelSize.init) }

    func validate() throws {
        if let text, PixelSize(text) == nil {
            throw ValidationError("--pixel-size must be a size like 9.33pm, 0.933nm or 9.33Å")
        }
    }
}

/// `--profile NAME|PATH`: the sound and mapping preset.
struct ProfileChoice: ParsableArguments {
    @Option(help: "A profile name (from your profiles, then the shipped ones) or a path to a profile file.")
    var profile = "default"

    /// The profile, or the command ends with one line and the bad-input status.
    func load() throws -> Profile { try loadProfile(profile) }
}

/// The profile `nameOrPath` names, or the command ends with one line and the bad-input status.
func loadProfile(_ nameOrPath: String) throws -> Profile {
    do { return try Installation.loadProfile(nameOrPath) } catch let error as ProfileError {
        throw fail(error.description, status: .badInput)
    }
}

/// The `number`th signal of the file at `path` (by default its largest image), as the image that
/// plays — of a stack, its `frame`th frame or its frames combined, when asked for; or the command ends
/// with one line and the bad-input status. `summedSpectrum`: a spectrum image's summed spectrum is
/// wanted too (for its elements' lines), and found in the same pass as the total counts it plays as.
func openImage(
    _ path: String, number: Int?, frame: Int? = nil, frames: FrameCombination? = nil, summedSpectrum: Bool = false
) throws -> ImageFiles.Opened {
    do {
        let contents = try ImageFiles.contents(of: path)
        if summedSpectrum { try findSpectrumOverview(number, in: contents) }
        let signal = try ImageFiles.open(path, contents: contents, number: number)
        return try frame.map { try signal.frame($0) } ?? frames.map { try signal.combined($0) } ?? signal
    } catch { throw fail("cannot read image \(path): \(error)", status: .badInput) }
}

/// Goes through the spectra of signal `number`, when it is a spectrum image, for its total counts and
/// summed spectrum at once: asked for one after the other, they would take two passes.
func findSpectrumOverview(_ number: Int?, in contents: ImageFileContents) throws(ImageFileError) {
    let (index, _) = try ImageFiles.signal(number, in: contents)
    let entry = contents.entries[index]
    if entry.kind != .spectrum, let cube = entry.spectra { _ = try cube.overview() }
}
