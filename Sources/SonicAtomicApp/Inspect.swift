import ArgumentParser
import Foundation
import SonicCore
import SonicPNG

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe an image before playing it: size, bit depth, range, percentiles, a histogram, the lattice.",
        discussion: "Each line reads well on a screen reader; the histogram's bars come last on their lines.")

    @Argument(help: "A PNG image.")
    var image: String

    @Option(help: "The profile whose stretch to report (name or path).")
    var profile = "default"

    @Option(help: "How many histogram bands (2-64).")
    var bands = 16

    func validate() throws {
        guard (2...64).contains(bands) else { throw ValidationError("--bands must be 2 to 64") }
    }

    func run() throws {
        let settings: Profile
        do { settings = try Installation.loadProfile(profile) } catch let error as ProfileError {
            throw fail(error.description, status: ExitStatus.badInput)
        }
        let picture: GrayImage
        do { picture = try PNGDecoder.decode(path: image) } catch {
            throw fail("cannot read image \(image): \(error)", status: ExitStatus.badInput)
        }
        print(Self.report(picture, name: URL(fileURLWithPath: image).lastPathComponent, profile: settings, bands: bands),
              terminator: "")
    }

    static func report(_ picture: GrayImage, name: String, profile: Profile, bands: Int) -> String {
        let stats = SampleStatistics(picture)
        var lines: [String] = []
        lines.append("\(name): \(picture.width) by \(picture.height) pixels, \(picture.bitDepth)-bit gray, "
                     + "\(stats.count) samples.")
        lines.append("Minimum \(stats.minimum), maximum \(stats.maximum), mean \(String(format: "%.1f", stats.mean)) "
                     + "(of 0 to \(picture.maxSampleValue)).")
        let percentiles: [Double] = [0.5, 1, 5, 25, 50, 75, 95, 99, 99.5]
        lines.append("Percentiles: " + percentiles.map { "\($0.compactText) percent \(stats.percentile($0))" }
            .joined(separator: ", ") + ".")
        let stretch = profile.level.stretch(stats)
        lines.append("The \(profile.name) profile plays \(Int(stretch.low)) and below at its lowest pitch "
                     + "and \(Int(stretch.high)) and above at its highest.")
        if let spacing = ColumnFinder(image: picture).spacing {
            lines.append("Lattice: atom columns about \(String(format: "%.1f", spacing)) pixels apart.")
        } else {
            lines.append("No lattice of atom columns found.")
        }
        lines.append("Histogram, \(bands) bands from minimum to maximum:")
        let counted = stats.bands(bands)
        let largest = counted.map(\.count).max() ?? 1
        for (index, band) in counted.enumerated() {
            let to = index + 1 < counted.count ? counted[index + 1].from - 1 : Int(stats.maximum)
            let share = 100 * Double(band.count) / Double(stats.count)
            let bar = String(repeating: "#", count: Int((40 * Double(band.count) / Double(largest)).rounded()))
            lines.append("\(band.from) to \(to): \(String(format: "%.1f", share)) percent \(bar)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension Double {
    /// 0.5, 1, 99.5 — no trailing ".0".
    var compactText: String { self == rounded() ? String(Int(self)) : String(self) }
}
