import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Describe a microscope file before playing it: its images, stacks and spectra, size, type, calibration, "
            + "range, percentiles, a histogram, the lattice, a spectrum's strongest peaks.",
        discussion: """
            Each line reads well on a screen reader; the histogram's bars come last on their lines. Every signal \
            of the file is listed, numbered as --image counts them, with its kind (image, stack, spectrum image, \
            line scan, spectrum) and axes; a spectrum's, spectrum image's or line scan's strongest peaks above its \
            background, the zero-energy and zero-loss peaks left out, each named by the line or edge of an element \
            identified by its lines (or called unidentified). With --json, one JSON object for scripts.
            """)

    @Argument(help: "A microscope file: PNG, DM3/DM4, TIFF, EMD, HyperSpy (.hspy) or Bruker (.bcf).")
    var image: String

    @OptionGroup var imageChoice: ImageChoice

    @OptionGroup var profileChoice: ProfileChoice

    @Option(help: "How many histogram bands (2-64).")
    var bands = 16

    @Flag(help: "Print one JSON object instead of sentences.")
    var json = false

    func validate() throws {
        guard (2...64).contains(bands) else { throw ValidationError("--bands must be 2 to 64") }
    }

    func run() throws {
        let settings = try profileChoice.load()
        let report: String
        do {
            let contents = try ImageFiles.contents(of: image)
            let signals = contents.entries.filter(\.isSignal)
            // A file of spectra only is described by its first.
            let number =
                imageChoice.number ?? (signals.allSatisfy { $0.kind == .spectrum } && !signals.isEmpty ? 1 : nil)
            let (index, chosen) = try ImageFiles.signal(number, in: contents)
            let described: Described
            if contents.entries[index].kind == .spectrum {
                described = try Described(spectrumOf: contents, at: index, number: chosen, path: image)
            } else {
                try findSpectrumOverview(chosen, in: contents)
                described = try Described(opened: ImageFiles.open(image, contents: contents, number: chosen))
            }
            report = json ? try described.json() : try described.report(profile: settings, bands: bands)
        } catch {
            throw fail("cannot read image \(image): \(error)", status: ExitStatus.badInput)
        }
        print(report, terminator: "")
    }
}

/// What `inspect` describes: the file's signals, and the one chosen with its samples (an image's, a
/// frame's, a map's, or a single spectrum's channels).
private struct Described {
    let path: String
    let contents: ImageFileContents
    let number: Int
    let entry: ImageEntry
    /// What plays, when a picture plays; nil for a single spectrum.
    let opened: ImageFiles.Opened?
    /// The samples described: the picture's, or the spectrum's channels.
    let samples: GrayImage

    init(opened: ImageFiles.Opened) {
        path = opened.path
        contents = opened.contents
        number = opened.number
        entry = opened.entry
        self.opened = opened
        samples = opened.image
    }

    init(spectrumOf contents: ImageFileContents, at index: Int, number: Int, path: String) throws(ImageFileError) {
        self.path = path
        self.contents = contents
        self.number = number
        entry = contents.entries[index]
        opened = nil
        guard let cube = entry.spectra else { throw ImageFileError("not a spectrum") }
        let spectrum = try cube.overview().summed
        samples = GrayImage(
            width: spectrum.count, height: 1, sampleType: entry.sampleType ?? .float32,
            samples: spectrum.map { Float($0) })
    }

    var signals: [ImageEntry] { contents.entries.filter(\.isSignal) }

    /// The strongest peaks of an entry's spectrum summed over its pixels.
    static func peaks(_ entry: ImageEntry) throws(ImageFileError) -> [SpectrumPeak] {
        guard let cube = entry.spectra else { return [] }
        return SpectrumPeaks.strongest(
            try cube.overview().summed, axis: cube.spectralAxis, spectroscopy: cube.spectroscopy,
            resolution: cube.resolution)
    }

    func report(profile: Profile, bands: Int) throws(ImageFileError) -> String {
        var lines: [String] = []
        let type = samples.sampleType
        func value(_ v: Double) -> String { type.isFloat ? NumberText.readable(v) : String(Int(v)) }
        if let opened {
            let kind =
                type.isFloat
                ? "\(type.bits)-bit float" : "\(type.bits)-bit\(type.rawValue.hasPrefix("int") ? " signed" : "")"
            lines.append(
                "\(opened.openedImage.spokenName): \(samples.width) by \(samples.height) pixels, \(kind) gray, "
                    + "\(samples.width * samples.height) samples.")
        } else {
            let name = [URL(fileURLWithPath: path).lastPathComponent, entry.title].filter { !$0.isEmpty }
            lines.append("\(name.joined(separator: ", ")): \(Self.sentence(entry)).")
        }
        let signals = self.signals
        if signals.count > 1 || entry.kind != .image {
            for (index, signal) in signals.enumerated() {
                let played = index + 1 == number ? (opened == nil ? ", described" : ", played") : ""
                lines.append(
                    "Image \(index + 1): \(signal.title.isEmpty ? "untitled" : signal.title), "
                        + "\(Self.sentence(signal))\(played).")
                let peaks = try Self.peaks(signal)
                if !peaks.isEmpty {
                    let units = signal.spectra?.spectralAxis.units ?? ""
                    lines.append(
                        "Strongest peaks: "
                            + peaks.map { peak in
                                "\(NumberText.significant(peak.position, digits: 4)) \(units)"
                                    + (peak.line.map { ", \($0)" }
                                        ?? (EnergyUnit(units) == nil ? "" : ", unidentified"))
                            }.joined(separator: "; ") + ".")
                }
            }
        }
        for skipped in contents.entries where !skipped.isSignal {
            let name = skipped.title.isEmpty ? "A dataset" : "\"\(skipped.title)\""
            lines.append(
                "\(name) (\(skipped.shape.map(String.init).joined(separator: " by "))) is skipped: "
                    + "\(skipped.unsupported ?? "not an image").")
        }
        let stats = SampleStatistics(samples)
        if let opened {
            let calibration = opened.calibration
            if let size = calibration.pixelSize {
                lines.append("Pixel size from the file: \(size.spoken).")
            } else if let scale = opened.openedImage.spokenScale(pixelSize: nil) {
                lines.append("Calibration from the file: \(scale).")
            } else if let axis = calibration.x ?? calibration.y {
                lines.append("Calibration from the file: \(value: axis.scale) \(axis.unit) per pixel.")
            }
        }
        if samples.nonFiniteCount > 0 {
            lines.append(
                "\(samples.nonFiniteCount) samples hold no number (NaN or infinity) and count as the lowest value.")
        }
        let range = type.smallIntegerRange.map { " (of \($0.lowerBound) to \($0.upperBound))" } ?? ""
        let of = opened == nil ? "Channels: minimum" : "Minimum"
        lines.append(
            "\(of) \(value(stats.minimum)), maximum \(value(stats.maximum)), mean "
                + "\(type.isFloat ? NumberText.readable(stats.mean) : String(format: "%.1f", stats.mean))\(range).")
        guard opened != nil else { return lines.joined(separator: "\n") + "\n" }
        let percentiles: [Double] = [0.5, 1, 5, 25, 50, 75, 95, 99, 99.5]
        lines.append(
            "Percentiles: "
                + percentiles.map { "\($0.compactText) percent \(value(stats.percentile($0)))" }
                .joined(separator: ", ") + ".")
        let stretch = profile.level.stretch(stats)
        lines.append(
            "The \(profile.name) profile plays \(value(stretch.low)) and below at its lowest pitch "
                + "and \(value(stretch.high)) and above at its highest.")
        let finder = ColumnFinder(image: samples)
        let overview = ImageOverview(
            finder: finder, columns: LatticeColumns(finding: finder, pixelSize: opened?.calibration.pixelSize),
            reciprocalPerPixel: opened?.calibration.reciprocalPerPixel)
        // Said of a lattice only, as the overview finds it: `describe` and `columns` say the same.
        if let spacing = finder.spacing, overview.kind == .lattice {
            lines.append("Lattice: atom columns about \(String(format: "%.1f", spacing)) pixels apart.")
        } else {
            lines.append("No lattice of atom columns found.")
        }
        lines.append("Overview: \(overview.summary.joined(separator: " "))")
        // Integers take whole bands: at most one a value.
        let span = stats.maximum - stats.minimum + 1
        let bandCount = type.isFloat || span.isNaN ? bands : max(1, min(bands, Int(min(span, Double(bands)))))
        lines.append("Histogram, \(bandCount) \(bandCount == 1 ? "band" : "bands") from minimum to maximum:")
        let counted = stats.bands(bandCount)
        let largest = counted.map(\.count).max() ?? 1
        for (index, band) in counted.enumerated() {
            let next = index + 1 < counted.count ? counted[index + 1].from : nil
            let to = type.isFloat ? next ?? stats.maximum : next.map { $0 - 1 } ?? stats.maximum
            let share = 100 * Double(band.count) / Double(stats.count)
            let bar = String(repeating: "#", count: Int((40 * Double(band.count) / Double(largest)).rounded()))
            lines.append("\(value(band.from)) to \(value(to)): \(String(format: "%.1f", share)) percent \(bar)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "384 by 384 pixels, uint16" (an image), "spectrum image of 20 by 16 pixels, 2048 channels from
    /// 800 to 1146 eV, uint16".
    static func sentence(_ entry: ImageEntry) -> String {
        let type = [entry.sampleType?.rawValue ?? "?", entry.storedAs.map { "stored as \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
        func channels(_ cube: SpectrumCube) -> String {
            let axis = cube.spectralAxis
            let units = axis.units.isEmpty ? "" : " \(axis.units)"
            return "\(axis.size) channels from \(SignalAxis.text(axis.position(0))) to "
                + "\(SignalAxis.text(axis.position(axis.size - 1)))\(units)"
        }
        switch entry.content {
        case .stack(let stack):
            let frames = entry.axes.first { $0.navigation }
            let every =
                frames.flatMap { $0.calibration }.map { ", every \(SignalAxis.text($0.scale)) \($0.unit)" } ?? ""
            return "stack of \(stack.count) frames of \(stack.width) by \(stack.height) pixels\(every), \(type)"
        case .spectra(let cube):
            switch entry.kind {
            case .spectrumImage:
                return "spectrum image of \(cube.width) by \(cube.height) pixels, \(channels(cube)), \(type)"
            case .lineScan: return "line scan of \(cube.width) positions, \(channels(cube)), \(type)"
            default: return "spectrum of \(channels(cube)), \(type)"
            }
        default:
            return "\(entry.width) by \(entry.height) pixels, \(type)"
        }
    }

    /// The documented JSON: the file, the signal described (and played by default), and every
    /// signal in the file.
    func json() throws(ImageFileError) -> String {
        let stats = SampleStatistics(samples)
        func numeric(_ v: Double?) -> String { v.map(JSONLine.number) ?? "null" }
        func pixelSize(_ calibration: Calibration) -> String { numeric(calibration.pixelSize?.picometres) }
        var images: [String] = []
        for (index, signal) in signals.enumerated() {
            let axes = signal.axes.map { axis in
                "{\"name\":\(JSONLine.quoted(axis.name)),\"size\":\(axis.size),\"scale\":\(numeric(axis.scale)),"
                    + "\"offset\":\(numeric(axis.offset)),\"units\":\(JSONLine.quoted(axis.units)),"
                    + "\"navigation\":\(axis.navigation)}"
            }
            var fields = [
                "\"index\":\(index + 1)", "\"title\":\(JSONLine.quoted(signal.title))",
                "\"kind\":\(JSONLine.quoted(signal.kind?.rawValue ?? ""))", "\"width\":\(signal.width)",
                "\"height\":\(signal.height)", "\"sample_type\":\(JSONLine.quoted(signal.sampleType?.rawValue ?? ""))"
            ]
            if let storedAs = signal.storedAs { fields.append("\"stored_as\":\(JSONLine.quoted(storedAs))") }
            fields += [
                "\"pixel_size_pm\":\(pixelSize(signal.calibration))", "\"axes\":[\(axes.joined(separator: ","))]"
            ]
            if signal.spectra != nil {
                let peaks = try Self.peaks(signal).map { peak in
                    "{\"channel\":\(peak.channel),\"position\":\(numeric(peak.position)),"
                        + "\"height\":\(numeric(peak.height)),\"line\":\(peak.line.map(JSONLine.quoted) ?? "null")}"
                }
                fields.append("\"peaks\":[\(peaks.joined(separator: ","))]")
            }
            images.append("{" + fields.joined(separator: ",") + "}")
        }
        let skipped = contents.entries.filter { !$0.isSignal }.map { entry in
            "{\"title\":\(JSONLine.quoted(entry.title)),\"shape\":[\(entry.shape.map(String.init).joined(separator: ","))],"
                + "\"reason\":\(JSONLine.quoted(entry.unsupported ?? "not an image"))}"
        }
        let fields = [
            "\"file\":\(JSONLine.quoted(path))",
            "\"format\":\(JSONLine.quoted(contents.format.rawValue))",
            "\"image\":\(number)", "\"kind\":\(JSONLine.quoted(entry.kind?.rawValue ?? ""))",
            "\"width\":\(opened == nil ? 1 : samples.width)", "\"height\":\(opened == nil ? 1 : samples.height)",
            "\"sample_type\":\(JSONLine.quoted(samples.sampleType.rawValue))",
            "\"pixel_size_pm\":\(pixelSize(opened?.calibration ?? .none))", "\"min\":\(numeric(stats.minimum))",
            "\"max\":\(numeric(stats.maximum))",
            "\"mean\":\(numeric(stats.mean))", "\"non_finite\":\(samples.nonFiniteCount)",
            "\"images\":[\(images.joined(separator: ","))]", "\"skipped\":[\(skipped.joined(separator: ","))]"
        ]
        return "{" + fields.joined(separator: ",") + "}\n"
    }
}

extension Double {
    /// 0.5, 1, 99.5 — no trailing ".0".
    fileprivate var compactText: String { self == rounded() ? String(Int(self)) : String(self) }
}

extension DefaultStringInterpolation {
    fileprivate mutating func appendInterpolation(value: Double) { appendInterpolation(NumberText.readable(value)) }
}
