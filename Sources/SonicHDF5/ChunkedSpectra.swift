import CZlib
import Dispatch
import Glibc
import SonicCore
import Synchronization

/// The spectra of a chunked dataset read by the program itself from the mapped file, at the places
/// the helper listed (see `ChunkTable`): unfiltered chunks where they lie, deflated ones (shuffled
/// or not) decompressed here a chunk at a time. A sweep goes through the chunks in the order they
/// lie in the file, on every core, and gives each chunk's pages back once it is read.
struct ChunkedSpectra<Number: StoredNumber>: SpectrumSource {
    let file: FileBytes
    let table: ChunkTable
    let dims: [Int]
    let chunks: [Int]
    let xDimension: Int?
    let yDimension: Int?
    let channelDimension: Int
    /// The chunks' deflate stream is to be inflated, and then its bytes unshuffled.
    let deflated: Bool
    let shuffled: Bool
    /// The bytes of one whole chunk, as the library lays it out (edge chunks too).
    let chunkBytes: Int
    /// How many chunks lie along each dimension, and the step between neighbours in the table.
    let grid: [Int]
    let gridSteps: [Int]
    /// The step between neighbouring elements of a chunk along each dimension.
    let elementSteps: [Int]
    /// The table's chunks in the order they lie in the file.
    let fileOrder: [Int]

    /// The largest chunk decompressed into memory of each core's.
    static var mostChunkBytes: Int { 256 << 20 }

    /// Checks every chunk against the file and the filters against those the program undoes.
    init(
        file: FileBytes, table: ChunkTable, dims: [Int], chunks: [Int], x: Int?, y: Int?, channel: Int
    ) throws(ImageFileError) {
        guard dims.count == chunks.count, !dims.isEmpty, dims.allSatisfy({ $0 > 0 }), chunks.allSatisfy({ $0 > 0 })
        else { throw ImageFileError("the chunks do not fit the dataset") }
        let compressed: Bool
        switch table.filters {
        case []: (compressed, shuffled) = (false, false)
        case [ChunkTable.deflate]: (compressed, shuffled) = (true, false)
        case [ChunkTable.shuffle, ChunkTable.deflate]: (compressed, shuffled) = (true, true)
        default: throw ImageFileError("the chunks are filtered in a way the program does not undo")
        }
        guard table.skippedFilters.allSatisfy({ $0 == 0 }) else {
            throw ImageFileError("a chunk skipped one of its filters")
        }
        var bytes = Number.byteCount, count = 1
        for (extent, chunk) in zip(dims, chunks) {
            let (product, overflow) = bytes.multipliedReportingOverflow(by: chunk)
            guard !overflow, product <= Self.mostChunkBytes else { throw ImageFileError("a chunk is too large") }
            bytes = product
            let (chunkCount, countOverflow) = count.multipliedReportingOverflow(by: (extent + chunk - 1) / chunk)
            guard !countOverflow else { throw ImageFileError("the chunks do not fit the dataset") }
            count = chunkCount
        }
        let size = file.count
        guard table.offsets.count == count, table.sizes.count == count,
            zip(table.offsets, table.sizes).allSatisfy({ offset, stored in
                offset >= 0 && stored > 0 && offset <= size && stored <= size - offset
                    && (compressed || stored == bytes)
            })
        else { throw ImageFileError("the chunks of the spectra lie outside the file") }
        self.file = file
        self.table = table
        deflated = compressed
        self.dims = dims
        self.chunks = chunks
        xDimension = x
        yDimension = y
        channelDimension = channel
        chunkBytes = bytes
        grid = zip(dims, chunks).map { ($0 + $1 - 1) / $1 }
        var gridSteps = dims.map { _ in 1 }, elementSteps = dims.map { _ in 1 }
        for dimension in stride(from: dims.count - 2, through: 0, by: -1) {
            gridSteps[dimension] = gridSteps[dimension + 1] * grid[dimension + 1]
            elementSteps[dimension] = elementSteps[dimension + 1] * chunks[dimension + 1]
        }
        self.gridSteps = gridSteps
        self.elementSteps = elementSteps
        fileOrder = table.offsets.indices.sorted { table.offsets[$0] < table.offsets[$1] }
    }

    var width: Int { xDimension.map { dims[$0] } ?? 1 }
    var height: Int { yDimension.map { dims[$0] } ?? 1 }
    var channels: Int { dims[channelDimension] }

    /// What one chunk covers: its first pixel and channel and how many of each lie inside the
    /// dataset, and its steps between neighbouring pixels and channels, in bytes.
    struct Extent {
        var columns: Range<Int>
        var rows: Range<Int>
        var channels: Range<Int>
        var steps: (x: Int, y: Int, channel: Int)
    }

    func extent(of index: Int) -> Extent {
        func range(_ dimension: Int?) -> Range<Int> {
            guard let dimension else { return 0..<1 }
            let first = index / gridSteps[dimension] % grid[dimension] * chunks[dimension]
            return first..<min(dims[dimension], first + chunks[dimension])
        }
        let size = Number.byteCount
        return Extent(
            columns: range(xDimension), rows: range(yDimension), channels: range(channelDimension),
            steps: (
                xDimension.map { elementSteps[$0] * size } ?? 0, yDimension.map { elementSteps[$0] * size } ?? 0,
                elementSteps[channelDimension] * size
            ))
    }

    /// Memory of one core's to decompress chunks into.
    final class Scratch {
        let inflated: UnsafeMutableRawBufferPointer
        let unshuffled: UnsafeMutableRawBufferPointer

        init(bytes: Int, deflated: Bool, shuffled: Bool) {
            inflated = .allocate(byteCount: deflated ? bytes : 0, alignment: 16)
            unshuffled = .allocate(byteCount: shuffled ? bytes : 0, alignment: 16)
        }

        deinit {
            inflated.deallocate()
            unshuffled.deallocate()
        }
    }

    func scratch() -> Scratch { Scratch(bytes: chunkBytes, deflated: deflated, shuffled: shuffled) }

    /// A chunk's elements as the library lays them out: where they lie in the file, or decompressed
    /// into `scratch`.
    func elements(of index: Int, scratch: Scratch) throws(ImageFileError) -> UnsafeRawPointer {
        let stored = file.buffer.baseAddress! + table.offsets[index]
        guard deflated else { return stored }
        var produced = uLongf(chunkBytes)
        let status = uncompress(
            scratch.inflated.baseAddress!.assumingMemoryBound(to: Bytef.self), &produced,
            stored.assumingMemoryBound(to: Bytef.self), uLong(table.sizes[index]))
        guard status == Z_OK, Int(produced) == chunkBytes else {
            throw ImageFileError("a compressed chunk of the spectra is damaged")
        }
        guard shuffled else { return UnsafeRawPointer(scratch.inflated.baseAddress!) }
        // The shuffle filter stores the first byte of every element, then every second byte, ….
        let size = Number.byteCount, count = chunkBytes / size
        let from = scratch.inflated.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let to = scratch.unshuffled.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for byte in 0..<size {
            let plane = from + byte * count
            for element in 0..<count { to[element * size + byte] = plane[element] }
        }
        return UnsafeRawPointer(scratch.unshuffled.baseAddress!)
    }

    /// A chunk has been gone through: its pages go back.
    func doneReading(_ index: Int) {
        file.doneReading(table.offsets[index]..<(table.offsets[index] + table.sizes[index]))
    }

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height,
            !columns.isEmpty, !rows.isEmpty
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        let channels = self.channels, little = table.littleEndian
        var values = [Float](repeating: 0, count: columns.count * rows.count * channels)
        let scratch = self.scratch()
        for index in chunks(columns: columns, rows: rows) {
            let extent = self.extent(of: index)
            let chunk = try elements(of: index, scratch: scratch)
            let (first, steps) = (extent.channels.lowerBound, extent.steps)
            values.withUnsafeMutableBufferPointer { output in
                for y in extent.rows.clamped(to: rows) {
                    for x in extent.columns.clamped(to: columns) {
                        let start =
                            chunk + (x - extent.columns.lowerBound) * steps.x + (y - extent.rows.lowerBound) * steps.y
                        let at = ((y - rows.lowerBound) * columns.count + x - columns.lowerBound) * channels + first
                        for channel in 0..<extent.channels.count {
                            output[at + channel] = Number.value(
                                at: start + channel * steps.channel, littleEndian: little)
                        }
                    }
                }
            }
            doneReading(index)
        }
        return values
    }

    /// The chunks holding any of the pixels `columns` × `rows`, every channel.
    private func chunks(columns: Range<Int>, rows: Range<Int>) -> [Int] {
        let wanted = dims.indices.map { dimension -> Range<Int> in
            switch dimension {
            case xDimension:
                (columns.lowerBound / chunks[dimension])..<((columns.upperBound - 1) / chunks[dimension] + 1)
            case yDimension: (rows.lowerBound / chunks[dimension])..<((rows.upperBound - 1) / chunks[dimension] + 1)
            default: 0..<grid[dimension]
            }
        }
        var indices: [Int] = []
        var position = wanted.map(\.lowerBound)
        while true {
            indices.append(zip(position, gridSteps).reduce(0) { $0 + $1.0 * $1.1 })
            var dimension = dims.count - 1
            while dimension >= 0 {
                position[dimension] += 1
                if position[dimension] < wanted[dimension].upperBound { break }
                position[dimension] = wanted[dimension].lowerBound
                dimension -= 1
            }
            if dimension < 0 { break }
        }
        return indices
    }

    /// Goes through the chunks in the order they lie in the file, each core taking the next, into
    /// sums of its own added together at the end. Chunks of channels no window holds are not read
    /// when the summed spectrum is not asked for.
    func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        let windows = WindowTally(windows: windows, channels: channels).windows
        let order = fileOrder.filter { index in
            summing || windows.contains { $0.overlaps(extent(of: index).channels) }
        }
        let (width, height) = (self.width, self.height)
        let little = table.littleEndian
        let shared = SharedSweep(
            pieces: order.count, windows: windows.count, pixels: width * height, channels: channels, summing: summing)
        let workers = max(1, min(order.count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let sums = shared.sums()
            let scratch = self.scratch()
            let (maps, summed) = (sums.maps, sums.summed)
            do throws(ImageFileError) {
                while let claimed = try shared.next() {
                    let index = order[claimed]
                    let extent = self.extent(of: index)
                    let chunk = try elements(of: index, scratch: scratch)
                    let first = extent.channels.lowerBound
                    let inChunk = windows.map { window in
                        let overlap = window.clamped(to: extent.channels)
                        return (overlap.lowerBound - first)..<(overlap.upperBound - first)
                    }
                    let steps = extent.steps
                    for (row, y) in extent.rows.enumerated() {
                        for (column, x) in extent.columns.enumerated() {
                            let start = chunk + column * steps.x + row * steps.y
                            let pixel = y * width + x
                            for (window, channels) in inChunk.enumerated() where !channels.isEmpty {
                                maps[window][pixel] += Self.sum(
                                    at: start + channels.lowerBound * steps.channel, count: channels.count,
                                    step: steps.channel, littleEndian: little)
                            }
                            guard summing else { continue }
                            let totals = summed.baseAddress! + first
                            if steps.channel == Number.byteCount {
                                Number.add(at: start, count: extent.channels.count, littleEndian: little, to: totals)
                            } else {
                                for channel in 0..<extent.channels.count {
                                    totals[channel] += Double(
                                        Number.value(at: start + channel * steps.channel, littleEndian: little))
                                }
                            }
                        }
                    }
                    doneReading(index)
                    shared.done()
                }
            } catch {
                shared.fail(error)
            }
            shared.handIn(sums)
        }
        return try shared.result()
    }

    /// The sum of `count` values `step` bytes apart.
    @inline(__always)
    private static func sum(at start: UnsafeRawPointer, count: Int, step: Int, littleEndian: Bool) -> Double {
        if step == Number.byteCount { return Number.sum(at: start, count: count, littleEndian: littleEndian) }
        var sum = 0.0
        for channel in 0..<count { sum += Double(Number.value(at: start + channel * step, littleEndian: littleEndian)) }
        return sum
    }
}

/// Makes the chunked spectra source for a dataset's number type.
struct ChunkedSpectraMaker: StoredNumberVisitor {
    let file: FileBytes
    let table: ChunkTable
    let dims: [Int]
    let chunks: [Int]
    let x: Int?
    let y: Int?
    let channel: Int

    func visit<Number: StoredNumber>(_: Number.Type) -> Result<any SpectrumSource, ImageFileError> {
        do throws(ImageFileError) {
            return .success(
                try ChunkedSpectra<Number>(
                    file: file, table: table, dims: dims, chunks: chunks, x: x, y: y, channel: channel))
        } catch {
            return .failure(error)
        }
    }
}
