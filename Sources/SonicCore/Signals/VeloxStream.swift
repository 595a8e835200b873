/// Thermo Fisher Velox's EDS spectrum image, as its detectors' streams hold it: one flat run of
/// 16-bit values per detector, pixel after pixel of the scan, frame after frame; 65535 ends a
/// pixel, any other value is one count in that channel. Every detector and every frame is summed,
/// as Velox shows it and RosettaSciIO reads it by default.
///
/// Each stream is gone through once, to check its channels and to note where every 16th pixel
/// starts; a pixel's spectrum is then decoded when asked for, from the nearest pixel noted.
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

    /// - Parameter streams: each detector's values, kept alive by their owner.
    public init(streams: [FileBytes], width: Int, height: Int, channels: Int) throws(ImageFileError) {
        try ImageLimits.check(width: width, height: height, channels: channels)
        guard channels < Int(Self.separator) else {
            throw ImageFileError("a stream of \(channels) channels: its values stop at 65534")
        }
        self.width = width
        self.height = height
        self.channels = channels
        var indexed: [IndexedStream] = []
        for (number, stream) in streams.enumerated() {
            indexed.append(try IndexedStream(stream, channels: channels, number: number + 1))
        }
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
        let pixelsPerFrame = width * height
        var summed = [Double](repeating: 0, count: channels)
        var maps = windows.map { _ in [Double](repeating: 0, count: pixelsPerFrame) }
        let memberOf = WindowTally(windows: windows, channels: channels).windowsOfChannels
        for stream in streams {
            stream.forEachCount { pixel, channel in
                let place = pixel % pixelsPerFrame
                for index in memberOf[channel] { maps[index][place] += 1 }
                if summing { summed[channel] += 1 }
            }
        }
        return SpectrumSweep(maps: maps, summed: summing ? summed : nil)
    }
}

/// One detector's stream with every 16th pixel's start noted.
private struct IndexedStream: Sendable {
    let bytes: FileBytes
    let count: Int
    /// Where pixel k · noteEvery starts, for every k.
    let starts: [Int]
    /// How many pixels the stream holds, the last possibly cut short.
    let pixels: Int

    init(_ bytes: FileBytes, channels: Int, number: Int) throws(ImageFileError) {
        self.bytes = bytes
        count = bytes.count / 2
        var starts = [0]
        var pixel = 0
        let values = bytes.buffer.bindMemory(to: UInt16.self)
        for position in 0..<count {
            let value = values[position]
            if value == VeloxStreamSpectra.separator {
                pixel += 1
                if pixel % VeloxStreamSpectra.noteEvery == 0 { starts.append(position + 1) }
            } else if Int(value) >= channels {
                throw ImageFileError(
                    "stream \(number) counts in channel \(value) at value \(position), beyond the \(channels) "
                        + "channels its settings give")
            }
        }
        self.starts = starts
        pixels = pixel + 1
    }

    private var values: UnsafeBufferPointer<UInt16> { bytes.buffer.bindMemory(to: UInt16.self) }

    /// Adds the counts of pixel `pixel` (counted from the stream's start) into `output` from `at`.
    func addCounts(ofPixel pixel: Int, to output: UnsafeMutableBufferPointer<Float>, at: Int) {
        let values = self.values
        var position = starts[pixel / VeloxStreamSpectra.noteEvery]
        for _ in 0..<(pixel % VeloxStreamSpectra.noteEvery) {
            while position < count, values[position] != VeloxStreamSpectra.separator { position += 1 }
            position += 1
        }
        while position < count, values[position] != VeloxStreamSpectra.separator {
            output[at + Int(values[position])] += 1
            position += 1
        }
    }

    /// Calls `body` with (pixel, channel) for every count, in the stream's order.
    func forEachCount(_ body: (Int, Int) -> Void) {
        let values = self.values
        var pixel = 0
        for position in 0..<count {
            let value = values[position]
            if value == VeloxStreamSpectra.separator {
                pixel += 1
            } else {
                body(pixel, Int(value))
            }
        }
    }
}
