/// Finds and rewrites fields of a classic TIFF file's directories, to make precisely damaged files.
struct TIFFPatcher {
    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// Where the entry's 4-byte value (or offset to its values) lies.
        var valueField: Int
    }

    struct Directory {
        var offset: Int
        var entries: [Entry]
        /// Where the offset of the next directory lies.
        var nextField: Int
    }

    var bytes: [UInt8]
    var bigEndian: Bool { bytes.first == 0x4D }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(_ at: Int, _ width: Int) -> Int {
        (0..<width).reduce(0) { value, i in value | Int(bytes[at + i]) << (8 * (bigEndian ? width - 1 - i : i)) }
    }

    mutating func write(_ value: Int, at: Int, width: Int) {
        for i in 0..<width {
            bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * (bigEndian ? width - 1 - i : i)))
        }
    }

    var directories: [Directory] {
        var result: [Directory] = []
        var offset = read(4, 4)
        while offset != 0, result.count < 16 {
            let count = read(offset, 2)
            let entries = (0..<count).map { i in
                let start = offset + 2 + 12 * i
                return Entry(
                    tag: read(start, 2), type: read(start + 2, 2), count: read(start + 4, 4), valueField: start + 8)
            }
            result.append(Directory(offset: offset, entries: entries, nextField: offset + 2 + 12 * count))
            offset = read(offset + 2 + 12 * count, 4)
        }
        return result
    }

    func entry(_ tag: Int, page: Int = 0) -> Entry? {
        directories[page].entries.first { $0.tag == tag }
    }

    /// Sets a one-value SHORT or LONG tag.
    mutating func set(_ tag: Int, to value: Int, page: Int = 0) {
        guard let entry = entry(tag, page: page) else { preconditionFailure("no tag \(tag) on page \(page)") }
        write(value, at: entry.valueField, width: entry.type == 3 ? 2 : 4)
    }

    /// The file offset of the first value of a SHORT or LONG array tag (in the entry when it fits).
    func firstValueOffset(_ tag: Int, page: Int = 0) -> (at: Int, width: Int)? {
        guard let entry = entry(tag, page: page) else { return nil }
        let width = entry.type == 3 ? 2 : 4
        return (entry.count * width <= 4 ? entry.valueField : read(entry.valueField, 4), width)
    }
}
