import SonicCore
import Synchronization

/// One file of an SFS container, read a stretch at a time and never held whole: its pieces are read in place from
/// the mapped container and, when it is compressed, its zlib blocks are decompressed as they are reached, the last
/// few kept. A compressed file starts "AACS": a header (its block count at 12), then from 0x80 each block's 16-byte
/// header (its compressed and decompressed sizes) and its zlib stream.
final class SFSStream: Sendable {
    private struct Block {
        /// Where its zlib stream starts among the stored bytes, and how long it is.
        let stored: Range<Int>
        /// Where its bytes start in the file decompressed.
        let start: Int
        let count: Int
    }

    let name: String
    /// The file's size, decompressed.
    let count: Int
    private let container: SFSContainer
    private let item: SFSContainer.Item
    /// Nil for a file stored as it is.
    private let blocks: [Block]?
    /// The blocks decompressed last, newest first.
    private let recent = Mutex<[(index: Int, bytes: [UInt8])]>([])
    static let blocksKept = 4
    /// A block decompresses to at most this.
    static let largestBlock = 1 << 26

    init(_ item: SFSContainer.Item, in container: SFSContainer) throws(ImageFileError) {
        self.container = container
        self.item = item
        name = item.name
        guard item.size >= 16, container.stored(item, 0..<4) == Array("AACS".utf8) else {
            blocks = nil
            count = item.size
            return
        }
        let blockCount = container.stored(item, 12..<16).reversed().reduce(0) { $0 << 8 | Int($1) }
        guard blockCount <= item.size / 16 else { throw ImageFileError("\(item.name) is damaged: too many blocks") }
        var blocks: [Block] = []
        var at = 0x80
        var total = 0
        for _ in 0..<blockCount {
            guard at + 16 <= item.size else { throw ImageFileError("\(item.name) is cut short") }
            let header = container.stored(item, at..<(at + 16))
            let compressed = header.uint32(at: 0)!, decompressed = header.uint32(at: 4)!
            guard decompressed <= Self.largestBlock, at + 16 + compressed <= item.size else {
                throw ImageFileError("\(item.name) is damaged: a compressed block runs past its end")
            }
            blocks.append(Block(stored: (at + 16)..<(at + 16 + compressed), start: total, count: decompressed))
            total += decompressed
            at += 16 + compressed
        }
        self.blocks = blocks
        count = total
    }

    /// The bytes `range` of the file (decompressed), cut at its end.
    func bytes(_ range: Range<Int>) throws(ImageFileError) -> [UInt8] {
        let range = range.clamped(to: 0..<count)
        guard let blocks else { return container.stored(item, range) }
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        // The first block holding `range`'s start: the last starting at or before it.
        var index = blocks.partitioningIndex { $0.start > range.lowerBound } - 1
        while output.count < range.count, index >= 0, index < blocks.count {
            let block = blocks[index]
            let bytes = try decompressed(index)
            let from = max(range.lowerBound, block.start) - block.start
            let to = min(range.upperBound, block.start + block.count) - block.start
            if to > from { output.append(contentsOf: bytes[from..<to]) }
            index += 1
        }
        return output
    }

    private func decompressed(_ index: Int) throws(ImageFileError) -> [UInt8] {
        if let kept = recent.withLock({ list in list.first { $0.index == index }?.bytes }) { return kept }
        let block = blocks![index]
        var bytes: [UInt8] = []
        try Inflate.zlib(container.stored(item, block.stored)[...], count: block.count, into: &bytes)
        recent.withLock { list in
            list.removeAll { $0.index == index }
            list.insert((index, bytes), at: 0)
            if list.count > Self.blocksKept { list.removeLast() }
        }
        return bytes
    }
}

extension Array {
    /// The first index whose element is past the point `isPast` marks, in an array ordered by it.
    fileprivate func partitioningIndex(where isPast: (Element) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if isPast(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
