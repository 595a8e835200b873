import Foundation
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// Damaged, hostile and missing files: each gives one ImageFileError line, never a crash or a hang.
@Suite struct EMDDamageTests {
    static let fixtures = EMDReaderTests.fixtures
    static let fixtureNames = [
        "velox_two_detectors.emd", "velox_stack.emd", "velox_spectrum.emd",
        "berkeley_image.emd", "berkeley_stack.emd"
    ]
    /// Short limits, so that a file that hangs the library costs the suite seconds, not minutes.
    static let quick = ChildProcess.Limits(seconds: 3, memoryBytes: 1 << 30)

    /// A folder of its own for the files a test writes, removed afterwards.
    final class Scratch {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sonic-emd-\(UUID().uuidString)")
            .path

        init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: folder) }

        func write(_ bytes: [UInt8], as name: String) throws -> String {
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + name)))
    }

    func expectError(_ path: String, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try EMDReader.contents(path: path, listing: Self.quick, reading: Self.quick)
        } throws: { error in
            let message = "\(error)"
            return error is ImageFileError && message.contains(text) && !message.contains("\n")
        }
    }

    @Test func missingFilesFoldersAndEmptyFiles() throws {
        let scratch = try Scratch()
        expectError(scratch.folder + "/absent.emd", containing: "no such file")
        expectError(scratch.folder, containing: "not a regular file")
        expectError(try scratch.write([], as: "empty.emd"), containing: "the file is empty")
    }

    @Test func garbageIsNotHDF5() throws {
        let scratch = try Scratch()
        expectError(
            try scratch.write(Array("hello, this is text, not data\n".utf8), as: "text.emd"),
            containing: "not an HDF5 file")
        var random = SeededRandom(seed: 7)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        expectError(try scratch.write(noise, as: "noise.emd"), containing: "not an HDF5 file")
        // The signature alone, then noise: a superblock that makes no sense.
        let signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
        expectError(try scratch.write(signature + noise, as: "signature.emd"), containing: "HDF5")
    }

    @Test func truncatedFilesSayTheyAreTruncated() throws {
        let scratch = try Scratch()
        for name in Self.fixtureNames {
            let whole = try Self.bytes(name)
            for eighth in 1..<8 {
                let path = try scratch.write(Array(whole.prefix(whole.count * eighth / 8)), as: "\(eighth)-\(name)")
                expectError(path, containing: "the file is truncated")
            }
        }
    }

    @Test func hdf5FilesThatAreNotEMDAreRefused() {
        expectError(Self.fixtures + "not_emd.h5", containing: "an HDF5 file, but not an EMD file")
    }

    @Test func datasetsOfStringsAndOtherFilesAreListedButNotRead() throws {
        let entries = try EMDReader.contents(path: Self.fixtures + "berkeley_stack.emd").entries
        let words = try #require(entries.first { $0.title == "words" })
        #expect(!words.isImage && words.unsupported == "not numeric data")
        #expect { try words.read() } throws: { "\($0)" == "not numeric data" }
        let elsewhere = try #require(entries.first { $0.title == "elsewhere" })
        #expect(!elsewhere.isImage && elsewhere.unsupported == "data kept in other files")
    }

    @Test func absurdDimensionsAreRefusedBeforeAllocating() throws {
        let entries = try EMDReader.contents(path: Self.fixtures + "berkeley_stack.emd").entries
        let huge = try #require(entries.first { $0.title == "huge" })
        #expect(huge.shape == [100_000, 3000])
        #expect { try huge.read() } throws: {
            "\($0)" == "the image is 100000 × 3000 pixels, more than the 8192 × 8192 limit"
        }
    }

    /// Files on which libhdf5 1.10.8 crashes and loops forever: an error, in the time allowed.
    @Test func filesThatBreakTheLibraryGiveAnErrorInTime() {
        let limits = ChildProcess.Limits(seconds: 2, memoryBytes: 1 << 30)
        for name in ["hostile_crash.emd", "hostile_loop.emd"] {
            let start = Date()
            #expect("\(name)") {
                try EMDReader.contents(path: Self.fixtures + name, listing: limits, reading: limits)
            } throws: { error in
                let message = "\(error)"
                return error is ImageFileError && message.contains("HDF5") && !message.contains("\n")
            }
            #expect(Date().timeIntervalSince(start) < 5, "\(name)")
        }
    }

    /// Seeded byte flips, overwritten integers, insertions, deletions, truncations and splices of the
    /// fixtures: contents or an error, every plane the size its entry announced.
    @Test func mutatedFilesGiveContentsOrAnError() throws {
        let scratch = try Scratch()
        let seeds = try Self.fixtureNames.map(Self.bytes)
        var random = SeededRandom(seed: 2024)
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(max(n, 1))) }
        let interesting: [UInt64] = [0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, .max, 8193]
        var listed = 0
        for round in 0..<250 {
            var bytes = seeds[below(seeds.count)]
            for _ in 0...below(3) {
                switch below(6) {
                case 0: for _ in 0...below(8) { bytes[below(bytes.count)] ^= UInt8(1 << below(8)) }
                case 1:
                    let at = below(bytes.count), value = interesting[below(interesting.count)]
                    for i in 0..<[1, 2, 4, 8][below(4)] where at + i < bytes.count {
                        bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
                    }
                case 2:
                    bytes.insert(
                        contentsOf: (0...below(32)).map { _ in UInt8(truncatingIfNeeded: random.next()) },
                        at: below(bytes.count))
                case 3: bytes.removeSubrange(below(bytes.count / 2)..<(bytes.count / 2 + below(bytes.count / 2)))
                case 4: bytes.removeLast(below(bytes.count - 1))
                default:
                    let other = seeds[below(seeds.count)]
                    let from = below(other.count), at = below(bytes.count)
                    let count = min(below(2048), other.count - from, bytes.count - at)
                    bytes.replaceSubrange(at..<at + count, with: other[from..<from + count])
                }
            }
            let path = try scratch.write(bytes, as: "\(round).emd")
            do {
                let contents = try EMDReader.contents(path: path, listing: Self.quick, reading: Self.quick)
                listed += 1
                for entry in contents.entries.prefix(4) where entry.isImage {
                    do {
                        let plane = try entry.read()
                        #expect(plane.width == entry.width && plane.height == entry.height)
                    } catch {
                        expectOneLine(error)
                    }
                }
            } catch {
                expectOneLine(error)
            }
            try FileManager.default.removeItem(atPath: path)
        }
        // Many mutations leave a readable file: the test must exercise reading, not only refusals.
        #expect(listed > 25)
    }

    func expectOneLine(_ error: any Error, sourceLocation: SourceLocation = #_sourceLocation) {
        let message = (error as? ImageFileError)?.message ?? ""
        #expect(!message.isEmpty && !message.contains("\n"), "\(error)", sourceLocation: sourceLocation)
    }

    @Test func repeatedOpensLeaveNoDescriptorsOrMemoryMapsBehind() throws {
        let path = Self.fixtures + "velox_stack.emd"
        func openDescriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        }
        func mappings() throws -> Int {
            try String(contentsOfFile: "/proc/self/maps", encoding: .utf8).split(separator: "\n").count
        }
        _ = try EMDReader.contents(path: path).entries.first?.read()
        let (descriptors, maps) = (try openDescriptors(), try mappings())
        for _ in 0..<100 {
            for entry in try EMDReader.contents(path: path).entries { _ = try entry.read() }
        }
        // Other tests run alongside and open files of their own: allow a little slack, not 100 or 300.
        #expect(try openDescriptors() <= descriptors + 8)
        #expect(try mappings() <= maps + 16)
    }

    @Test func manyThreadsCanReadAtOnce() async throws {
        let path = Self.fixtures + "velox_two_detectors.emd"
        let expected = try EMDReader.contents(path: path).entries.map { try $0.read() }
        try await withThrowingTaskGroup(of: [GrayImage].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try (0..<5).flatMap { _ in try EMDReader.contents(path: path).entries.map { try $0.read() } }
                }
            }
            for try await planes in group {
                #expect(planes == Array(repeating: expected, count: 5).flatMap { $0 })
            }
        }
    }
}
