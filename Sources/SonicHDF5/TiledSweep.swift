import Glibc
import SonicCore
import Synchronization

extension HDF5Spectra {
    /// No tile holds more values than this (128 MiB of floats): a chunk larger than that is read in
    /// parts.
    static let mostValuesPerTile = 32 << 20

    /// A block of the dataset read at once: pixels `columns` × `rows`, channels `channels`.
    struct Tile: Equatable {
        var columns: Range<Int>
        var rows: Range<Int>
        var channels: Range<Int>
    }

    /// The tiles a sweep reads, about `target` values each, made of whole chunks so that each chunk is
    /// read and decompressed once: rows and columns of chunks, every channel; or, where a chunk
    /// holds the channels of more pixels than a tile does (whole channel planes), one chunk's pixels
    /// and a few chunks' channels.
    func tiles(target: Int = valuesPerBlock) -> [Tile] {
        let chunkWidth = max(1, min(width, xDimension.flatMap { chunks?[$0] } ?? 1))
        let chunkHeight = max(1, min(height, yDimension.flatMap { chunks?[$0] } ?? 1))
        let chunkChannels = max(1, min(channels, chunks?[channelDimension] ?? channels))
        func cut(chunkWidth: Int, chunkHeight: Int) -> (columns: Int, rows: Int, channels: Int) {
            let rowValues = width * channels
            if chunkHeight * rowValues <= target {
                return (width, max(chunkHeight, target / rowValues / chunkHeight * chunkHeight), channels)
            }
            return (
                min(width, max(chunkWidth, target / (chunkHeight * channels) / chunkWidth * chunkWidth)), chunkHeight,
                channels
            )
        }
        let chunkPixels = chunkWidth * chunkHeight
        var size: (columns: Int, rows: Int, channels: Int)
        if chunkPixels * channels > target && chunkChannels < channels {
            let depth = min(channels, max(chunkChannels, target / chunkPixels / chunkChannels * chunkChannels))
            size = (chunkWidth, chunkHeight, depth)
        } else {
            size = cut(chunkWidth: chunkWidth, chunkHeight: chunkHeight)
        }
        if size.columns * size.rows * size.channels > Self.mostValuesPerTile {
            size = cut(chunkWidth: 1, chunkHeight: 1)
        }
        var tiles: [Tile] = []
        for first in stride(from: 0, to: channels, by: size.channels) {
            for top in stride(from: 0, to: height, by: size.rows) {
                for left in stride(from: 0, to: width, by: size.columns) {
                    tiles.append(
                        Tile(
                            columns: left..<min(width, left + size.columns), rows: top..<min(height, top + size.rows),
                            channels: first..<min(channels, first + size.channels)))
                }
            }
        }
        return tiles
    }

    /// Goes through every spectrum a tile at a time, each of the file's helpers reading (and
    /// decompressing) one tile into memory shared with this process while the values of another are
    /// added up here, into maps of each helper's own, added together at the end. Tiles of channels
    /// no window holds are not read when the summed spectrum is not asked for.
    func sweepInTiles(windows: [Range<Int>], summing: Bool, valuesPerTile: Int = valuesPerBlock)
        throws(ImageFileError) -> SpectrumSweep
    {
        let windows = WindowTally(windows: windows, channels: channels).windows
        let tiles = self.tiles(target: valuesPerTile).filter { tile in
            summing || windows.contains { $0.overlaps(tile.channels) }
        }
        let (width, height, channels) = (self.width, self.height, self.channels)
        let largest = tiles.map { $0.columns.count * $0.rows.count * $0.channels.count }.max() ?? 0
        // 16-bit counts come as they are stored: libhdf5 converts types a strip at a time, slowly.
        let element: Hyperslab.Element = sampleType == .uint16 ? .uint16 : .float32
        let shared = SharedSweep(
            pieces: tiles.count, windows: windows.count, pixels: width * height, channels: channels, summing: summing)
        try onThreads(HDF5File.helperCount) { worker in
            let sums = shared.sums()
            let (maps, summed) = (sums.maps, sums.summed)
            let gathered = UnsafeMutableBufferPointer<Float>.allocate(capacity: channels)
            let wholeCounts = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: summing ? channels : 0)
            wholeCounts.initialize(repeating: 0)
            defer {
                gathered.deallocate()
                wholeCounts.deallocate()
            }
            do throws(ImageFileError) {
                let memory = try ChildProcess.SharedMemory(count: max(largest, 1) * element.size)
                while let index = try shared.next() {
                    let tile = tiles[index]
                    var slab = self.slab(columns: tile.columns, rows: tile.rows, channels: tile.channels)
                    slab.element = element
                    try self.file.read(slab, into: memory, helper: worker)
                    let values = memory.bytes.baseAddress!
                    let (floats, counts) = (
                        values.assumingMemoryBound(to: Float.self), values.assumingMemoryBound(to: UInt16.self)
                    )
                    let steps = self.steps(of: slab)
                    // The windows' channels within the tile, counted from its first.
                    let first = tile.channels.lowerBound
                    let inTile = windows.map { window in
                        let overlap = window.clamped(to: tile.channels)
                        return (overlap.lowerBound - first)..<(overlap.upperBound - first)
                    }
                    let depth = tile.channels.count
                    let tileCounts = summing ? UnsafeMutableBufferPointer(rebasing: wholeCounts[tile.channels]) : nil
                    for (row, y) in tile.rows.enumerated() {
                        for (column, x) in tile.columns.enumerated() {
                            let start = column * steps.x + row * steps.y
                            let pixel = y * width + x
                            if element == .uint16 {
                                Self.add(
                                    counts: counts + start, step: steps.channel, windows: inTile, pixel: pixel,
                                    maps: maps, wholeCounts: tileCounts)
                                continue
                            }
                            let spectrum: UnsafeBufferPointer<Float>
                            if steps.channel == 1 {
                                spectrum = UnsafeBufferPointer(start: floats + start, count: depth)
                            } else {
                                for channel in 0..<depth { gathered[channel] = floats[start + channel * steps.channel] }
                                spectrum = UnsafeBufferPointer(rebasing: gathered[0..<depth])
                            }
                            for (index, window) in inTile.enumerated() {
                                var sum = 0.0
                                for channel in window { sum += Double(spectrum[channel]) }
                                maps[index][pixel] += sum
                            }
                            if summing {
                                for channel in 0..<depth { summed[first + channel] += Double(spectrum[channel]) }
                            }
                        }
                    }
                    shared.done()
                }
            } catch {
                shared.fail(error)
            }
            for channel in wholeCounts.indices { summed[channel] += Double(wholeCounts[channel]) }
            shared.handIn(sums)
        }
        return try shared.result()
    }
}

extension HDF5Spectra {
    /// Adds one pixel's 16-bit counts, `step` apart, into its window sums and the whole counts, as
    /// integers.
    @inline(__always)
    fileprivate static func add(
        counts: UnsafePointer<UInt16>, step: Int, windows: [Range<Int>], pixel: Int,
        maps: [UnsafeMutableBufferPointer<Double>],
        wholeCounts: UnsafeMutableBufferPointer<UInt64>?
    ) {
        for (index, window) in windows.enumerated() {
            var sum: UInt64 = 0
            for channel in window { sum &+= UInt64(counts[channel * step]) }
            maps[index][pixel] += Double(sum)
        }
        guard let wholeCounts else { return }
        for channel in wholeCounts.indices { wholeCounts[channel] &+= UInt64(counts[channel * step]) }
    }
}

/// Runs `body(0..<count)` on threads of its own, one each, and waits for them: the workers wait on
/// helper processes, so they are not to be queued behind other work as Dispatch's or the
/// concurrency pool's threads are.
private func onThreads(_ count: Int, _ body: @Sendable (Int) -> Void) throws(ImageFileError) {
    try withoutActuallyEscaping(body) { (body) throws(ImageFileError) in try onThreads(count, escaping: body) }
}

private func onThreads(_ count: Int, escaping body: @escaping @Sendable (Int) -> Void) throws(ImageFileError) {
    final class Work: @unchecked Sendable {
        let body: @Sendable (Int) -> Void
        let index: Int

        init(body: @escaping @Sendable (Int) -> Void, index: Int) {
            self.body = body
            self.index = index
        }
    }
    var threads: [pthread_t] = []
    defer { for thread in threads { pthread_join(thread, nil) } }
    for index in 0..<count {
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work(body: body, index: index)).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { argument in
                let work = Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue()
                work.body(work.index)
                return nil
            }, work)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            throw ImageFileError("cannot start a thread to read the spectra")
        }
        threads.append(thread)
    }
}
