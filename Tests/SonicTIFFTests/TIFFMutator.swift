import SonicCore

/// Damages TIFF files the way a fuzzer does: bit flips, random bytes, insertions, deletions,
/// truncations, splices from another file, and awkward integers written over the length, count
/// and offset fields of directory entries (found by walking the IFDs, so most land on real fields).
struct TIFFMutator {
    static let awkward: [UInt64] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000,
        0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF, 1 << 32,
        0x7FFF_FFFF_FFFF_FFFF, .max
    ]

    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(random.next() % UInt64(bound)) }

    /// One to four damages to `bytes`; `donor` provides spliced material.
    mutating func mutate(_ bytes: [UInt8], donor: [UInt8]) -> [UInt8] {
        var result = bytes
        for _ in 0..<(1 + below(4)) { mutateOnce(&result, donor: donor) }
        return result
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8], donor: [UInt8]) {
        switch below(9) {
        case 0 where !bytes.isEmpty:
            bytes[below(bytes.count)] ^= 1 << UInt8(below(8))
        case 1 where !bytes.isEmpty:
            for _ in 0..<(1 + below(8)) { bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
        case 2:
            let inserted = (0..<(1 + below(16))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: inserted, at: below(bytes.count + 1))
        case 3 where !bytes.isEmpty:
            let start = below(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + below(32)))
        case 4:
            bytes.removeLast(below(bytes.count + 1))
        case 5 where !donor.isEmpty:
            let start = below(donor.count)
            let piece = donor[start..<min(donor.count, start + 1 + below(64))]
            let at = below(bytes.count + 1)
            if below(2) == 0 {
                bytes.insert(contentsOf: piece, at: at)
            } else {
                bytes.replaceSubrange(at..<min(bytes.count, at + piece.count), with: piece)
            }
        default:
            writeAwkwardInteger(&bytes)
        }
    }

    /// An awkward integer (or one near the file's size) over a field of an entry, or anywhere.
    private mutating func writeAwkwardInteger(_ bytes: inout [UInt8]) {
        let fields = Self.entryFields(bytes)
        let at = fields.isEmpty || below(4) == 0 ? below(bytes.count) : fields[below(fields.count)]
        let near = [UInt64(bytes.count), UInt64(bytes.count) &- 1, UInt64(bytes.count) &+ 1]
        let value = below(4) == 0 ? near[below(near.count)] : Self.awkward[below(Self.awkward.count)]
        let width = [1, 2, 4, 8][below(4)]
        let bigEndian = bytes.first == 0x4D
        for i in 0..<width where at + i < bytes.count {
            let shift = UInt64(8 * (bigEndian ? width - 1 - i : i))
            bytes[at + i] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    /// Where the type, count and value fields of classic-TIFF directory entries start.
    static func entryFields(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count >= 8, bytes[0] == bytes[1], bytes[0] == 0x49 || bytes[0] == 0x4D else { return [] }
        let big = bytes[0] == 0x4D
        func read(_ at: Int, _ width: Int) -> Int? {
            guard at >= 0, at + width <= bytes.count else { return nil }
            return (0..<width).reduce(0) { value, i in
                value | Int(bytes[at + i]) << (8 * (big ? width - 1 - i : i))
            }
        }
        var fields: [Int] = []
        var offset = read(4, 4) ?? 0
        var visited = Set<Int>()
        while offset > 0, visited.insert(offset).inserted, visited.count < 64, let count = read(offset, 2) {
            for entry in 0..<count {
                let start = offset + 2 + 12 * entry
                guard start + 12 <= bytes.count else { break }
                fields += [start + 2, start + 4, start + 8]
            }
            offset = read(offset + 2 + 12 * count, 4) ?? 0
        }
        return fields
    }
}
