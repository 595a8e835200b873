import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Describe an image file before playing it: its images, size, type, calibration, range, percentiles, a histogram, the lattice.",
        discussion: """
            Each line reads well on a screen reader; the histogram's bars come last on their lines. With \
            --json, one JSON object for scripts.
            """)

    @Argument(help: "An image file: PNG, DM3/DM4, TIFF or EMD.")
    var image: String

    @Option(
        name: .customLong("image"),
        help: "Which image of a file holding several (1, 2, ...). Default: the largest, as play opens.")
    var imageNumber: Int?

    @Option(help: "The profile whose stretch to report (name or path).")
    var profile = "default"

    @Option(help: "How many histogram bands (2-64).")
    var bands = 16

    @Flag(help: "Print one JSON object instead of sentences.")
    var json = false

    func validate() throws {
        guard (2...64).contains(bands) else { throw ValidationError("--bands must be 2 to 64") }
        if let imageNumber, imageNumber < 1 { throw ValidationError("--image counts from 1") }
    }

    func run() throws {
        let settings: Profile
        do { settings = try Installation.loadProfile(profile) } catch let error as ProfileError {
            throw fail(error.description, status: ExitStatus.badInput)
        }
        let opened: ImageFiles.Opened
        do { opened = try ImageFiles.open(image, number: imageNumber) } catch {
            throw fail("cannot read image \(image): \(error)", status: ExitStatus.badInput)
        }
        print(json ? Self.json(opened) : Self.report(opened, profile: settings, bands: bands), terminator: "")
    }

    static func report(_ opened: ImageFiles.Opened, profile: Profile, bands: Int) -> String {
        let picture = opened.image
        let type = picture.sampleType
        let stats = SampleStatistics(picture)
        func value(_ v: Double) -> String { type.isFloat ? String(format: "%.6g", v) : String(Int(v)) }
        var lines: [String] = []
        let kind =
            type.isFloat
            ? "\(type.bits)-bit float" : "\(type.bits)-bit\(type.rawValue.hasPrefix("int") ? " signed" : "")"
        lines.append(
            "\(opened.description.spokenName): \(picture.width) by \(picture.height) pixels, \(kind) gray, "
                + "\(stats.count) samples.")
        let images = opened.contents.entries.filter(\.isImage)
        if images.count > 1 {
            for (index, entry) in images.enumerated() {
                let played = index + 1 == opened.number ? ", played" : ""
                lines.append(
                    "Image \(index + 1): \(entry.title.isEmpty ? "untitled" : entry.title), \(entry.width) by "
                        + "\(entry.height) pixels, \(entry.sampleType?.rawValue ?? "?")\(played).")
            }
        }
        for entry in opened.contents.entries where !entry.isImage {
            let name = entry.title.isEmpty ? "A dataset" : "\"\(entry.title)\""
            lines.append(
                "\(name) (\(entry.shape.map(String.init).joined(separator: " by "))) is skipped: "
                    + "\(entry.unsupported ?? "not an image").")
        }
        let calibration = opened.entry.calibration
        if let size = calibration.pixelSize {
            lines.append("Pixel size from the file: \(size.spoken).")
        } else if let scale = opened.description.spokenScale(pixelSize: nil) {
            lines.append("Calibration from the file: \(scale).")
        } else if let axis = calibration.x ?? calibration.y {
            lines.append("Calibration from the file: \(value: axis.scale) \(axis.unit) per pixel.")
        }
        if picture.nonFiniteCount > 0 {
            lines.append(
                "\(picture.nonFiniteCount) samples hold no number (NaN or infinity) and count as the lowest value.")
        }
        let range = type.smallIntegerRange.map { " (of \($0.lowerBound) to \($0.upperBound))" } ?? ""
        lines.append(
            "Minimum \(value(stats.minimum)), maximum \(value(stats.maximum)), mean "
                + "\(String(format: type.isFloat ? "%.6g" : "%.1f", stats.mean))\(range).")
        let percentiles: [Double] = [0.5, 1, 5, 25, 50, 75, 95, 99, 99.5]
        lines.append(
            "Percentiles: "
                + percentiles.map { "\($0.compactText) percent \(value(stats.percentile($0)))" }
                .joined(separator: ", ") + ".")
        let stretch = profile.level.stretch(stats)
        lines.append(
            "The \(profile.name) profile plays \(value(stretch.low)) and below at its lowest pitch "
                + "and \(value(stretch.high)) and above at its highest.")
        let finder = ColumnFinder(image: picture)
        if let spacing = finder.spacing {
            lines.append("Lattice: atom columns about \(String(format: "%.1f", spacing)) pixels apart.")
        } else {
            lines.append("No lattice of atom columns found.")
        }
        let overview = ImageOverview(
            finder: finder, columns: LatticeColumns(finding: finder, pixelSize: calibration.pixelSize))
        lines.append("Overview: \(overview.summary.joined(separator: " "))")
        lines.append("Histogram, \(bands) bands from minimum to maximum:")
        let counted = stats.bands(bands)
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

    /// The documented JSON: the file, the image described (and played by default), and every image in the file.
    static func json(_ opened: ImageFiles.Opened) -> String {
        let stats = SampleStatistics(opened.image)
        func number(_ v: Double?) -> String { v.map(JSONLine.number) ?? "null" }
        func pixelSize(_ entry: ImageEntry) -> String { number(entry.calibration.pixelSize?.picometres) }
        let images = opened.contents.entries.filter(\.isImage).enumerated().map { index, entry in
            "{\"index\":\(index + 1),\"title\":\(JSONLine.quoted(entry.title)),\"width\":\(entry.width),"
                + "\"height\":\(entry.height),\"sampleType\":\(JSONLine.quoted(entry.sampleType?.rawValue ?? "")),"
                + "\"pixelSizePm\":\(pixelSize(entry))}"
        }
        let skipped = opened.contents.entries.filter { !$0.isImage }.map { entry in
            "{\"title\":\(JSONLine.quoted(entry.title)),\"shape\":[\(entry.shape.map(String.init).joined(separator: ","))],"
                + "\"reason\":\(JSONLine.quoted(entry.unsupported ?? "not an image"))}"
        }
        let fields = [
            "\"file\":\(JSONLine.quoted(opened.path))",
            "\"format\":\(JSONLine.quoted(opened.contents.format.rawValue))",
            "\"image\":\(opened.number)", "\"width\":\(opened.image.width)", "\"height\":\(opened.image.height)",
            "\"sampleType\":\(JSONLine.quoted(opened.image.sampleType.rawValue))",
            "\"pixelSizePm\":\(pixelSize(opened.entry))", "\"min\":\(number(stats.minimum))",
            "\"max\":\(number(stats.maximum))",
            "\"mean\":\(number(stats.mean))", "\"nonFinite\":\(opened.image.nonFiniteCount)",
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
    fileprivate mutating func appendInterpolation(value: Double) { appendInterpolation(String(format: "%.6g", value)) }
}
