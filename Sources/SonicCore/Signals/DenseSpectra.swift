/// Where each value of a spectrum image lies in one array of a file: the value of pixel (x, y) in
/// channel c is element x · x + y · y + c · channel from the array's start (strides in elements).
public struct SpectrumLayout: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var strides: (x: Int, y: Int, channel: Int)

    public init(width: Int, height: Int, channels: Int, strides: (x: Int, y: Int, channel: Int)) {
        self.width = width
        self.height = height
        self.channels = channels
        self.strides = strides
    }

    public static func == (a: SpectrumLayout, b: SpectrumLayout) -> Bool {
        (a.width, a.height, a.channels, a.strides.x, a.strides.y, a.strides.channel)
            == (b.width, b.height, b.channels, b.strides.x, b.strides.y, b.strides.channel)
    }

    /// Each pixel's spectrum is contiguous (the channel axis varies fastest).
    var spectraAreContiguous: Bool { strides.channel == 1 }

    /// Each channel is a contiguous image, row by row (the channel axis varies slowest).
    var channelsAreImages: Bool { strides.x == 1 && strides.y == width && strides.channel == width * height }
}

/// The spectra of an array left in place in a file (mapped), read where asked for. Pages that have
/// been gone through are given back, so the program stays small however large the file.
public struct DenseSpectra<Number: StoredNumber>: SpectrumSource {
    public let file: FileBytes
    /// Where the array starts in the file, in bytes.
    public let offset: Int
    public let layout: SpectrumLayout
    public let littleEndian: Bool

    /// Checks that every value lies inside the file.
    public init(file: FileBytes, offset: Int, layout: SpectrumLayout, littleEndian: Bool) throws(ImageFileError) {
        let strides = layout.strides
        var last = 0, overflow = false
        for (size, stride) in [
            (layout.width, strides.x), (layout.height, strides.y), (layout.channels, strides.channel)
        ] {
            guard size > 0, stride >= 0 else { throw ImageFileError("the spectra have no values") }
            let (step, stepOverflow) = (size - 1).multipliedReportingOverflow(by: stride)
            let (sum, sumOverflow) = last.addingReportingOverflow(step)
            (last, overflow) = (sum, overflow || stepOverflow || sumOverflow)
        }
        let (bytes, bytesOverflow) = (last + 1).multipliedReportingOverflow(by: Number.byteCount)
        guard !overflow, !bytesOverflow, offset >= 0, offset <= file.count, bytes <= file.count - offset else {
            throw ImageFileError(
                "the data holds fewer values than \(layout.width) × \(layout.height) pixels × \(layout.channels) channels"
            )
        }
        self.file = file
        self.offset = offset
        self.layout = layout
        self.littleEndian = littleEndian
    }

    public var width: Int { layout.width }
    public var height: Int { layout.height }
    public var channels: Int { layout.channels }

    private func byteOffset(x: Int, y: Int, channel: Int) -> Int {
        offset + (x * layout.strides.x + y * layout.strides.y + channel * layout.strides.channel) * Number.byteCount
    }

    public func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        let channels = self.channels, size = Number.byteCount, little = littleEndian
        let count = columns.count * rows.count * channels
        guard count > 0, let base = file.buffer.baseAddress else { return [] }
        let values = [Float](unsafeUninitializedCapacity: count) { output, initialized in
            var at = 0
            for y in rows {
                for x in columns {
                    let start = base + byteOffset(x: x, y: y, channel: 0)
                    let step = layout.strides.channel * size
                    for channel in 0..<channels {
                        output[at + channel] = Number.value(at: start + channel * step, littleEndian: little)
                    }
                    at += channels
                }
            }
            initialized = count
        }
        let corners = [
            byteOffset(x: columns.lowerBound, y: rows.lowerBound, channel: 0),
            byteOffset(x: columns.upperBound - 1, y: rows.upperBound - 1, channel: channels - 1)
        ]
        file.doneReading(corners.min()!..<(corners.max()! + size))
        return values
    }

    public func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        if layout.spectraAreContiguous { return sweepSpectra(windows: windows, summing: summing) }
        if layout.channelsAreImages { return sweepImages(windows: windows, summing: summing) }
        return try sweepInBlocks(windows: windows, summing: summing)
    }

    /// Through `spectra(columns:rows:)`, for layouts of other orders.
    private func sweepInBlocks(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        var sweep = SpectrumSweep(
            maps: windows.map { _ in [Double](repeating: 0, count: width * height) },
            summed: summing ? [Double](repeating: 0, count: channels) : nil)
        let tally = WindowTally(windows: windows, channels: channels)
        for y in 0..<height {
            let row = try spectra(columns: 0..<width, rows: y..<(y + 1))
            row.withUnsafeBufferPointer { values in
                for x in 0..<width {
                    let spectrum = UnsafeBufferPointer(rebasing: values[(x * channels)..<((x + 1) * channels)])
                    tally.add(spectrum, pixel: y * width + x, to: &sweep)
                }
            }
        }
        return sweep
    }

    /// Spectrum after spectrum, each contiguous in the file.
    private func sweepSpectra(windows: [Range<Int>], summing: Bool) -> SpectrumSweep {
        let windows = windows.map { $0.clamped(to: 0..<layout.channels) }
        var maps = windows.map { _ in [Double](repeating: 0, count: width * height) }
        var summed = [Double](repeating: 0, count: summing ? channels : 0)
        guard let base = file.buffer.baseAddress else { return SpectrumSweep(maps: maps, summed: nil) }
        let size = Number.byteCount, little = littleEndian, channels = self.channels
        var spectrum = [Float](repeating: 0, count: channels)
        for y in 0..<height {
            for x in 0..<width {
                let start = base + byteOffset(x: x, y: y, channel: 0)
                spectrum.withUnsafeMutableBufferPointer { values in
                    for channel in 0..<channels {
                        values[channel] = Number.value(at: start + channel * size, littleEndian: little)
                    }
                    for (index, window) in windows.enumerated() {
                        maps[index][y * width + x] = Self.sum(values, window)
                    }
                    if summing {
                        summed.withUnsafeMutableBufferPointer { total in
                            for channel in 0..<channels { total[channel] += Double(values[channel]) }
                        }
                    }
                }
            }
            // A row of spectra is read once: its pages go back at once.
            let first = byteOffset(x: 0, y: y, channel: 0), last = byteOffset(x: width - 1, y: y, channel: channels - 1)
            file.doneReading(min(first, last)..<(max(first, last) + size))
        }
        return SpectrumSweep(maps: maps, summed: summing ? summed : nil)
    }

    /// Channel after channel, each an image contiguous in the file.
    private func sweepImages(windows: [Range<Int>], summing: Bool) -> SpectrumSweep {
        let pixels = width * height
        var maps = windows.map { _ in [Double](repeating: 0, count: pixels) }
        var summed = [Double](repeating: 0, count: summing ? channels : 0)
        guard let base = file.buffer.baseAddress else { return SpectrumSweep(maps: maps, summed: nil) }
        let size = Number.byteCount, little = littleEndian
        var plane = [Float](repeating: 0, count: pixels)
        for channel in 0..<channels {
            let inWindows = windows.indices.filter { windows[$0].contains(channel) }
            guard summing || !inWindows.isEmpty else { continue }
            let start = base + byteOffset(x: 0, y: 0, channel: channel)
            plane.withUnsafeMutableBufferPointer { values in
                for pixel in 0..<pixels { values[pixel] = Number.value(at: start + pixel * size, littleEndian: little) }
                for index in inWindows {
                    maps[index].withUnsafeMutableBufferPointer { map in
                        for pixel in 0..<pixels { map[pixel] += Double(values[pixel]) }
                    }
                }
                if summing { summed[channel] = Self.sum(values, 0..<pixels) }
            }
            let first = byteOffset(x: 0, y: 0, channel: channel)
            file.doneReading(first..<(first + pixels * size))
        }
        return SpectrumSweep(maps: maps, summed: summing ? summed : nil)
    }

    /// A sum in four running parts, so that the additions need not wait for one another.
    @inline(__always)
    private static func sum(_ values: UnsafeMutableBufferPointer<Float>, _ range: Range<Int>) -> Double {
        var parts: (Double, Double, Double, Double) = (0, 0, 0, 0)
        var index = range.lowerBound
        while index + 4 <= range.upperBound {
            parts.0 += Double(values[index])
            parts.1 += Double(values[index + 1])
            parts.2 += Double(values[index + 2])
            parts.3 += Double(values[index + 3])
            index += 4
        }
        while index < range.upperBound {
            parts.0 += Double(values[index])
            index += 1
        }
        return (parts.0 + parts.1) + (parts.2 + parts.3)
    }
}
