import CPNG
import Glibc
import SonicCore

/// Writes grayscale images as PNG, raw samples with no colour-space chunks.
public enum PNGEncoder {
    public static func encode(_ image: GrayImage) throws -> [UInt8] {
        guard image.sampleType == .uint8 || image.sampleType == .uint16 else {
            throw ImageFileError("only 8- and 16-bit unsigned images can be written as PNG")
        }
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = image.bitDepth == 16 ? UInt32(PNG_FORMAT_LINEAR_Y) : UInt32(PNG_FORMAT_GRAY)
        let pixels: [UInt8] =
            image.bitDepth == 16
            ? image.samples.map { UInt16($0) }.withUnsafeBytes { Array($0) }
            : image.samples.map { UInt8($0) }
        var size = 0
        // First call measures, second writes.
        guard pixels.withUnsafeBytes({ png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, 0, nil) }) != 0
        else {
            throw ImageFileError("cannot encode the image")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes {
                png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        guard ok != 0 else { throw ImageFileError("cannot encode the image") }
        // libpng marks 16-bit output as linear light and 8-bit as sRGB; raw data is neither.
        return PNGChunks.removingColourSpace(Array(bytes[0..<size]))
    }

    /// Writes to a temporary file beside `path`, then renames, so a reader never sees half a file.
    public static func write(_ image: GrayImage, to path: String) throws {
        let bytes = try encode(image)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ImageFileError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ImageFileError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
