import Dispatch
import Foundation
import Synchronization

/// Thermo Fisher Velox's EDS spectrum image, as its detectors' streams hold it: one flat run of
/// 16-bit values per detector, pixel after pixel of the scan, frame after frame; 65535 ends a
/// pixel, any other value is one count in that channel. Every detector and every frame is summed,
/// as Velox shows it and RosettaSciIO reads it by default.
///
/// Each stream is gone through once, to check its channels and to note where every 16th pixel
/// starts; a pixel's spectrum is then decoded when asked for, from the nearest pixel noted. A
/// stream may lie in the file in pieces (an HDF5 dataset's chunks), read where they lie. The
/// detectors' streams are gone through side by side, one a core.
public struct VeloxStreamSpectra: SpectrumSource {
    public let width: Int
    public let height: Int
    public let channels: Int
    /// How many frames the longest stream holds (its last may end early).
    public let frames: Int
    private let streams: [IndexedStream]

    /// Pixels between two noted starts.
    static let noteEvery = 16
    static let separator: UInt16 = 65535

    /// - Parameter streams: each detector's values, each in one stretch of bytes.
    public init(streams: [FileBytes], width: Int, height: Int, channels: Int) throws(ImageFileError) {
        try self.init(
            pieces: streams.map(VeloxStreamValues.init(whole:)), width: width, height: height, channels: channels)
    }

    /// - Parameter pieces: each detector's values, where they lie.
    public init(pieces streams: [VeloxStreamValues], width: Int, height: Int, channels: Int) throws(ImageFileError) {
        try ImageLimits.check(width: width, height: height, channels: channels)
        guard channels < Int(Self.separator) else {
            throw ImageFileError("a stream of \(channels) channels: its values stop at 65534")
        }
        self.width = width
        self.height = height
        self.channels = channels
        let progress = WorkProgress.current
        progress?.begin("indexing the spectrum streams", steps: streams.reduce(0) { $0 + $1.count })
        let found = Mutex([Result<IndexedStream, ImageFileError>?](repeating: nil, count: streams.count))
        DispatchQueue.concurrentPerform(iterations: streams.count) { index in
            let result = Result { () throws(ImageFileError) in
                try IndexedStream(streams[index], channels: channels, number: index + 1, progress: progress)
            }
            found.withLock { $0[index] = result }
        }
        var indexed: [IndexedStream] = []
        for result in found.withLock({ $0 }) { indexed.append(try result!.get()) }
        self.streams = indexed
        let pixelsPerFrame = width * height
        frames = indexed.map { ($0.pixels + pixelsPerFrame - 1) / pixelsPerFrame }.max() ?? 0
    }

    public func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        var values = [Float](repeating: 0, count: columns.count * rows.count * channels)
        let pixelsPerFrame = width * height
        values.withUnsafeMutableBufferPointer { output in
            var at = 0
            for y in rows {
                for x in columns {
                    let pixel = y * width + x
                    for stream in streams {
                        var frame = 0
                        while frame * pixelsPerFrame + pixel < stream.pixels {
                            stream.addCounts(ofPixel: frame * pixelsPerFrame + pixel, to: output, at: at)
                            frame += 1
                        }
                    }
                    at += channels
                }
            }
        }
        return values
    }

    public func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        let parts = max(1, min(streams.count, ProcessInfo.processInfo.activeProcessorCount))
        let tally = CountTally(windows: windows, channels: channels, pixels: width * height, parts: parts)
        let progress = WorkProgress.current
        progress?.begin("reading the spectra", steps: streams.reduce(0) { $0 + $1.count })
        let failure = Mutex<ImageFileError?>(nil)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            do throws(ImageFileError) {
                for stream in stride(from: part, to: streams.count, by: parts) {
                    try tally.count(streams[stream].values, part: part, progress: progress)
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return tally.sweep(summing: summing)
    }
}

/// Where a sweep of the streams counts: for each core's part, a flat table of maps (a row of pixels
/// a window) and a summed spectrum, added up at the end.
private final class CountTally: @unchecked Sendable {
    private let pixels: Int
    private let windows: Int
    private let windowsOfChannels: ChannelWindows
    /// Each part's maps, then its summed spectrum.
    private let tables: PartSums

    init(windows: [Range<Int>], channels: Int, pixels: Int, parts: Int) {
        windowsOfChannels = WindowTally(windows: windows, channels: channels).windowsOfChannels
        self.pixels = pixels
        self.windows = windows.count
        tables = PartSums(parts: parts, size: windows.count * pixels + channels)
    }

    /// Counts every value of `stream` into part `part`'s table; stops when the user asks for other work.
    func count(_ stream: VeloxStreamValues, part: Int, progress: WorkProgress?) throws(ImageFileError) {
        let maps = tables.table(part)
        let summed = maps + windows * pixels
        let pixels = self.pixels
        var place = 0
        try windowsOfChannels.starts.withUnsafeBufferPointer { starts throws(ImageFileError) in
            try windowsOfChannels.members.withUnsafeBufferPointer { members throws(ImageFileError) in
                try stream.forEachStretch { _, bytes throws(ImageFileError) in
                    if progress?.isStopped == true { throw WorkProgress.stopped }
                    for index in 0..<(bytes.count / 2) {
                        let value = Int(bytes.streamValue(index))
                        if value == Int(VeloxStreamSpectra.separator) {
                            place += 1
                            if place == pixels { place = 0 }
                            continue
                        }
                        for member in starts[value]..<starts[value + 1] { maps[members[member] * pixels + place] += 1 }
                        summed[value] += 1
                    }
                    progress?.advance(by: bytes.count / 2)
                }
            }
        }
    }

    func sweep(summing: Bool) -> SpectrumSweep {
        let all = tables.added()
        let maps = (0..<windows).map { Array(all[($0 * pixels)..<(($0 + 1) * pixels)]) }
        return SpectrumSweep(maps: maps, summed: summing ? Array(all[(windows * pixels)...]) : nil)
    }
}

/// One detector's stream of 16-bit little-endian values as it lies in a file: in pieces of
/// `pieceLength` values each (the last may be shorter), each starting anywhere in the file's bytes.
public struct VeloxStreamValues: Sendable {
    let file: FileBytes
    /// Where each piece starts in `file`, in bytes.
    let starts: [Int]
    let pieceLength: Int
    /// The values in all.
    let count: Int

    /// Pieces of `pieceLength` values at `starts`, `count` values in all; refused unless every piece
    /// lies inside the file.
    public init(file: FileBytes, starts: [Int], pieceLength: Int, count: Int) throws(ImageFileError) {
        guard pieceLength > 0, count >= 0, starts.count == (count + pieceLength - 1) / pieceLength else {
            throw ImageFileError("a stream's pieces do not make up its \(count) values")
        }
        for (index, start) in starts.enumerated() {
            let length = 2 * min(pieceLength, count - index * pieceLength)
            guard start >= 0, start <= file.count - length else {
                throw ImageFileError("a stream's piece \(index + 1) lies outside the file")
            }
        }
        self.file = file
        self.starts = starts
        self.pieceLength = pieceLength
        self.count = count
    }

    /// All of `whole`'s bytes, one piece (a dangling byte is not a value).
    public init(whole: FileBytes) {
        file = whole
        count = whole.count / 2
        pieceLength = max(count, 1)
        starts = count > 0 ? [0] : []
    }

    /// The value at `position` (below `count`).
    @inline(__always) func value(at position: Int) -> UInt16 {
        let piece = position / pieceLength
        return file.buffer.streamValue(position - piece * pieceLength, from: starts[piece])
    }

    /// Calls `body` with each stretch of values in order: the position of its first value, and its
    /// bytes (two a value, little-endian, at any alignment). The pages gone through are given back as
    /// it goes: a whole stream may be gigabytes.
    func forEachStretch<Failure>(_ body: (Int, UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        let bytes = file.buffer
        var givenUpTo = starts.first ?? 0
        for (index, start) in starts.enumerated() {
            let first = index * pieceLength, length = min(pieceLength, count - first)
            var done = 0
            while done < length {
                let stretch = min(length - done, Self.valuesBetweenGivingBack)
                let from = start + 2 * done
                try body(first + done, UnsafeRawBufferPointer(rebasing: bytes[from..<(from + 2 * stretch)]))
                done += stretch
                // Pieces usually follow one another in the file; one that lies before those read starts afresh.
                let reached = start + 2 * done
                if reached < givenUpTo { givenUpTo = start }
                if reached - givenUpTo >= 4 * Self.keptBehind {
                    file.doneReading(givenUpTo..<(reached - Self.keptBehind))
                    givenUpTo = reached - Self.keptBehind
                }
            }
        }
    }

    static let valuesBetweenGivingBack = 1 << 20
    /// Bytes just read that stay: pages are given back in whole 2 MiB blocks, and the one being read must not be.
    static let keptBehind = 2 << 20
}

/// One detector's stream with every 16th pixel's start noted.
private struct IndexedStream: Sendable {
    let values: VeloxStreamValues
    var count: Int { values.count }
    /// Where pixel k · noteEvery starts, for every k.
    let starts: [Int]
    /// How many pixels the stream holds, the last possibly cut short.
    let pixels: Int

    init(_ values: VeloxStreamValues, channels: Int, number: Int, progress: WorkProgress?) throws(ImageFileError) {
        self.values = values
        var starts = [0]
        var pixel = 0
        // The separator is above every channel: one comparison a value in the common case.
        let firstBeyond = UInt16(channels)
        try values.forEachStretch { first, bytes throws(ImageFileError) in
            if progress?.isStopped == true { throw WorkProgress.stopped }
            for offset in 0..<(bytes.count / 2) {
                let value = bytes.streamValue(offset)
                guard value >= firstBeyond else { continue }
                guard value == VeloxStreamSpectra.separator else {
                    throw ImageFileError(
                        "stream \(number) counts in channel \(value) at value \(first + offset), beyond the "
                            + "\(channels) channels its settings give")
                }
                pixel += 1
                if pixel % VeloxStreamSpectra.noteEvery == 0 { starts.append(first + offset + 1) }
            }
            progress?.advance(by: bytes.count / 2)
        }
        self.starts = starts
        pixels = pixel + 1
    }

    /// Adds the counts of pixel `pixel` (counted from the stream's start) into `output` from `at`.
    func addCounts(ofPixel pixel: Int, to output: UnsafeMutableBufferPointer<Float>, at: Int) {
        var position = starts[pixel / VeloxStreamSpectra.noteEvery]
        for _ in 0..<(pixel % VeloxStreamSpectra.noteEvery) {
            while position < count, values.value(at: position) != VeloxStreamSpectra.separator { position += 1 }
            position += 1
        }
        while position < count {
            let value = values.value(at: position)
            if value == VeloxStreamSpectra.separator { break }
            output[at + Int(value)] += 1
            position += 1
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Value `index` of a stretch of a stream starting at byte `start`: 16-bit little-endian, at any alignment.
    @inline(__always) func streamValue(_ index: Int, from start: Int = 0) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: start + 2 * index, as: UInt16.self))
    }
}
