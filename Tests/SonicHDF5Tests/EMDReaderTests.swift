import Foundation
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// The committed fixtures (written by Tests/Fixtures/emd/make_fixtures.py with h5py) against the
/// values the script computed with numpy, and the real microscope files against RosettaSciIO's reading.
@Suite struct EMDReaderTests {
    static let fixtures = SharedFormats.repository + "/Tests/Fixtures/emd/"

    static func expected() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(arguments: [
        "velox_two_detectors.emd", "velox_stack.emd", "velox_spectrum.emd", "velox_eds_stream.emd",
        "velox_bad_stream.emd", "velox_eels.emd", "berkeley_image.emd", "berkeley_stack.emd"
    ])
    func fixtureReadsAsExpected(name: String) throws {
        let expected = try #require(try Self.expected()[name] as? [[String: Any]])
        let contents = try EMDReader.contents(path: Self.fixtures + name)
        #expect(contents.format == .emd)
        #expect(contents.entries.count == expected.count)
        for (entry, facts) in zip(contents.entries, expected) {
            let label = "\(name): \(facts["title"] ?? facts["shape"] ?? "")"
            if let title = facts["title"] as? String { #expect(entry.title == title, "\(label)") }
            #expect(entry.shape == facts["shape"] as? [Int], "\(label)")
            #expect(entry.isImage == facts["image"] as? Bool, "\(label)")
            #expect(entry.kind?.rawValue == facts["kind"] as? String ?? (entry.isImage ? "image" : nil), "\(label)")
            #expect(entry.unsupported == facts["unsupported"] as? String, "\(label)")
            if let type = facts["sampleType"] as? String { #expect(entry.sampleType?.rawValue == type, "\(label)") }
            if let problem = facts["readError"] as? String {
                #expect("\(label)") { try Self.readEverything(entry) } throws: { "\($0)".contains(problem) }
                continue
            }
            guard entry.isSignal else {
                #expect(throws: ImageFileError.self, "\(label)") { try entry.read() }
                continue
            }
            expectAxis(entry.calibration.x, facts["x"] as? [String: Any], "\(label) x")
            expectAxis(entry.calibration.y, facts["y"] as? [String: Any], "\(label) y")
            if let rows = facts["samples"] as? [[Double]] {
                let plane = try entry.read()
                #expect(plane.width == rows.first?.count && plane.height == rows.count, "\(label)")
                #expect(plane.sampleType == entry.sampleType)
                expectSamples(plane.samples, rows.flatMap { $0.map(Float.init) }, label)
            }
            if let frames = facts["frames"] as? [[[Double]]] {
                let stack = try #require(entry.stack, "\(label)")
                #expect(stack.count == frames.count, "\(label)")
                for (index, rows) in frames.enumerated() {
                    expectSamples(
                        try stack.frame(index).samples, rows.flatMap { $0.map(Float.init) }, "\(label) \(index)")
                }
            }
            #expect(entry.acquiredImage == facts["acquiredImage"] as? Int, "\(label)")
            if let spectra = facts["spectra"] as? [[[Double]]] {
                let cube = try #require(entry.spectra, "\(label)")
                let energy = try #require(facts["energy"] as? [String: Any])
                let axis = cube.spectralAxis
                #expect(
                    axis.scale == energy["scale"] as? Double && axis.offset == energy["offset"] as? Double
                        && axis.units == energy["unit"] as? String, "\(label): \(axis)")
                for (y, row) in spectra.enumerated() {
                    for (x, spectrum) in row.enumerated() {
                        #expect(try cube.spectrum(x: x, y: y) == spectrum, "\(label) pixel (\(x), \(y))")
                    }
                }
                // The whole cube in one pass gives the same sums.
                let overview = try cube.overview()
                #expect(overview.totalCounts.values == spectra.flatMap { $0.map { $0.reduce(0, +) } }, "\(label)")
                #expect(
                    overview.summed
                        == (0..<cube.channels).map { channel in
                            spectra.flatMap { $0 }.reduce(0) { $0 + $1[channel] }
                        }, "\(label)")
            }
        }
    }

    /// Reads whatever the entry holds: its image, its frames, or its spectra's total counts.
    static func readEverything(_ entry: ImageEntry) throws {
        if let cube = entry.spectra { _ = try cube.overview() } else { _ = try entry.read() }
    }

    /// Compares without listing every sample when they differ.
    func expectSamples(
        _ read: [Float], _ expected: [Float], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(read.count == expected.count, "\(label)", sourceLocation: sourceLocation)
        if let first = zip(read, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record(
                "\(label): sample \(first.offset) is \(first.element.0), expected \(first.element.1)",
                sourceLocation: sourceLocation)
        }
    }

    func expectAxis(
        _ axis: AxisCalibration?, _ facts: [String: Any]?, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let facts else {
            #expect(axis == nil, "\(label)", sourceLocation: sourceLocation)
            return
        }
        guard let axis, let scale = facts["scale"] as? Double, let offset = facts["offset"] as? Double else {
            Issue.record(
                "\(label): expected \(facts), read \(String(describing: axis))", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(axis.scale - scale) <= 1e-9 * abs(scale), "\(label)", sourceLocation: sourceLocation)
        #expect(
            abs(axis.offset - offset) <= 1e-9 * max(abs(offset), abs(scale)), "\(label)", sourceLocation: sourceLocation
        )
        #expect(axis.unit == facts["unit"] as? String, "\(label)", sourceLocation: sourceLocation)
    }

    @Test func anHDF5FileThatIsNotEMDIsRefused() {
        #expect { try EMDReader.contents(path: Self.fixtures + "not_emd.h5") } throws: { error in
            "\(error)".hasPrefix("an HDF5 file, but not an EMD file")
        }
    }

    // MARK: - Real files, as RosettaSciIO reads them

    @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
    func realFilesMatchRosettaSciIO() throws {
        let files = try SharedFormats.files("emd")
        #expect(!files.isEmpty)
        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let signals = try #require(try SharedFormats.facts(file)["signals"] as? [[String: Any]])
            let contents = try EMDReader.contents(path: file)
            // These files hold images and stacks, each one signal.
            let pictures = contents.entries.filter(\.isSignal)
            #expect(pictures.count == signals.count, "\(name)")
            for (entry, signal) in zip(pictures, signals) {
                let shape = try #require(signal["shape"] as? [Int])
                let frames = shape.count == 3 ? shape[0] : 1
                let (rows, columns) = (shape[shape.count - 2], shape[shape.count - 1])
                let axes = signal["axes"] as? [[String: Any]] ?? []
                if let title = signal["title"] as? String { #expect(entry.title.hasPrefix(title), "\(name)") }
                #expect(entry.width == columns && entry.height == rows, "\(name)")
                #expect((entry.stack?.count ?? 1) == frames, "\(name)")
                #expect(entry.sampleType?.rawValue == signal["dtype"] as? String, "\(name)")
                expectAxis(
                    entry.calibration.x, Self.calibrated(axes.first { $0["name"] as? String == "x" } ?? axes.first),
                    "\(name) x")
                expectAxis(
                    entry.calibration.y, Self.calibrated(axes.first { $0["name"] as? String == "y" } ?? axes.last),
                    "\(name) y")
                let data = try #require(signal["data"] as? [Any], "\(name): facts without data")
                for frame in 0..<frames {
                    let plane = try entry.stack?.frame(frame) ?? entry.read()
                    let values = try #require((frames > 1 ? data[frame] : data) as? [[Double]])
                    expectSamples(plane.samples, values.flatMap { $0.map(Float.init) }, "\(name) frame \(frame)")
                }
            }
        }
    }

    /// A facts axis in this reader's terms: uncalibrated ones (scale 1, no unit) are nil.
    static func calibrated(_ axis: [String: Any]?) -> [String: Any]? {
        guard let axis, let scale = axis["scale"] as? Double else { return nil }
        let units = (axis["units"] as? String).map { $0 == "[]" ? "" : $0 } ?? ""
        if units.isEmpty && scale == 1 { return nil }
        return ["scale": scale, "offset": axis["offset"] as? Double ?? 0, "unit": units]
    }
}

/// Full-size images: each committed file stops where its samples begin, and the test appends them.
@Suite struct EMDLargeImageTests {
    @Test(arguments: ["velox_4096_head.emd", "berkeley_4096_head.emd"])
    func a4096By4096FloatImageReadsWhole(name: String) throws {
        let facts = try #require(try EMDReaderTests.expected()[name] as? [String: Any])
        let (width, height) = (try #require(facts["width"] as? Int), try #require(facts["height"] as? Int))
        let columnsFirst = try #require(facts["columnsFirst"] as? Bool)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: EMDReaderTests.fixtures + name)))
        #expect(bytes.count == facts["samplesStartAt"] as? Int)
        let value: (Int) -> Float = { Float($0 % 65_521) * 0.25 - 1000 }
        var samples = (0..<width * height).map(value)
        samples.withUnsafeBytes { bytes.append(contentsOf: $0) } // little-endian, as the file declares
        samples = []
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sonic-emd-large-\(UUID().uuidString).emd"
        ).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        bytes = []

        let read = try #require(try EMDReader.contents(path: path).entries.first?.read())
        #expect(read.width == width && read.height == height && read.sampleType == .float32)
        for (x, y) in [(0, 0), (1, 0), (width - 1, 0), (0, 1), (17, 2048), (width - 1, height - 1)] {
            // The file's own order: rows one after another, or columns one after another.
            let stored = columnsFirst ? x * height + y : y * width + x
            #expect(read.samples[y * width + x] == value(stored), "pixel (\(x), \(y))")
        }
    }
}
