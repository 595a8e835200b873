import CPNG
import Glibc
import SonicCore

/// Reads PNG files into raw grayscale samples with libpng's simplified API.
///
/// Gray files come through exactly (16-bit raw values unchanged, even with gAMA/sRGB/iCCP/cHRM chunks);
/// colour, palette and alpha files become luminance.
public enum PNGDecoder {
    /// The largest image accepted: 8192 × 8192 pixels (the samples alone then take 128 MiB).
    public static let maxPixels = 8192 * 8192
    /// A PNG of the largest image compresses to far less; anything bigger is not a sane input.
    static let maxFileBytes = 1 << 30

    public static func decode(path: String) throws -> GrayImage {
        try decode(bytes: readFile(path))
    }

    public static func decode(bytes: [UInt8]) throws -> GrayImage {
        let header = try PNGChunks.header(of: bytes)
        guard header.width > 0, header.height > 0 else { throw PNGError("the image has no pixels") }
        guard header.width <= maxPixels, header.height <= maxPixels,
              header.width * header.height <= maxPixels else {
            throw PNGError("the image is \(header.width) × \(header.height) pixels, more than the 8192 × 8192 limit")
        }
        let clean = PNGChunks.removingColourSpace(bytes)
        // 16-bit data is read linear: with no colour-space chunk that is the raw samples, and it avoids
        // libpng's bug with 16-bit interlaced files read as 8-bit. 8-bit data is read as 8-bit gray.
        let wide = header.bitDepth == 16
        let count = header.width * header.height
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return try clean.withUnsafeBytes { raw throws -> GrayImage in
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                throw PNGError(message(&image))
            }
            defer { png_image_free(&image) }
            guard Int(image.width) == header.width, Int(image.height) == header.height else {
                throw PNGError("the PNG header is inconsistent")
            }
            image.format = wide ? UInt32(PNG_FORMAT_LINEAR_Y) : UInt32(PNG_FORMAT_GRAY)
            if wide {
                var samples = [UInt16](repeating: 0, count: count)
                let ok = samples.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
                guard ok != 0 else { throw PNGError(message(&image)) }
                return GrayImage(width: header.width, height: header.height, bitDepth: 16, samples: samples)
            }
            var bytes = [UInt8](repeating: 0, count: count)
            let ok = bytes.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard ok != 0 else { throw PNGError(message(&image)) }
            return GrayImage(width: header.width, height: header.height, bitDepth: 8, samples: bytes.map(UInt16.init))
        }
    }

    /// libpng's message for the last failure, cleaned up for a one-line report.
    private static func message(_ image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        switch text {
        case "": return "the PNG data is damaged"
        case let t where t.contains("Read Error") || t.contains("beyond end"): return "the file is truncated"
        default: return "the PNG data is damaged (\(text))"
        }
    }

    static func readFile(_ path: String) throws(PNGError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PNGError(String(cString: strerror(errno)).lowercased()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PNGError(String(cString: strerror(errno)).lowercased()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw PNGError("not a regular file") }
        guard info.st_size <= maxFileBytes else { throw PNGError("the file is larger than 1 GiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return Array(bytes[0..<filled])
    }
}
