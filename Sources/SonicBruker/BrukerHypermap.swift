import SonicCore

/// Bruker's hypermap: the spectra of a scan as Esprit packs them. After a 0x1A0-byte header (its
/// height and width first), each line gives how many pixels it holds, then each pixel a 22-byte
/// header (its column, channel counts, packing and data size) and its data, packed one of three
/// ways: a list of 16-bit pulses, a list of 12-bit pulses, or runs of channels, each run a gain and
/// values above it 4, 8, 16 or 32 bits wide, with extra pulses after. Pixels left out hold no counts.
///
/// The hypermap is gone through once, a stretch at a time, to note where each pixel's record lies; a pixel's
/// spectrum is read and decoded when asked for. Neither the hypermap nor its dense cube (4096 channels of 1024 × 768
/// pixels pass 2³¹ values) is ever held whole, so only the scan and the channels are limited.
struct BrukerHypermap: SpectrumSource {
    let width: Int
    let height: Int
    let channels: Int
    private let stream: SFSStream
    /// The pixels the hypermap holds, line by line, each line's in the order of their columns: where each record
    /// (header and data) starts and ends. As many as the hypermap holds, never one per pixel of the scan: a small
    /// file cannot make a large table.
    private let records: [(x: Int, place: Range<Int>)]
    /// Where each line's pixels start among `records`, and where the last line's end.
    private let lineStarts: [Int]

    static let headerSize = 0x1A0, pixelHeaderSize = 22
    /// How much of the hypermap is read at a time while going through it.
    static let stretch = 1 << 20

    init(_ stream: SFSStream, width: Int, height: Int, channels: Int) throws(ImageFileError) {
        try ImageLimits.check(width: width, height: height)
        try ImageLimits.check(channels: channels)
        var reader = Reader(stream: stream)
        guard let storedHeight = try reader.int32(at: 0), let storedWidth = try reader.int32(at: 4) else {
            throw ImageFileError("its hypermap is cut short")
        }
        guard storedWidth == width, storedHeight == height else {
            throw ImageFileError(
                "its hypermap is \(storedWidth) × \(storedHeight) pixels, its header says \(width) × \(height)")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.stream = stream
        var records: [(x: Int, place: Range<Int>)] = []
        var lineStarts = [0]
        var at = Self.headerSize
        for line in 0..<height {
            func damaged() -> ImageFileError { ImageFileError("its hypermap is damaged at line \(line + 1)") }
            guard let pixels = try reader.int32(at: at), (0...width).contains(pixels) else { throw damaged() }
            at += 4
            var found: [(x: Int, place: Range<Int>)] = []
            for _ in 0..<pixels {
                guard let header = try reader.bytes(at: at, count: Self.pixelHeaderSize),
                    let x = header.uint32(at: 0), x < width
                else { throw damaged() }
                let (packing, pulses, size) = (header.uint16(at: 12)!, header.uint16(at: 16)!, header.uint32(at: 18)!)
                var next = at + Self.pixelHeaderSize + size
                if packing > 1, pulses > 0 {
                    guard size >= 4, let extra = try reader.uint32(at: next - 4) else { throw damaged() }
                    next += extra
                }
                guard next <= stream.count else {
                    throw ImageFileError("its hypermap is cut short at line \(line + 1)")
                }
                found.append((x, at..<next))
                at = next
            }
            // In the order of their columns; of a column given twice, the later record counts.
            var byColumn: [(x: Int, place: Range<Int>)] = []
            for record in found.enumerated().sorted(by: { ($0.element.x, $0.offset) < ($1.element.x, $1.offset) }) {
                if byColumn.last?.x == record.element.x { byColumn.removeLast() }
                byColumn.append(record.element)
            }
            records += byColumn
            lineStarts.append(records.count)
        }
        self.records = records
        self.lineStarts = lineStarts
    }

    /// Where the record of pixel (x, y) lies, if the hypermap holds it.
    private func place(x: Int, y: Int) -> Range<Int>? {
        var (low, high) = (lineStarts[y], lineStarts[y + 1])
        while low < high {
            let middle = (low + high) / 2
            if records[middle].x < x { low = middle + 1 } else { high = middle }
        }
        return low < lineStarts[y + 1] && records[low].x == x ? records[low].place : nil
    }

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        var values = [Float](repeating: 0, count: columns.count * rows.count * channels)
        var at = 0
        for y in rows {
            for x in columns {
                if let place = place(x: x, y: y) {
                    let record = try stream.bytes(place)
                    try values.withUnsafeMutableBufferPointer { output throws(ImageFileError) in
                        let spectrum = UnsafeMutableBufferPointer(rebasing: output[at..<(at + channels)])
                        let whole =
                            record.count == place.count
                            && Self.decode(record, channels: channels) { spectrum[$0] += $1 }
                        guard whole else {
                            throw ImageFileError("its hypermap is damaged at pixel \(x), \(y)")
                        }
                    }
                }
                at += channels
            }
        }
        return values
    }

    /// Reads through the hypermap a stretch at a time.
    private struct Reader {
        let stream: SFSStream
        var held: [UInt8] = []
        var heldStart = 0

        /// `count` bytes from `offset`, or nil past the hypermap's end.
        mutating func bytes(at offset: Int, count: Int) throws(ImageFileError) -> [UInt8]? {
            guard offset >= 0, offset + count <= stream.count else { return nil }
            if offset < heldStart || offset + count > heldStart + held.count {
                held = try stream.bytes(offset..<(offset + max(count, BrukerHypermap.stretch)))
                heldStart = offset
            }
            return Array(held[(offset - heldStart)..<(offset - heldStart + count)])
        }

        mutating func uint32(at offset: Int) throws(ImageFileError) -> Int? {
            try bytes(at: offset, count: 4)?.uint32(at: 0)
        }

        mutating func int32(at offset: Int) throws(ImageFileError) -> Int? {
            try bytes(at: offset, count: 4)?.int32(at: 0)
        }
    }

    /// Goes through every pixel once, adding each count where it falls: a sparse hypermap is never made dense.
    func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        let windowsOf = WindowTally(windows: windows, channels: channels).windowsOfChannels
        var maps = windows.map { _ in [Double](repeating: 0, count: width * height) }
        var summed = [Double](repeating: 0, count: summing ? channels : 0)
        for y in 0..<height {
            for (x, place) in records[lineStarts[y]..<lineStarts[y + 1]] {
                let record = try stream.bytes(place)
                let whole =
                    record.count == place.count
                    && Self.decode(record, channels: channels) { channel, amount in
                        for window in windowsOf.of(channel) { maps[window][y * width + x] += Double(amount) }
                        if summing { summed[channel] += Double(amount) }
                    }
                guard whole else { throw ImageFileError("its hypermap is damaged at pixel \(x), \(y)") }
            }
        }
        return SpectrumSweep(maps: maps, summed: summing ? summed : nil)
    }

    /// Hands each count of a pixel's record (its header and data) to `add`, with its channel, below `channels`;
    /// false where its data is damaged.
    private static func decode(_ data: [UInt8], channels: Int, _ add: (Int, Float) -> Void) -> Bool {
        guard let kept = data.uint16(at: 4), let packing = data.uint16(at: 12), let pulses = data.uint16(at: 16),
            let size = data.uint32(at: 18)
        else { return false }
        // Channels past those the pixel declares, or past the spectrum, are dropped.
        let limit = min(kept, channels)
        let body = pixelHeaderSize
        func count(_ channel: Int, _ amount: Float = 1) {
            if channel < limit, amount != 0 { add(channel, amount) }
        }
        switch packing {
        case 0:
            for index in 0..<(size / 2) { count(data.uint16(at: body + 2 * index)!) }
        case 1:
            // Three 16-bit words (bytes b0…b5) hold four 12-bit pulses.
            for index in 0..<pulses {
                let group = body + index / 4 * 6
                let (first, second): (Int, Int)
                switch index % 4 {
                case 0: (first, second) = (group + 1, group)
                case 1: (first, second) = (group, group + 3)
                case 2: (first, second) = (group + 2, group + 5)
                default: (first, second) = (group + 5, group + 4)
                }
                guard max(first, second) < body + size else { break }
                let word = Int(data[first]) << 8 | Int(data[second])
                count(index % 2 == 0 ? word >> 4 : word & 0xFFF)
            }
        default:
            var at = body
            let end = body + size - 4
            var channel = 0
            while at < end {
                let (width, run) = (Int(data[at]), Int(data[at + 1]))
                at += 2
                if width == 0 {
                    channel += run
                    continue
                }
                guard [1, 2, 4, 8].contains(width), let gain = data.unsigned(at: at, size: width) else { return false }
                at += width
                if width == 1 {
                    // Two values a byte, low nibble first.
                    guard at + (run + 1) / 2 <= data.count else { return false }
                    for index in 0..<run {
                        let byte = data[at + index / 2]
                        count(channel + index, Float(UInt64(index % 2 == 0 ? byte & 0x0F : byte >> 4) &+ gain))
                    }
                    at += (run + 1) / 2
                } else {
                    let valueSize = width / 2
                    for index in 0..<run {
                        guard let value = data.unsigned(at: at + index * valueSize, size: valueSize) else {
                            return false
                        }
                        count(channel + index, Float(value &+ gain))
                    }
                    at += run * valueSize
                }
                channel += run
            }
            if pulses > 0 {
                let extra = data.uint32(at: body + size - 4)!
                for index in 0..<min(pulses, extra / 2) { count(data.uint16(at: body + size + 2 * index)!) }
            }
        }
        return true
    }
}
