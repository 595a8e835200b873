import Dispatch

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
        return try sweepBlockByBlock(windows: windows, summing: summing)
    }

    /// Spectrum after spectrum, each contiguous in the file, in bands of rows, one per core at a time.
    private func sweepSpectra(windows: [Range<Int>], summing: Bool) -> SpectrumSweep {
        let windows = windows.map { $0.clamped(to: 0..<layout.channels) }
        let bands = min(height, 16)
        let totals = SweepTotals(
            windows: windows.count, pixels: width * height, bands: bands, channels: summing ? channels : 0)
        guard file.buffer.baseAddress != nil else { return totals.sweep(summing: false) }
        let size = Number.byteCount, little = littleEndian, channels = self.channels, width = self.width
        let progress = WorkProgress.current
        progress?.begin("reading the spectra", steps: height)
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let base = file.buffer.baseAddress!
            for y in (band * height / bands)..<((band + 1) * height / bands) {
                for x in 0..<width {
                    let start = base + byteOffset(x: x, y: y, channel: 0)
                    for (index, window) in windows.enumerated() {
                        totals.maps[index][y * width + x] = Number.sum(
                            at: start + window.lowerBound * size, count: window.count, littleEndian: little)
                    }
                    if summing { Number.add(at: start, count: channels, littleEndian: little, to: totals.summed(band)) }
                }
                // A row of spectra is read once: its pages go back at once.
                let first = byteOffset(x: 0, y: y, channel: 0)
                let last = byteOffset(x: width - 1, y: y, channel: channels - 1)
                file.doneReading(min(first, last)..<(max(first, last) + size))
                progress?.advance()
            }
        }
        return totals.sweep(summing: summing)
    }

    /// Channel after channel, each an image contiguous in the file, a stretch of pixels at a time:
    /// each core adds the stretch of every channel into its part of the maps, which stays in the
    /// processor's cache, and gives the pages read back as it goes.
    private func sweepImages(windows: [Range<Int>], summing: Bool) -> SpectrumSweep {
        let pixels = width * height, channels = self.channels
        let stretch = 32768
        let stretches = (pixels + stretch - 1) / stretch
        let totals = SweepTotals(
            windows: windows.count, pixels: pixels, bands: stretches, channels: summing ? channels : 0)
        guard file.buffer.baseAddress != nil else { return totals.sweep(summing: false) }
        let size = Number.byteCount, little = littleEndian
        let memberOf = (0..<channels).map { channel in windows.indices.filter { windows[$0].contains(channel) } }
        let progress = WorkProgress.current
        progress?.begin("reading the spectra", steps: stretches)
        DispatchQueue.concurrentPerform(iterations: stretches) { part in
            let base = file.buffer.baseAddress!
            let pixelRange = (part * stretch)..<min(pixels, (part + 1) * stretch)
            for channel in 0..<channels where summing || !memberOf[channel].isEmpty {
                let first = byteOffset(x: 0, y: 0, channel: channel) + pixelRange.lowerBound * size
                for index in memberOf[channel] {
                    Number.add(
                        at: base + first, count: pixelRange.count, littleEndian: little,
                        to: totals.maps[index].baseAddress! + pixelRange.lowerBound)
                }
                if summing {
                    totals.summed(part)[channel] = Number.sum(
                        at: base + first, count: pixelRange.count, littleEndian: little)
                }
                file.doneReading(first..<(first + pixelRange.count * size))
            }
            progress?.advance()
        }
        return totals.sweep(summing: summing)
    }
}

/// Where the cores of a sweep put their sums: maps written pixel by pixel (each pixel by one core),
/// and a summed spectrum per band (of rows, or stretch of pixels), added up at the end.
private final class SweepTotals: @unchecked Sendable {
    let maps: [UnsafeMutableBufferPointer<Double>]
    private let spectra: PartSums

    init(windows: Int, pixels: Int, bands: Int, channels: Int) {
        maps = (0..<windows).map { _ in
            let map = UnsafeMutableBufferPointer<Double>.allocate(capacity: pixels)
            map.initialize(repeating: 0)
            return map
        }
        spectra = PartSums(parts: bands, size: channels)
    }

    deinit { for map in maps { map.deallocate() } }

    /// Band `band`'s summed spectrum.
    func summed(_ band: Int) -> UnsafeMutablePointer<Double> { spectra.table(band) }

    func sweep(summing: Bool) -> SpectrumSweep {
        SpectrumSweep(maps: maps.map { Array($0) }, summed: summing ? spectra.added() : nil)
    }
}

/// Makes the spectra source for a file's number type.
public struct DenseSpectraMaker: StoredNumberVisitor {
    let file: FileBytes
    let offset: Int
    let layout: SpectrumLayout
    let littleEndian: Bool

    public init(file: FileBytes, offset: Int, layout: SpectrumLayout, littleEndian: Bool) {
        self.file = file
        self.offset = offset
        self.layout = layout
        self.littleEndian = littleEndian
    }

    /// The spectra stored as `sampleType` (or true-or-false bytes when `bool`).
    public func make(_ sampleType: SampleType, bool: Bool = false) throws(ImageFileError) -> any SpectrumSource {
        try sampleType.visit(self, bool: bool).get()
    }

    public func visit<Number: StoredNumber>(_: Number.Type) -> Result<any SpectrumSource, ImageFileError> {
        do throws(ImageFileError) {
            return .success(
                try DenseSpectra<Number>(file: file, offset: offset, layout: layout, littleEndian: littleEndian))
        } catch {
            return .failure(error)
        }
    }
}
