import Glibc
import SonicCore
import Synchronization

extension HDF5Spectra {
    /// No tile holds more values than this (128 MiB of floats): a chunk larger than that is read in
    /// parts.
    static let mostValuesPerTile = 32 << 20

    /// The tiles a sweep reads: rows and columns of whole chunks, every channel, about `target`
    /// values each, so that each chunk is read and decompressed once.
    func tiles(target: Int = valuesPerBlock) -> [(columns: Range<Int>, rows: Range<Int>)] {
        let chunkWidth = max(1, min(width, xDimension.flatMap { chunks?[$0] } ?? 1))
        let chunkHeight = max(1, min(height, yDimension.flatMap { chunks?[$0] } ?? 1))
        func cut(chunkWidth: Int, chunkHeight: Int) -> (columns: Int, rows: Int) {
            let rowValues = width * channels
            if chunkHeight * rowValues <= target {
                return (width, max(chunkHeight, target / rowValues / chunkHeight * chunkHeight))
            }
            return (
                min(width, max(chunkWidth, target / (chunkHeight * channels) / chunkWidth * chunkWidth)), chunkHeight
            )
        }
        var (columnsPerTile, rowsPerTile) = cut(chunkWidth: chunkWidth, chunkHeight: chunkHeight)
        if columnsPerTile * rowsPerTile * channels > Self.mostValuesPerTile {
            (columnsPerTile, rowsPerTile) = cut(chunkWidth: 1, chunkHeight: 1)
        }
        var tiles: [(columns: Range<Int>, rows: Range<Int>)] = []
        for top in stride(from: 0, to: height, by: rowsPerTile) {
            for left in stride(from: 0, to: width, by: columnsPerTile) {
                tiles.append((left..<min(width, left + columnsPerTile), top..<min(height, top + rowsPerTile)))
            }
        }
        return tiles
    }

    /// Goes through every spectrum a tile at a time, each of the file's helpers reading (and
    /// decompressing) one tile into memory shared with this process while the values of another are
    /// added up here: every pixel is in one tile, so the maps' sums never meet.
    func sweepInTiles(windows: [Range<Int>], summing: Bool, valuesPerTile: Int = valuesPerBlock)
        throws(ImageFileError) -> SpectrumSweep
    {
        let tiles = self.tiles(target: valuesPerTile)
        let windows = WindowTally(windows: windows, channels: channels).windows
        let (width, channels) = (self.width, self.channels)
        let largest = tiles.map { $0.columns.count * $0.rows.count * channels }.max() ?? 0
        // 16-bit counts come as they are stored: libhdf5 converts types a strip at a time, slowly.
        let element: Hyperslab.Element = sampleType == .uint16 ? .uint16 : .float32
        let progress = WorkProgress.current
        progress?.begin("reading the spectra", steps: tiles.count)
        let maps = windows.map { _ in UnsafeSendable(count: width * height) }
        defer { for map in maps { map.value.deallocate() } }
        let next = Atomic(0)
        let failure = Mutex<ImageFileError?>(nil)
        let partialSums = Mutex<[Double]>([Double](repeating: 0, count: summing ? channels : 0))
        try onThreads(HDF5File.helperCount) { worker in
            let summed = UnsafeMutableBufferPointer<Double>.allocate(capacity: summing ? channels : 0)
            summed.initialize(repeating: 0)
            let gathered = UnsafeMutableBufferPointer<Float>.allocate(capacity: channels)
            let wholeCounts = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: summing ? channels : 0)
            wholeCounts.initialize(repeating: 0)
            defer {
                summed.deallocate()
                gathered.deallocate()
                wholeCounts.deallocate()
            }
            do throws(ImageFileError) {
                let memory = try ChildProcess.SharedMemory(count: max(largest, 1) * element.size)
                while failure.withLock({ $0 == nil }) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < tiles.count else { break }
                    if progress?.isStopped == true { throw WorkProgress.stopped }
                    let (columns, rows) = tiles[index]
                    var slab = self.slab(columns: columns, rows: rows)
                    slab.element = element
                    try self.file.read(slab, into: memory, helper: worker)
                    let values = memory.bytes.baseAddress!
                    let (floats, counts) = (
                        values.assumingMemoryBound(to: Float.self), values.assumingMemoryBound(to: UInt16.self)
                    )
                    let steps = self.steps(of: slab)
                    for (row, y) in rows.enumerated() {
                        for (column, x) in columns.enumerated() {
                            let first = column * steps.x + row * steps.y
                            let pixel = y * width + x
                            if element == .uint16 {
                                Self.add(
                                    counts: counts + first, step: steps.channel, windows: windows, pixel: pixel,
                                    maps: maps, wholeCounts: summing ? wholeCounts : nil)
                                continue
                            }
                            let spectrum: UnsafeBufferPointer<Float>
                            if steps.channel == 1 {
                                spectrum = UnsafeBufferPointer(start: floats + first, count: channels)
                            } else {
                                for channel in 0..<channels {
                                    gathered[channel] = floats[first + channel * steps.channel]
                                }
                                spectrum = UnsafeBufferPointer(gathered)
                            }
                            for (index, window) in windows.enumerated() {
                                var sum = 0.0
                                for channel in window { sum += Double(spectrum[channel]) }
                                maps[index].value[pixel] = sum
                            }
                            if summing { for channel in 0..<channels { summed[channel] += Double(spectrum[channel]) } }
                        }
                    }
                    progress?.advance()
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
            if summing {
                partialSums.withLock { total in
                    for channel in 0..<channels { total[channel] += summed[channel] + Double(wholeCounts[channel]) }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return SpectrumSweep(
            maps: maps.map { Array($0.value) }, summed: summing ? partialSums.withLock { $0 } : nil)
    }
}

extension HDF5Spectra {
    /// Adds one pixel's 16-bit counts, `step` apart, into its window sums and the whole counts, as
    /// integers.
    @inline(__always)
    fileprivate static func add(
        counts: UnsafePointer<UInt16>, step: Int, windows: [Range<Int>], pixel: Int, maps: [UnsafeSendable],
        wholeCounts: UnsafeMutableBufferPointer<UInt64>?
    ) {
        for (index, window) in windows.enumerated() {
            var sum: UInt64 = 0
            for channel in window { sum &+= UInt64(counts[channel * step]) }
            maps[index].value[pixel] = Double(sum)
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

/// A map the sweep's workers write into, each to pixels of its own.
private struct UnsafeSendable: @unchecked Sendable {
    let value: UnsafeMutableBufferPointer<Double>

    init(count: Int) {
        value = .allocate(capacity: count)
        value.initialize(repeating: 0)
    }
}
