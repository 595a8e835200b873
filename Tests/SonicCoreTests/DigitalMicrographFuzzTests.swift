import SampleWriters
import SonicCore
import TestSupport
import Testing

/// Seeded mutations of writer-made files: every input gives contents whose images read (or refuse
/// to read) cleanly, or an ImageFileError; a crash or any other error fails the test.
@Suite struct DigitalMicrographFuzzTests {
    /// SplitMix64: the same seed gives the same inputs on every run and platform.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Values that sit on the edges of counts, sizes, types and the image limit.
    static let interesting: [UInt64] = [
        0, 1, 2, 3, 4, 7, 8, 15, 18, 20, 21, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000,
        8192, 8193, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 1 << 32, 1 << 61, 1 << 62, UInt64(Int64.max), UInt64.max
    ]

    static let seeds: [[UInt8]] = [(3, true), (3, false), (4, true), (4, false)].map { version, littleEndian in
        SampleDM(
            version: version, littleEndian: littleEndian,
            images: [
                .init(title: "Image Of µ", dimensions: [2, 2], dataType: .rgba, values: [1, 2, 3, 4]),
                .init(
                    title: "image", dimensions: [3, 2], dataType: version == 3 ? .int16 : .float64,
                    values: [-1, 2, -3, 4, 5.5, 6],
                    axes: [.init(scale: 0.5, origin: 1, units: "nm"), .init(scale: 2, units: "1/nm")]),
                .init(title: "spectrum", dimensions: [4], dataType: .float32, values: [1, 2, 3, 4]),
                .init(title: "fft", dimensions: [1, 2], dataType: .complex64, values: [1, 0, 0, 1])
            ]
        ).bytes
    }

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 2:
                bytes.insert(
                    contentsOf: (0..<Int.random(in: 1...16, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    },
                    at: at)
            case 3:
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...32, using: &random)))
            case 4:
                bytes.removeSubrange(at..<bytes.count)
            case 5 where !bytes.isEmpty:
                // Splice: a chunk of the file copied over another place.
                let from = Int.random(in: 0..<bytes.count, using: &random)
                let length = min(Int.random(in: 1...64, using: &random), bytes.count - from, bytes.count - at)
                bytes.replaceSubrange(at..<at + length, with: Array(bytes[from..<from + length]))
            default:
                let value = interesting.randomElement(using: &random) ?? 0
                let width = [1, 2, 4, 8].randomElement(using: &random) ?? 4
                guard at + width <= bytes.count else { continue }
                let bigEndian = Bool.random(using: &random)
                for index in 0..<width {
                    let shift = bigEndian ? width - 1 - index : index
                    bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))
                }
            }
        }
        return bytes
    }

    @Test func mutatedFilesGiveContentsOrAnImageFileError() {
        var random = SeededGenerator(state: 0xD1A6_0D3F)
        var accepted = 0, refused = 0, planes = 0
        for index in 0..<4000 {
            let input = Self.mutate(Self.seeds[index % Self.seeds.count], using: &random)
            do {
                let contents = try DigitalMicrograph.contents(of: input)
                accepted += 1
                for entry in contents.entries where entry.isImage {
                    do {
                        let plane = try entry.read()
                        #expect(plane.width == entry.width && plane.height == entry.height)
                        planes += 1
                    } catch is ImageFileError {
                    } catch {
                        Issue.record("input \(index): read() threw \(error)")
                    }
                }
            } catch {
                refused += 1
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "input \(index)")
            }
        }
        // The mutations reach both outcomes, and images still read from damaged files.
        #expect(
            accepted > 200 && refused > 2000 && planes > 200, "\(accepted) accepted, \(refused) refused, \(planes) read"
        )
    }
}
