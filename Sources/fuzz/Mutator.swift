import SonicCore

/// Damages inputs the ways files get damaged and the ways attackers damage them: bit flips, random
/// bytes, interesting integers over length and offset fields, truncations, deletions, insertions and
/// pieces copied to the wrong place. Seeded: a run can be repeated exactly.
struct Mutator {
    private var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Values that break length, count and offset fields: zero, one, sign edges, all ones, huge.
    static let interesting: [UInt64] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000,
        0xFFFF_FFFF, 0x1_0000_0000, 0x7FFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 8192,
        8193, 65536
    ]

    /// Text that breaks a JSON line's numbers and structure.
    static let jsonPieces = [
        "1e308", "-1e308", "1e400", "NaN", "-0", "1e-320", "99999999999999999999", "null", "true",
        "[]", "{}", "\"\"", "[1e300]", ",", ":", "\"", "\\u0000", "\n"
    ].map { Array($0.utf8) }

    /// Numbers a session can hold but seldom does: edges of every field's range, far times, tiny scales.
    static let plausibleNumbers = [
        "0", "1", "0.999999", "89.9", "-89.9", "9999999", "-9999999", "10000", "1e-9", "32",
        "1001", "4599.5", "1003.25", "-0.5", "65535", "2.5e-7"
    ].map { Array($0.utf8) }

    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }

    /// One to six damages to a copy of `input`; `text` adds JSON-shaped ones.
    mutating func mutate(_ input: [UInt8], text: Bool = false) -> [UInt8] {
        var bytes = input
        // Half the damaged logs keep their syntax, so that their odd values reach the replay.
        let valuesOnly = text && below(2) == 0
        for _ in 0..<(1 + below(6)) {
            guard !bytes.isEmpty else { break }
            switch valuesOnly ? 10 + below(3) : below(text ? 13 : 8) {
            case 0, 1:
                bytes[below(bytes.count)] ^= UInt8(1 << below(8))
            case 2:
                bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            case 3:
                // An interesting integer over 1, 2, 4 or 8 bytes, either byte order: where lengths and offsets live.
                let width = 1 << below(4), value = Self.interesting[below(Self.interesting.count)]
                let at = below(max(1, bytes.count - width + 1)), bigEndian = below(2) == 0
                for k in 0..<min(width, bytes.count - at) {
                    let shift = UInt64(8 * (bigEndian ? width - 1 - k : k))
                    bytes[at + k] = UInt8(truncatingIfNeeded: value >> shift)
                }
            case 4:
                bytes.removeLast(below(bytes.count))
            case 5:
                let at = below(bytes.count), length = min(bytes.count - at, 1 + below(64))
                bytes.removeSubrange(at..<(at + length))
            case 6:
                let at = below(bytes.count + 1)
                bytes.insert(
                    contentsOf: (0..<(1 + below(16))).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            case 7:
                // A piece of the input copied over another place of it: plausible structure in the wrong spot.
                let from = below(bytes.count), to = below(bytes.count)
                let length = min(1 + below(256), bytes.count - max(from, to))
                if length > 0 { bytes.replaceSubrange(to..<(to + length), with: bytes[from..<(from + length)]) }
            case 8, 9:
                // A JSON piece over a number or in between: where a hostile log hides its values.
                replaceNumber(in: &bytes, with: Self.jsonPieces[below(Self.jsonPieces.count)], anywhere: true)
            case 10, 11:
                // A valid number at a field's edge: the log still reads, and the replay meets it.
                replaceNumber(
                    in: &bytes, with: Self.plausibleNumbers[below(Self.plausibleNumbers.count)], anywhere: false)
            default:
                // A whole line dropped, repeated or moved.
                var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
                let from = below(lines.count), line = lines.remove(at: from)
                if below(3) > 0 { lines.insert(line, at: below(lines.count + 1)) }
                if below(2) == 0 { lines.insert(line, at: below(lines.count + 1)) }
                bytes = Array(lines.joined(separator: [0x0A]))
            }
        }
        return bytes
    }

    /// Replaces the number at a random place (or, `anywhere`, whatever stands there) with `piece`.
    private mutating func replaceNumber(in bytes: inout [UInt8], with piece: [UInt8], anywhere: Bool) {
        func isNumeric(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || byte == 0x65
        }
        var at = below(bytes.count)
        if !anywhere {
            guard let found = bytes[at...].firstIndex(where: { $0 >= 0x30 && $0 <= 0x39 }) else { return }
            at = found
            while at > 0, isNumeric(bytes[at - 1]) { at -= 1 }
        }
        var end = at
        while end < bytes.count, isNumeric(bytes[end]) { end += 1 }
        bytes.replaceSubrange(at..<end, with: piece)
    }
}
