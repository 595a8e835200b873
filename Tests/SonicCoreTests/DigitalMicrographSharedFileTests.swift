import Foundation
import SonicCore
import TestSupport
import Testing

/// The reader against real DigitalMicrograph files and what RosettaSciIO reads from them.
@Suite struct DigitalMicrographSharedFileTests {
    @Test(.disabled(if: SharedFormats.skip, "the real microscope files are absent"))
    func everyRealFileMatchesItsFacts() throws {
        let paths = try SharedFormats.files("dm3", "dm4")
        #expect(!paths.isEmpty)
        for path in paths {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let contents = try DigitalMicrograph.contents(of: bytes)
            #expect(contents.format == (name.hasSuffix(".dm4") ? .dm4 : .dm3), "\(name)")
            let signals = try #require(SharedFormats.facts(path)["signals"] as? [[String: Any]], "\(name)")
            // RosettaSciIO leaves out the thumbnail; here it is listed but is not an image.
            let images = contents.entries.filter(\.isImage)
            #expect(images.map(\.title) == signals.map { $0["title"] as? String }, "\(name)")
            for (entry, signal) in zip(images, signals) {
                try check(entry, against: signal, in: name)
            }
        }
    }

    private func check(_ entry: ImageEntry, against signal: [String: Any], in name: String) throws {
        let shape = try #require(signal["shape"] as? [Int], "\(name)")
        #expect(entry.shape == shape.reversed(), "\(name)")
        #expect(entry.sampleType?.rawValue == signal["dtype"] as? String, "\(name)")
        let axes = try #require(signal["axes"] as? [[String: Any]], "\(name)")
        for axis in axes {
            let axisName = axis["name"] as? String
            let calibration = axisName == "x" ? entry.calibration.x : entry.calibration.y
            let scale = try #require(axis["scale"] as? Double), offset = try #require(axis["offset"] as? Double)
            let unit = try #require(axis["units"] as? String)
            if scale == 1 && unit.isEmpty {
                #expect(calibration == nil, "\(name) \(axisName ?? "?")")
            } else {
                let found = try #require(calibration, "\(name) \(axisName ?? "?")")
                #expect(
                    found.unit == unit && abs(found.scale - scale) <= 1e-12 * scale
                        && abs(found.offset - offset) <= 1e-9 * max(1, abs(offset)), "\(name) \(axisName ?? "?")")
            }
        }
        let samples = try entry.read().samples
        if let rows = signal["data"] as? [[Double]] {
            #expect(samples == rows.flatMap { $0 }.map { Float($0) }, "\(name)")
            return
        }
        let values = samples.map(Double.init)
        #expect(values.min() == signal["min"] as? Double && values.max() == signal["max"] as? Double, "\(name)")
        let sum = try #require(signal["sum"] as? Double), mean = try #require(signal["mean"] as? Double)
        #expect(abs(values.reduce(0, +) - sum) <= 1e-9 * abs(sum), "\(name)")
        #expect(abs(values.reduce(0, +) / Double(values.count) - mean) <= 1e-9 * abs(mean), "\(name)")
        let firstRow = try #require(signal["first_row_first8"] as? [Double], "\(name)")
        #expect(Array(values.prefix(firstRow.count)) == firstRow, "\(name)")
    }
}
