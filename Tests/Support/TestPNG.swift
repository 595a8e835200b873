/// A PNG writer written from the specification, independent of libpng, so decoder tests compare
/// libpng's reading against a separate implementation. Supports every colour type and bit depth,
/// Adam7 interlacing and arbitrary extra chunks; pixel data is stored uncompressed (deflate "stored").
public struct TestPNG {
    public enum ColourType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6
        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    public var width: Int
    public var height: Int
    public var bitDepth: Int
    public var colourType: ColourType
    /// Channel values, row-major, `channels` per pixel (palette: the index).
    public var samples: [UInt16]
    public var palette: [(UInt8, UInt8, UInt8)] = []
    public var interlaced = false
    /// Chunks written between IHDR and IDAT, e.g. ("gAMA", bytes).
    public var extraChunks: [(type: String, data: [UInt8])] = []

    public init(width: Int, height: Int, bitDepth: Int, colourType: ColourType, samples: [UInt16]) {
        precondition(samples.count == width * height * colourType.channels)
        self.width = width; self.height = height; self.bitDepth = bitDepth
        self.colourType = colourType; self.samples = samples
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = Self.bigEndian32(UInt32(width)) + Self.bigEndian32(UInt32(height))
        header += [UInt8(bitDepth), colourType.rawValue, 0, 0, interlaced ? 1 : 0]
        out += Self.chunk("IHDR", header)
        for extra in extraChunks { out += Self.chunk(extra.type, extra.data) }
        if colourType == .palette {
            out += Self.chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] })
        }
        out += Self.chunk("IDAT", Self.zlibStored(scanlines()))
        out += Self.chunk("IEND", [])
        return out
    }

    /// Filter-type-0 scanlines, pass by pass when interlaced.
    private func scanlines() -> [UInt8] {
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] =
            interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var data: [UInt8] = []
        for pass in passes {
            let columns = Array(stride(from: pass.x, to: width, by: pass.dx))
            guard !columns.isEmpty else { continue }
            for y in stride(from: pass.y, to: height, by: pass.dy) {
                data.append(0)
                var values: [UInt16] = []
                for x in columns {
                    let base = (y * width + x) * colourType.channels
                    values += samples[base..<base + colourType.channels]
                }
                data += pack(values)
            }
        }
        return data
    }

    private func pack(_ values: [UInt16]) -> [UInt8] {
        switch bitDepth {
        case 16: return values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8: return values.map { UInt8($0) }
        default:
            var out: [UInt8] = []
            var current: UInt8 = 0, used = 0
            for v in values {
                current |= UInt8(v) << UInt8(8 - bitDepth - used)
                used += bitDepth
                if used == 8 { out.append(current); current = 0; used = 0 }
            }
            if used > 0 { out.append(current) }
            return out
        }
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian32(UInt32(data.count)) + typeBytes + data + bigEndian32(crc32(typeBytes + data))
    }

    static func bigEndian32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<offset + n]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + bigEndian32(b << 16 | a)
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}
