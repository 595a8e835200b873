import Dispatch
import SonicCore
import Synchronization

/// The spectra of an HDF5 dataset. Where the file holds them as they are (contiguous, unfiltered),
/// the program maps them in place and reads them as it reads a DM file's; where it holds them in
/// chunks the helper has listed, unfiltered or deflated (and shuffled), the program maps the file
/// and reads the chunks itself (see `ChunkedSpectra`); otherwise the file's
/// helper processes read a block at a time: the pixels asked for, every channel. A dataset of at
/// most `SpectrumSource.valuesPerBlock` values is then read once, whole, and kept, so that spectra
/// near the pen come from memory; a larger one is gone through in tiles of whole chunks, both
/// helpers at once (see `sweepInTiles`).
final class HDF5Spectra: SpectrumSource, Sendable {
    let file: HDF5File
    let path: [String]
    let dims: [Int]
    let sampleType: SampleType
    /// Which of the dataset's dimensions (HDF5's order) runs along x, along y and along the channels;
    /// a line scan has no y, a single spectrum neither.
    let xDimension: Int?
    let yDimension: Int?
    let channelDimension: Int
    /// The dataset's chunks as listed (HDF5's order), when it is stored in chunks.
    let chunks: [Int]?
    private let whole = Mutex<[Float]?>(nil)
    /// The spectra mapped where they lie in the file, when they can be.
    private let inPlace: (any SpectrumSource)?
    /// Whether reading in place inflates chunks: then, as through the helpers, a small dataset is read
    /// whole once and kept, rather than inflated again for each spectrum near the pen.
    private let inflatesInPlace: Bool

    init(
        file: HDF5File, path: [String], dims: [Int], sampleType: SampleType, storage: DatasetStorage? = nil,
        chunks: [Int]? = nil, chunkTable: ChunkTable? = nil, x: Int?, y: Int?, channel: Int
    ) {
        self.file = file
        self.path = path
        self.chunks = chunks
        self.dims = dims
        self.sampleType = sampleType
        xDimension = x
        yDimension = y
        channelDimension = channel
        inPlace =
            storage.flatMap {
                Self.mapped(
                    file: file.path, storage: $0, dims: dims, sampleType: sampleType, x: x, y: y, channel: channel)
            }
            ?? chunkTable.flatMap { table in
                chunks.flatMap {
                    Self.mapped(
                        file: file.path, table: table, chunks: $0, dims: dims, sampleType: sampleType, x: x, y: y,
                        channel: channel)
                }
            }
        inflatesInPlace = storage == nil && inPlace != nil && chunkTable?.filters.isEmpty == false
    }

    /// The dataset's chunks read from the mapped file; nil where a dimension other than the scan's
    /// and the channels' has more than one element, or the chunks cannot be read here (filters the
    /// program does not undo, chunks that do not fit the file): the helpers read them then.
    private static func mapped(
        file: String, table: ChunkTable, chunks: [Int], dims: [Int], sampleType: SampleType, x: Int?, y: Int?,
        channel: Int
    ) -> (any SpectrumSource)? {
        let used = Set([x, y, channel].compactMap { $0 })
        guard dims.indices.allSatisfy({ used.contains($0) || dims[$0] == 1 }),
            let bytes = try? MappedFile.bytes(of: file)
        else { return nil }
        let maker = ChunkedSpectraMaker(
            file: bytes, table: table, dims: dims, chunks: chunks, x: x, y: y, channel: channel)
        return try? sampleType.visit(maker).get()
    }

    /// The dataset mapped in place, read with HDF5's order (the last dimension varies fastest); nil
    /// where a dimension other than the scan's and the channels' has more than one element, or the
    /// file cannot be mapped (the helpers read it then).
    private static func mapped(
        file: String, storage: DatasetStorage, dims: [Int], sampleType: SampleType, x: Int?, y: Int?, channel: Int
    ) -> (any SpectrumSource)? {
        let used = Set([x, y, channel].compactMap { $0 })
        guard dims.indices.allSatisfy({ used.contains($0) || dims[$0] == 1 }) else { return nil }
        var strides = dims.map { _ in 1 }
        for dimension in stride(from: dims.count - 2, through: 0, by: -1) {
            strides[dimension] = strides[dimension + 1] * dims[dimension + 1]
        }
        let layout = SpectrumLayout(
            width: x.map { dims[$0] } ?? 1, height: y.map { dims[$0] } ?? 1, channels: dims[channel],
            strides: (x: x.map { strides[$0] } ?? 0, y: y.map { strides[$0] } ?? 0, channel: strides[channel]))
        return try? DenseSpectraMaker(
            file: MappedFile.bytes(of: file), offset: storage.offset, layout: layout, littleEndian: storage.littleEndian
        ).make(sampleType)
    }

    /// The spectra are read from the mapped file, not through the helpers.
    var readsInPlace: Bool { inPlace != nil }

    var width: Int { xDimension.map { dims[$0] } ?? 1 }
    var height: Int { yDimension.map { dims[$0] } ?? 1 }
    var channels: Int { dims[channelDimension] }

    private var isSmall: Bool { width * height * channels <= Self.valuesPerBlock }

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height,
            !columns.isEmpty, !rows.isEmpty
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        if let inPlace, !(isSmall && inflatesInPlace) { return try inPlace.spectra(columns: columns, rows: rows) }
        if isSmall {
            let cube: [Float]
            if let kept = whole.withLock({ $0 }) {
                cube = kept
            } else {
                if let inPlace {
                    cube = try inPlace.spectra(columns: 0..<width, rows: 0..<height)
                } else {
                    cube = try block(columns: 0..<width, rows: 0..<height)
                }
                whole.withLock { $0 = cube }
            }
            guard columns != 0..<width || rows != 0..<height else { return cube }
            var values: [Float] = []
            values.reserveCapacity(columns.count * rows.count * channels)
            for y in rows {
                for x in columns { values += cube[((y * width + x) * channels)..<((y * width + x + 1) * channels)] }
            }
            return values
        }
        return try block(columns: columns, rows: rows)
    }

    func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        if let inPlace { return try inPlace.sweep(windows: windows, summing: summing) }
        if isSmall { return try sweepBlockByBlock(windows: windows, summing: summing) }
        return try sweepInTiles(windows: windows, summing: summing)
    }

    /// The block of pixels `columns` × `rows`, channels `channels` (every one unless told).
    func slab(columns: Range<Int>, rows: Range<Int>, channels: Range<Int>? = nil) -> Hyperslab {
        var start = dims.map { _ in 0 }, count = dims
        if let xDimension { (start[xDimension], count[xDimension]) = (columns.lowerBound, columns.count) }
        if let yDimension { (start[yDimension], count[yDimension]) = (rows.lowerBound, rows.count) }
        if let channels {
            (start[channelDimension], count[channelDimension]) = (channels.lowerBound, channels.count)
        }
        return Hyperslab(path: path, dims: dims, sampleType: sampleType, start: start, count: count)
    }

    /// How far apart a block's x, y and channel neighbours lie as read, HDF5's order (the last
    /// dimension varies fastest).
    func steps(of slab: Hyperslab) -> (x: Int, y: Int, channel: Int) {
        var steps = slab.count.map { _ in 1 }
        for dimension in stride(from: slab.count.count - 2, through: 0, by: -1) {
            steps[dimension] = steps[dimension + 1] * slab.count[dimension + 1]
        }
        return (xDimension.map { steps[$0] } ?? 0, yDimension.map { steps[$0] } ?? 0, steps[channelDimension])
    }

    /// Reads the block and lays it out channel fastest, then x, then y.
    private func block(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        let slab = self.slab(columns: columns, rows: rows)
        let shared = try file.read(slab)
        let stored = UnsafeBufferPointer(shared.bytes.bindMemory(to: Float.self))
        let (xStep, yStep, channelStep) = steps(of: slab)
        let channels = self.channels
        let total = columns.count * rows.count * channels
        return [Float](unsafeUninitializedCapacity: total) { output, initialized in
            var at = 0
            for y in 0..<rows.count {
                for x in 0..<columns.count {
                    let first = x * xStep + y * yStep
                    for channel in 0..<channels { output[at + channel] = stored[first + channel * channelStep] }
                    at += channels
                }
            }
            initialized = total
        }
    }
}
