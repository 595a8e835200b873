import Foundation
import SonicBruker
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// Every real and synthetic file of `../shared/formats/spectra` against what RosettaSciIO reads from
/// it: each signal's kind, axes and calibration, values, statistics, frames, summed spectrum and
/// energy-window maps.
@Suite struct SpectraFactsTests {
    static func read(_ entry: ImageEntry) -> ReadSignal? {
        guard let kind = entry.kind else { return nil }
        let axes = entry.axes.map { ($0.name, $0.size, $0.scale, $0.offset, $0.units, $0.navigation) }
        var read = ReadSignal(kind: kind.rawValue, axes: axes)
        if let stack = entry.stack {
            read.frame = { try stack.frame($0).samples }
        } else if let cube = entry.spectra {
            read.spectrum = { try cube.spectrum(x: $0, y: $1) }
            read.map = { try cube.map($0).values }
            read.channels = { try cube.spectralAxis.channels(from: $0, to: $1) }
        } else {
            read.frame = { _ in try entry.read().samples }
        }
        return read
    }

    static func contents(_ path: String) throws -> ImageFileContents {
        if path.hasSuffix(".dm3") || path.hasSuffix(".dm4") {
            return try DigitalMicrograph.contents(of: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        }
        if path.hasSuffix(".bcf") {
            return try BCFReader.contents(of: FileBytes(copying: [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        return try EMDReader.contents(path: path)
    }

    /// Where RosettaSciIO misreads a file its facts say so in `notes` and give the true reading
    /// beside: Velox's EDS spectrum image holds the 20 × 16 pixels of its scan area (RosettaSciIO
    /// lays them out over the whole 128 × 128 raster), whose maps `first_320_pixels_as_16x20` gives.
    static func corrected(_ signal: [String: Any]) -> [String: Any] {
        guard let area = signal["first_320_pixels_as_16x20"] as? [String: Any],
            var spectrum = signal["spectrum"] as? [String: Any]
        else { return signal }
        var fixed = signal
        for key in ["min", "max", "mean", "sum"] { fixed[key] = nil }
        fixed["navigation_shape"] = [16, 20]
        var axes = signal["axes"] as! [[String: Any]]
        axes[0]["size"] = 20
        axes[1]["size"] = 16
        fixed["axes"] = axes
        let original = spectrum["windows"] as? [[String: Any]] ?? []
        spectrum["windows"] = (area["windows"] as? [[String: Any]] ?? []).map { window in
            var window = window
            let label = window["label"] as? String
            if let said = original.first(where: { $0["label"] as? String == label }) {
                window["start"] = said["start"]
                window["end"] = said["end"]
            }
            return window
        }
        var summed = spectrum["summed_spectrum"] as? [String: Any] ?? [:]
        summed["argmax_index"] = area["summed_spectrum_argmax_index"]
        spectrum["summed_spectrum"] = summed
        fixed["spectrum"] = spectrum
        return fixed
    }

    @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
    func everyFileReadsAsRosettaSciIOReadsIt() throws {
        let files = try SharedFormats.spectra("dm3", "dm4", "emd", "hspy", "bcf")
        #expect(files.count == 39)
        for path in files {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let signals = try #require(try SharedFormats.facts(path)["signals"] as? [[String: Any]], "\(name)")
            var unread = try Self.contents(path).entries.compactMap(Self.read)
            #expect(unread.count == signals.count, "\(name): \(unread.count) signals, not \(signals.count)")
            // Each signal of the facts is read by one entry: the first, in the file's order, that matches it.
            for signal in signals.map(Self.corrected) {
                let candidates = unread.indices.filter { unread[$0].kind == SpectraFacts.kind(signal) }
                let tried = candidates.map { ($0, SpectraFacts.problems(unread[$0], signal)) }
                guard let (index, _) = tried.first(where: { $0.1.isEmpty }) else {
                    Issue.record(
                        "\(name): no signal reads as \(signal["title"] ?? "?"): \(tried.first?.1 ?? ["none of its kind"])"
                    )
                    continue
                }
                unread.remove(at: index)
            }
        }
    }

    /// HyperSpy's EDS file gives its detector's resolution (`energy_resolution_MnKa`), which sets the lines' widths.
    @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
    func theHyperSpyDetectorsResolutionIsRead() throws {
        let contents = try Self.contents(SharedFormats.folder + "/spectra/synthetic_eds_si.hspy")
        let cube = try #require(contents.entries.compactMap(\.spectra).first)
        let resolution = try #require(cube.resolution)
        #expect(resolution >= 100 && resolution <= 200, "\(resolution)")
    }
}
