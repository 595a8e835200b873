import SonicCore

/// AidAim's Single File System, the container a Bruker `.bcf` file is: a header, then chunks of one
/// size, each a 32-byte header (the first 4 bytes: the next chunk of a chained table) and its data.
/// A table of items (files and folders, each naming its parent) and, per file, a table of the chunks
/// holding it, say where everything lies. Files may be compressed in zlib blocks.
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
    /// Blocks of a compressed file decompress to at most this, each.
    static let largestBlock = 1 << 26

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

    /// The whole of a file, decompressed, in memory.
    func contents(of item: Item) throws(ImageFileError) -> [UInt8] {
        let usable = self.usable
        var stored: [UInt8] = []
        stored.reserveCapacity(item.size)
        for (index, start) in item.pieces.enumerated() {
            let length = min(usable, item.size - index * usable)
            stored.append(contentsOf: file.buffer[start..<(start + length)])
        }
        guard stored.starts(with: Array("AACS".utf8)) else { return stored }
        // Compressed: a header (the block count at 12), then from 0x80 each block's 16-byte
        // header (its compressed and decompressed sizes) and its zlib stream.
        guard let blocks = stored.uint32(at: 12) else { throw ImageFileError("\(item.name) is cut short") }
        var output: [UInt8] = []
        var at = 0x80
        for _ in 0..<blocks {
            guard let compressed = stored.uint32(at: at), let decompressed = stored.uint32(at: at + 4),
                decompressed <= Self.largestBlock, at + 16 + compressed <= stored.count
            else { throw ImageFileError("\(item.name) is damaged: a compressed block runs past its end") }
            try Inflate.zlib(stored[(at + 16)..<(at + 16 + compressed)], count: decompressed, into: &output)
            at += 16 + compressed
        }
        return output
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
