/// A chunked dataset's chunk index, read from the file itself in one walk: the version-1 B-tree that
/// files written for HDF5 1.8's readers keep (h5py's and HyperSpy's by default, Velox's), found
/// through the layout message in the dataset's object header. libhdf5 1.10 lists chunks only one
/// at a time, each lookup going through the chunks from the first; this reads each node once.
///
/// Anything it does not expect — another kind of index, a node out of place, a chunk outside the
/// dataset, missing or listed twice — gives nil, and the caller asks the library instead.
package struct ChunkIndex {
    /// One chunk: where it lies in the file, its stored size and which filters it skipped.
    package struct Chunk: Equatable {
        package var offset: Int
        package var size: Int
        package var skippedFilters: Int

        package init(offset: Int, size: Int, skippedFilters: Int) {
            self.offset = offset
            self.size = size
            self.skippedFilters = skippedFilters
        }
    }

    /// `count` bytes from `offset` in the file, or nil where the file has fewer.
    let read: (_ offset: Int, _ count: Int) -> [UInt8]?
    /// Bytes in a file address and in a length: the superblock's sizes.
    let addressSize: Int
    let lengthSize: Int
    /// Where the file's address 0 lies (past a user block).
    let base: Int

    package init(
        addressSize: Int, lengthSize: Int, base: Int, read: @escaping (_ offset: Int, _ count: Int) -> [UInt8]?
    ) {
        self.addressSize = addressSize
        self.lengthSize = lengthSize
        self.base = base
        self.read = read
    }

    /// The most of an object header read, over all its blocks: far more than any dataset's needs.
    static let mostHeaderBytes = 4 << 20
    /// The deepest B-tree walked: far more than 2⁶⁴ chunks would need.
    static let deepestLevel = 64
    static let layoutMessage = 0x0008, continuationMessage = 0x0010
    static let chunkedLayout = 2, rawDataNode = 1

    /// Every chunk of the dataset whose object header is at `header` (a file address), in the order
    /// of their coordinates, the last dimension fastest; nil unless the walk finds each exactly once.
    package func chunks(header: Int, dims: [Int], chunks: [Int], elementSize: Int) -> [Chunk]? {
        guard !dims.isEmpty, dims.count == chunks.count, dims.allSatisfy({ $0 > 0 }), chunks.allSatisfy({ $0 > 0 }),
            let index = layout(header: header), index.extent == chunks + [elementSize]
        else { return nil }
        let grid = zip(dims, chunks).map { ($0 - 1) / $1 + 1 }
        var count = 1
        for extent in grid {
            let (product, overflow) = count.multipliedReportingOverflow(by: extent)
            guard !overflow, product <= ChunkTable.mostListed else { return nil }
            count = product
        }
        var found = [Chunk?](repeating: nil, count: count)
        var listed = 0
        // A tree of `count` chunks has fewer nodes than chunks, and as many entries in its inner nodes.
        var nodesLeft = count + 16, entriesLeft = 2 * count + 16
        var visited = Set<Int>()
        var pending: [(address: Int, level: Int?)] = [(index.btree, nil)]
        while let (address, expectedLevel) = pending.popLast().map({ ($0.address, $0.level) }) {
            nodesLeft -= 1
            guard nodesLeft >= 0, visited.insert(address).inserted,
                let node = node(at: address, dimensions: dims.count + 1, mostEntries: entriesLeft),
                expectedLevel.map({ $0 == node.level }) ?? (node.level <= Self.deepestLevel)
            else { return nil }
            entriesLeft -= node.entries.count
            if node.level > 0 {
                // Last pushed is first walked: children in reverse keep the walk in key order.
                for entry in node.entries.reversed() {
                    guard let child = at(entry.child) else { return nil }
                    pending.append((child, node.level - 1))
                }
                continue
            }
            for entry in node.entries {
                var place = 0
                for dimension in dims.indices {
                    let start = entry.start[dimension]
                    guard start >= 0, start % chunks[dimension] == 0, start < dims[dimension] else { return nil }
                    place = place * grid[dimension] + start / chunks[dimension]
                }
                guard entry.start[dims.count] == 0, found[place] == nil, entry.size > 0,
                    let offset = at(entry.child)
                else { return nil }
                found[place] = Chunk(offset: offset, size: entry.size, skippedFilters: entry.skippedFilters)
                listed += 1
            }
        }
        guard listed == count else { return nil }
        return found.compactMap { $0 }
    }

    /// The B-tree's address and the chunks' extent (with the element's size last) that the
    /// dataset's layout message gives, when it keeps its chunks in a version-1 B-tree.
    package func layout(header: Int) -> (btree: Int, extent: [Int])? {
        guard let message = message(Self.layoutMessage, header: header) else { return nil }
        var reader = Bytes(message)
        let dimensionality: Int
        switch reader.integer(1) {
        case 1, 2:
            // Dimensionality, class, five reserved bytes, then the address.
            guard let count = reader.integer(1), reader.integer(1) == Self.chunkedLayout, reader.skip(5) else {
                return nil
            }
            dimensionality = count
        case 3:
            guard reader.integer(1) == Self.chunkedLayout, let count = reader.integer(1) else { return nil }
            dimensionality = count
        default:
            return nil
        }
        guard (2...33).contains(dimensionality), let btree = reader.integer(addressSize), let btreeAt = at(btree)
        else { return nil }
        var extent: [Int] = []
        for _ in 0..<dimensionality {
            guard let size = reader.integer(4) else { return nil }
            extent.append(size)
        }
        return (btreeAt, extent)
    }

    /// The first message of type `type` in the object header at `header` (a file address),
    /// following its continuations: a version 1 header, or a version 2 one ("OHDR").
    func message(_ type: Int, header: Int) -> [UInt8]? {
        guard let start = at(header), let prefix = read(start, 16) else { return nil }
        var blocks: [(offset: Int, length: Int)]
        let version2 = prefix.starts(with: Array("OHDR".utf8))
        // Version 2 messages carry their creation order where the header's flags say so.
        var orderBytes = 0
        if version2 {
            guard prefix[4] == 2 else { return nil }
            let flags = Int(prefix[5])
            orderBytes = flags & 0x04 != 0 ? 2 : 0
            let sizeAt = 6 + (flags & 0x20 != 0 ? 16 : 0) + (flags & 0x10 != 0 ? 4 : 0)
            let sizeBytes = 1 << (flags & 3)
            guard let sizeField = read(start + sizeAt, sizeBytes), let length = Bytes.integer(sizeField)
            else { return nil }
            blocks = [(start + sizeAt + sizeBytes, length)]
        } else {
            guard prefix[0] == 1, let length = Bytes.integer(Array(prefix[8..<12])) else { return nil }
            blocks = [(start + 16, length)]
        }
        var walked = 0, bytesLeft = Self.mostHeaderBytes
        while walked < blocks.count {
            var (offset, length) = blocks[walked]
            if version2 && walked > 0 {
                // "OCHK", the messages, then a checksum.
                guard read(offset, 4) == Array("OCHK".utf8), length >= 8 else { return nil }
                offset += 4
                length -= 8
            }
            walked += 1
            bytesLeft -= length
            guard length >= 0, bytesLeft >= 0, let bytes = read(offset, length) else { return nil }
            var reader = Bytes(bytes)
            while reader.left >= (version2 ? 4 + orderBytes : 8) {
                guard let found = reader.integer(version2 ? 1 : 2), let size = reader.integer(2),
                    reader.skip(version2 ? 1 + orderBytes : 4), let data = reader.take(size)
                else { break }
                if found == type { return data }
                if found == Self.continuationMessage {
                    var continuation = Bytes(data)
                    guard let address = continuation.integer(addressSize),
                        let next = continuation.integer(lengthSize), let nextAt = at(address)
                    else { return nil }
                    blocks.append((nextAt, next))
                }
            }
        }
        return nil
    }

    /// One B-tree node's level and entries (nil for more than `mostEntries`): each entry's key (stored size, skipped filters, starting
    /// coordinates with the element's offset last) and child (a node below, or at level 0 a chunk).
    func node(at offset: Int, dimensions: Int, mostEntries: Int)
        -> (level: Int, entries: [(size: Int, skippedFilters: Int, start: [Int], child: Int)])?
    {
        let headerLength = 8 + 2 * addressSize
        guard let header = read(offset, headerLength), header.starts(with: Array("TREE".utf8)),
            Int(header[4]) == Self.rawDataNode
        else { return nil }
        let level = Int(header[5]), count = Int(header[6]) | Int(header[7]) << 8
        let keyLength = 8 + 8 * dimensions
        guard count > 0, count <= mostEntries,
            let body = read(offset + headerLength, count * (keyLength + addressSize) + keyLength)
        else {
            return nil
        }
        var reader = Bytes(body)
        var entries: [(size: Int, skippedFilters: Int, start: [Int], child: Int)] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let size = reader.integer(4), let skipped = reader.integer(4) else { return nil }
            var start: [Int] = []
            for _ in 0..<dimensions {
                guard let coordinate = reader.integer(8) else { return nil }
                start.append(coordinate)
            }
            guard let child = reader.integer(addressSize) else { return nil }
            entries.append((size, skipped, start, child))
        }
        return (level, entries)
    }

    /// Where file address `address` lies in the file; nil for the undefined address or one out of range.
    func at(_ address: Int) -> Int? {
        guard address >= 0, address < Int.max / 2, address != (1 << (8 * addressSize)) - 1 else { return nil }
        return base + address
    }
}

/// Little-endian integers read from the front of some bytes.
private struct Bytes {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var left: Int { bytes.count - at }

    /// An unsigned integer of `width` bytes; nil when fewer are left or it does not fit an `Int`.
    mutating func integer(_ width: Int) -> Int? {
        guard width >= 1, width <= 8, left >= width else { return nil }
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(bytes[at + index]) << (8 * UInt64(index)) }
        at += width
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// All of `bytes` as one integer.
    static func integer(_ bytes: [UInt8]) -> Int? {
        var reader = Bytes(bytes)
        return reader.integer(bytes.count)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, left >= count else { return false }
        at += count
        return true
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, left >= count else { return nil }
        defer { at += count }
        return Array(bytes[at..<(at + count)])
    }
}
