import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// A slice of the fuzzing campaign (`scripts/fuzz` runs 100 000 inputs of each kind): damaged image
    /// files of every format, spectra and stacks, the HDF5 helper's answers, Velox's EDS streams,
    /// damaged session logs, the lesson's progress files, and BrlAPI's key codes and display sizes through the program's own readers, each giving
    /// its result or a clean error — the fuzzer stops with status 2 and the culprit at the first crash,
    /// hang or wrong result.
    @Suite struct FuzzTests {
        static let shared = SharedFormats.missing == nil ? SharedFormats.folder : nil

        static func seeds(_ kind: String) throws -> [String] {
            func files(_ folder: String, _ extensions: [String]) throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
                    extensions.contains { name.hasSuffix("." + $0) }
                }.sorted().map { folder + "/" + $0 }
            }
            let repository = Fixtures.repository
            switch kind {
            case "png": return try files(repository + "/images", ["png"])
            case "dm":
                return try files(repository + "/images", ["dm4"])
                    + (try shared.map { try files($0, ["dm3", "dm4"]) } ?? [])
            case "tiff": return try files(repository + "/Tests/Fixtures/tiff", ["tif"])
            case "hdf5-index":
                let fixtures = try files(repository + "/Tests/Fixtures/emd", ["emd"]).filter {
                    ["/velox_eels.emd", "/velox_stack.emd", "/velox_two_detectors.emd"].contains(where: $0.hasSuffix)
                }
                return try files(repository + "/Tests/Fixtures/hspy", ["hspy"]) + fixtures
                    + (try shared.map { try files($0 + "/spectra", ["hspy", "emd"]) + files($0, ["emd"]) } ?? [])
            case "bcf":
                return try files(repository + "/Tests/Fixtures/bcf", ["bcf"])
                    + (try shared.map { try files($0 + "/spectra", ["bcf"]) } ?? [])
            case "spectra": return try shared.map { try files($0 + "/spectra", ["dm3", "dm4"]) } ?? []
            case "hspy", "hspy-survey":
                return try files(repository + "/Tests/Fixtures/hspy", ["hspy"])
                    + (try shared.map { try files($0 + "/spectra", ["hspy"]) } ?? [])
            case "velox", "velox-survey", "velox-stream":
                let fixtures = try files(repository + "/Tests/Fixtures/emd", ["emd"]).filter {
                    $0.hasSuffix("stream.emd")
                        || (kind != "velox-stream"
                            && ($0.hasSuffix("/velox_spectrum.emd") || $0.hasSuffix("/velox_eels.emd")))
                }
                return fixtures + (try shared.map { try files($0 + "/spectra", ["emd"]) } ?? [])
            default:
                // Not the files that already break the library (every damage to them hangs it for the
                // reader's 20 s), nor those cut short for the full-size test.
                let fixtures = try files(repository + "/Tests/Fixtures/emd", ["emd", "h5"]).filter {
                    !$0.contains("/hostile_") && !$0.contains("_head.")
                }
                return fixtures + (try shared.map { try files($0, ["emd"]) } ?? [])
            }
        }

        @Test(arguments: ["png", "dm", "tiff", "emd", "hspy", "velox", "bcf"])
        func damagedImageFilesGiveImagesOrCleanErrors(kind: String) throws {
            try fuzzImages(kind)
        }

        /// The DigitalMicrograph spectrum images, line scans, spectra and stacks are seeded from the shared files alone.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func damagedSpectraGiveSignalsOrCleanErrors() throws {
            try fuzzImages("spectra")
        }

        private func fuzzImages(_ kind: String) throws {
            let seeds = try Self.seeds(kind)
            try #require(!seeds.isEmpty)
            let fuzz = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/fuzz"
            // HDF5 runs in a helper the reader stops after 20 s when the library hangs on a damaged file:
            // fewer inputs, and more time for each, than for the formats read in the program itself.
            let (count, timeout) =
                switch kind {
                case "emd": (500, 200)
                case "hspy", "velox": (20, 200)
                default: (2000, 20)
                }
            let result = try Subprocess.run(
                fuzz, ["images", "--count", String(count), "--seed", "7", "--timeout", String(timeout)] + seeds,
                timeout: 600)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("fuzz images: \(count) inputs"), "\(result.output)")
            // Some damage leaves a file readable: none accepted would mean the reader itself is broken.
            let accepted = result.output.firstMatch(of: /: (\d+) accepted/).flatMap { Int($0.1) } ?? 0
            #expect(accepted > 0, "\(result.output)")
        }

        /// The helper's answers about the HDF5 seeds, the Velox seeds' EDS streams and the chunk index the
        /// program walks in the seeds' files, damaged and interpreted in the fuzzer's own process: no
        /// helper per input, so as many as for an image format.
        @Test(arguments: ["hspy-survey", "velox-survey", "velox-stream", "hdf5-index"])
        func damagedSurveysAndStreamsGiveEntriesOrCleanErrors(kind: String) throws {
            let seeds = try Self.seeds(kind)
            try #require(!seeds.isEmpty)
            let fuzz = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/fuzz"
            let target = ["velox-stream": "streams", "hdf5-index": "indexes"][kind] ?? "surveys"
            let result = try Subprocess.run(fuzz, [target, "--count", "500", "--seed", "7"] + seeds, timeout: 600)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("fuzz \(target): 500 inputs"), "\(result.output)")
            let accepted = result.output.firstMatch(of: /: (\d+) accepted/).flatMap { Int($0.1) } ?? 0
            #expect(accepted > 0, "\(result.output)")
        }

        @Test func damagedBrailleKeysAndSizesAreAnsweredWithinTheDisplay() throws {
            let seed = Fixtures.repository + "/Tests/Fixtures/braille/keys-and-sizes.bin"
            let fuzz = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/fuzz"
            let result = try Subprocess.run(fuzz, ["braille", "--count", "2000", "--seed", "7", seed], timeout: 600)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("fuzz braille: 2000 inputs"), "\(result.output)")
        }

        @Test func damagedLessonProgressIsRefusedOrReadBackAsWritten() throws {
            let folder = Fixtures.repository + "/Tests/Fixtures/lesson"
            let seeds = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
                .sorted().map { folder + "/" + $0 }
            let fuzz = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/fuzz"
            let result = try Subprocess.run(fuzz, ["lessons", "--count", "2000", "--seed", "7"] + seeds, timeout: 600)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("fuzz lessons: 2000 inputs"), "\(result.output)")
            let accepted = result.output.firstMatch(of: /: (\d+) accepted/).flatMap { Int($0.1) } ?? 0
            #expect(accepted > 0, "\(result.output)")
        }

        @Test func damagedSessionLogsAreRefusedOrReplayedWithinBounds() throws {
            let folder = Fixtures.repository + "/Tests/Fixtures/logs"
            let seeds = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jsonl") }
                .sorted().map { folder + "/" + $0 }
            let fuzz = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/fuzz"
            let result = try Subprocess.run(
                fuzz,
                [
                    "logs", "--count", "500", "--seed", "7", "--image",
                    Fixtures.repository + "/images/atomic-lattice.png", "--profile",
                    Fixtures.repository + "/profiles/classic.toml"
                ] + seeds, timeout: 600)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("fuzz logs: 500 inputs"), "\(result.output)")
        }
    }
}
