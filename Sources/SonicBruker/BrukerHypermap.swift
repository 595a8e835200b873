import SonicCore

/// Bruker's hypermap: the spectra of a scan as Esprit packs them. After a 0x1A0-byte header (its
/// height and width first), each line gives how many pixels it holds, then each pixel a 22-byte
/// header (its column, channel counts, packing and data size) and its data, packed one of three
/// ways: a list of 16-bit pulses, a list of 12-bit pulses, or runs of channels, each run a gain and
/// values above it 4, 8, 16 or 32 bits wide, with extra pulses after. Pixels left out hold no counts.
///
/// The decompressed hypermap is gone through once to note where each pixel starts; a pixel's
/// spectrum is decoded when asked for.
struct BrukerHypermap: SpectrumSource {
    let width: Int
    let height: Int
    let channels: Int
    private let data: [UInt8]
    /// Where each pixel's header starts, row by row; -1 for pixels the hypermap leaves out.
    private let starts: [Int]

    static let headerSize = 0x1A0, pixelHeaderSize = 22

    init(_ data: [UInt8], width: Int, height: Int, channels: Int) throws(ImageFileError) {
        // Hypermaps are sparse: the dense cube's size (4096 channels of 1024 × 768 pixels pass 2³¹
        // values) is never held, so only the scan and the channels are limited.
        try ImageLimits.check(width: width, height: height)
        try ImageLimits.check(channels: channels)
        guard let storedHeight = data.int32(at: 0), let storedWidth = data.int32(at: 4) else {
            throw ImageFileError("its hypermap is cut short")
        }
        guard storedWidth == width, storedHeight == height else {
            throw ImageFileError(
                "its hypermap is \(storedWidth) × \(storedHeight) pixels, its header says \(width) × \(height)")
        }
        self.width = width
        self.height = height
        self.channels = channels
        var starts = [Int](repeating: -1, count: width * height)
        var at = Self.headerSize
        for line in 0..<height {
            guard let pixels = data.int32(at: at), (0...width).contains(pixels) else {
                throw ImageFileError("its hypermap is damaged at line \(line + 1)")
            }
            at += 4
            for _ in 0..<pixels {
                guard let x = data.uint32(at: at), x < width, let packing = data.uint16(at: at + 12),
                    let pulses = data.uint16(at: at + 16), let size = data.uint32(at: at + 18)
                else { throw ImageFileError("its hypermap is damaged at line \(line + 1)") }
                starts[line * width + x] = at
                var next = at + Self.pixelHeaderSize + size
                if packing > 1, pulses > 0 {
                    guard size >= 4, let extra = data.uint32(at: next - 4) else {
                        throw ImageFileError("its hypermap is damaged at line \(line + 1)")
                    }
                    next += extra
                }
                guard next <= data.count else { throw ImageFileError("its hypermap is cut short at line \(line + 1)") }
                at = next
            }
        }
        self.data = data
        self.starts = starts
    }

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        guard columns.lowerBound >= 0, columns.upperBound <= width, rows.lowerBound >= 0, rows.upperBound <= height
        else { throw ImageFileError("pixels outside the \(width) × \(height) scan") }
        var values = [Float](repeating: 0, count: columns.count * rows.count * channels)
        var at = 0
        for y in rows {
            for x in columns {
                let start = starts[y * width + x]
                if start >= 0 {
                    try values.withUnsafeMutableBufferPointer { output throws(ImageFileError) in
                        let spectrum = UnsafeMutableBufferPointer(rebasing: output[at..<(at + channels)])
                        guard decode(at: start, into: spectrum) else {
                            throw ImageFileError("its hypermap is damaged at pixel \(x), \(y)")
                        }
                    }
                }
                at += channels
            }
        }
        return values
    }

    /// Adds the counts of the pixel whose header is at `start`; false where its data is damaged.
    private func decode(at start: Int, into spectrum: UnsafeMutableBufferPointer<Float>) -> Bool {
        guard let kept = data.uint16(at: start + 4), let packing = data.uint16(at: start + 12),
            let pulses = data.uint16(at: start + 16), let size = data.uint32(at: start + 18)
        else { return false }
        // Channels past those the pixel declares, or past the spectrum, are dropped.
        let limit = min(kept, channels)
        let body = start + Self.pixelHeaderSize
        func count(_ channel: Int, _ amount: Float = 1) {
            if channel < limit { spectrum[channel] += amount }
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
