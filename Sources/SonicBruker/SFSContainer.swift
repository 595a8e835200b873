import SonicCore

/// AidAim's Single File System, the container a Bruker `.bcf` file is: a header, then chunks of one
/// size, each a 32-byte header (the first 4 bytes: the next chunk of a chained table) and its data.
/// A table of items (files and folders, each naming its parent) and, per file, a table of the chunks
/// holding it, say where everything lies. Files may be compressed in zlib blocks (see `SFSStream`).
struct SFSContainer {
    struct Item {
        let name: String
        /// The item's folder among the items, or -1 for the root.
        let parent: Int
        let isFolder: Bool
        /// The stored size, in bytes.
        let size: Int
        /// Where each piece of the file starts in the container.
        let pieces: [Int]
    }

    static let magic = Array("AAMVHFSS".utf8)
    /// Where chunk 0 starts; a chunk's data follows its 32-byte header.
    static let firstChunk = 0x118, chunkHeader = 0x20
    static let itemSize = 0x200

    let file: FileBytes
    let chunkSize: Int
    let items: [Item]

    private var usable: Int { chunkSize - Self.chunkHeader }

    init(_ file: FileBytes) throws(ImageFileError) {
        self.file = file
        guard file.count >= 0x14C, Array(file.buffer[0..<8]) == Self.magic else {
            throw ImageFileError("not a Bruker file: its container's signature is missing")
        }
        let chunkSize = Self.uint32(file, at: 0x128)
        guard chunkSize >= Self.chunkHeader + Self.itemSize, chunkSize <= 1 << 24 else {
            throw ImageFileError("a Bruker container whose chunks are \(chunkSize) bytes")
        }
        self.chunkSize = chunkSize
        let (treeChunk, itemCount) = (Self.uint32(file, at: 0x140), Self.uint32(file, at: 0x144))
        guard itemCount > 0, itemCount * Self.itemSize <= file.count else {
            throw ImageFileError("a Bruker container of \(itemCount) items in \(file.count) bytes")
        }
        let usable = chunkSize - Self.chunkHeader
        let table = try Self.chained(
            file, chunkSize: chunkSize, first: treeChunk, bytes: itemCount * Self.itemSize,
            perChunk: usable / Self.itemSize * Self.itemSize)
        var items: [Item] = []
        for index in 0..<itemCount {
            let at = index * Self.itemSize
            let pointers = Int(Int32(truncatingIfNeeded: table.uint32(at: at)!))
            let size = Int(truncatingIfNeeded: table.unsigned(at: at + 4, size: 8)!)
            let parent = Int(Int32(truncatingIfNeeded: table.uint32(at: at + 40)!))
            let isFolder = table[at + 220] != 0
            let stored = String(decoding: table[(at + 224)..<(at + 480)].prefix { $0 != 0 }, as: UTF8.self)
            let name = stored.isEmpty ? "item \(index)" : stored
            guard parent >= -1, parent < itemCount else {
                throw ImageFileError("a Bruker container whose item \(index) has no folder")
            }
            var pieces: [Int] = []
            if !isFolder {
                guard size >= 0, size <= file.count else {
                    throw ImageFileError("a Bruker container whose \(name) is \(size) bytes, more than the file")
                }
                let count = (size + usable - 1) / usable
                let pointerBytes = try Self.chained(
                    file, chunkSize: chunkSize, first: pointers, bytes: count * 4, perChunk: usable / 4 * 4)
                for piece in 0..<count {
                    let start = Self.firstChunk + pointerBytes.uint32(at: piece * 4)! * chunkSize + Self.chunkHeader
                    let length = piece == count - 1 ? size - piece * usable : usable
                    guard start + length <= file.count else {
                        throw ImageFileError("a Bruker container whose \(name) runs past the end of the file")
                    }
                    pieces.append(start)
                }
            }
            items.append(Item(name: name, parent: parent, isFolder: isFolder, size: size, pieces: pieces))
        }
        self.items = items
    }

    /// The file at `path` (folder names, then the file's), if there is one.
    func item(_ path: [String]) -> Item? {
        items.indices.first { self.path(of: $0) == path && !items[$0].isFolder }.map { items[$0] }
    }

    /// The names from the root down to item `index`.
    func path(of index: Int) -> [String] {
        var names: [String] = []
        var at = index
        while at >= 0, names.count <= items.count {
            names.append(items[at].name)
            at = items[at].parent
        }
        return names.reversed()
    }

    /// The stored bytes `range` of a file (inside its size), gathered from its pieces. The stretches of the
    /// container read are given back (see `FileBytes.doneReading`): a hypermap is gone through once.
    func stored(_ item: Item, _ range: Range<Int>) -> [UInt8] {
        let usable = self.usable
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        var read: Range<Int>?
        var at = range.lowerBound
        while at < range.upperBound {
            let piece = at / usable
            let end = min(range.upperBound, (piece + 1) * usable)
            let start = item.pieces[piece] + at - piece * usable
            bytes.append(contentsOf: file.buffer[start..<(start + end - at)])
            // Pieces that follow each other in the container are given back together.
            if let run = read, run.upperBound == start {
                read = run.lowerBound..<(start + end - at)
            } else {
                read.map(file.doneReading)
                read = start..<(start + end - at)
            }
            at = end
        }
        read.map(file.doneReading)
        return bytes
    }

    /// `bytes` bytes of a table that starts in chunk `first` and, when longer than `perChunk`,
    /// goes on in the chunk each chunk's header names.
    private static func chained(
        _ file: FileBytes, chunkSize: Int, first: Int, bytes: Int, perChunk: Int
    ) throws(ImageFileError) -> [UInt8] {
        var table: [UInt8] = []
        var chunk = first
        while table.count < bytes {
            let start = firstChunk + chunk * chunkSize
            let take = min(perChunk, bytes - table.count)
            guard chunk >= 0, start + chunkHeader + take <= file.count else {
                throw ImageFileError("a Bruker container whose tables point past the end of the file")
            }
            table.append(contentsOf: file.buffer[(start + chunkHeader)..<(start + chunkHeader + take)])
            chunk = uint32(file, at: start)
        }
        return table
    }

    private static func uint32(_ file: FileBytes, at offset: Int) -> Int {
        guard offset + 4 <= file.count else { return 0 }
        return (0..<4).reduce(0) { $0 | Int(file.buffer[offset + $1]) << (8 * $1) }
    }
}
