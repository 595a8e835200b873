import CPNG
import Glibc
import SonicCore

/// Reads PNG files into raw grayscale samples with libpng's simplified API.
///
/// Gray files come through exactly (16-bit raw values unchanged, even with gAMA/sRGB/iCCP/cHRM chunks);
/// colour, palette and alpha files become luminance.
public enum PNGDecoder {
    /// The file as the one image it holds, described from its header; decoded when read.
    public static func contents(of bytes: [UInt8]) throws(ImageFileError) -> ImageFileContents {
        let header = try PNGChunks.header(of: bytes)
        try ImageLimits.check(width: header.width, height: header.height)
        let entry = ImageEntry(
            title: "", shape: [header.width, header.height],
            sampleType: header.bitDepth == 16 ? .uint16 : .uint8
        ) { try decode(bytes: bytes) }
        return ImageFileContents(format: .png, entries: [entry])
    }

    public static func decode(bytes: [UInt8]) throws -> GrayImage {
        let header = try PNGChunks.header(of: bytes)
        try ImageLimits.check(width: header.width, height: header.height)
        let clean = PNGChunks.removingColourSpace(bytes)
        // 16-bit data is read linear: with no colour-space chunk that is the raw samples, and it avoids
        // libpng's bug with 16-bit interlaced files read as 8-bit. 8-bit data is read as 8-bit gray.
        let wide = header.bitDepth == 16
        let count = header.width * header.height
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return try clean.withUnsafeBytes { raw throws -> GrayImage in
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                throw ImageFileError(message(&image))
            }
            defer { png_image_free(&image) }
            guard Int(image.width) == header.width, Int(image.height) == header.height else {
                throw ImageFileError("the PNG header is inconsistent")
            }
            image.format = wide ? UInt32(PNG_FORMAT_LINEAR_Y) : UInt32(PNG_FORMAT_GRAY)
            if wide {
                var samples = [UInt16](repeating: 0, count: count)
                let ok = samples.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
                guard ok != 0 else { throw ImageFileError(message(&image)) }
                return GrayImage(width: header.width, height: header.height, bitDepth: 16, samples: samples)
            }
            var bytes = [UInt8](repeating: 0, count: count)
            let ok = bytes.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard ok != 0 else { throw ImageFileError(message(&image)) }
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
}
