import Foundation
import Glibc
import SonicCore
import SonicHDF5
import SonicPNG
import SonicTIFF

/// Opens image files of every format the program reads, recognised by their first bytes (never by
/// their names), and picks the image to play from those a file holds.
public enum ImageFiles {
    /// An image chosen from a file, read.
    public struct Opened: Sendable {
        public let path: String
        public let contents: ImageFileContents
        /// 1-based among the file's images (the datasets that are images).
        public let number: Int
        public let entry: ImageEntry
        public let image: GrayImage

        public var imageCount: Int { contents.entries.filter(\.isImage).count }
        public var fileName: String { URL(fileURLWithPath: path).lastPathComponent }
        public var description: OpenedImage {
            OpenedImage(
                fileName: fileName, title: entry.title, number: number, imageCount: imageCount,
                calibration: entry.calibration)
        }
    }

    /// Every dataset in the file, described (samples are read only when an image is opened).
    public static func contents(of path: String) throws(ImageFileError) -> ImageFileContents {
        let head = try readBytes(path, atMost: 16)
        guard !head.isEmpty else { throw ImageFileError("the file is empty") }
        guard let format = ImageFileFormat.recognise(head) else {
            throw ImageFileError("not an image file this program reads (PNG, DM3, DM4, TIFF or EMD)")
        }
        switch format {
        case .png: return try PNGDecoder.contents(of: readBytes(path))
        case .dm3, .dm4: return try DigitalMicrograph.contents(of: readBytes(path))
        case .tiff: return try TIFFReader.contents(path: path)
        case .emd: return try EMDReader.contents(path: path)
        }
    }

    /// Opens image `number` of the file (1-based among its images), or by default its largest image
    /// (the first of equals).
    public static func open(_ path: String, number: Int? = nil) throws(ImageFileError) -> Opened {
        let contents = try contents(of: path)
        let images = contents.entries.filter(\.isImage)
        guard !images.isEmpty else {
            let reasons = Set(contents.entries.compactMap(\.unsupported)).sorted().joined(separator: "; ")
            throw ImageFileError(
                reasons.isEmpty ? "the file holds no image" : "the file holds no image it can play (\(reasons))")
        }
        let chosen: Int
        if let number {
            guard (1...images.count).contains(number) else {
                throw ImageFileError(
                    "there is no image \(number): the file holds \(images.count == 1 ? "one image" : "\(images.count) images")"
                )
            }
            chosen = number - 1
        } else {
            let largest = images.map { $0.width * $0.height }.max() ?? 0
            chosen = images.firstIndex { $0.width * $0.height == largest } ?? 0
        }
        let entry = images[chosen]
        let image: GrayImage
        do { image = try entry.read() } catch let error as ImageFileError { throw error } catch {
            throw ImageFileError("\(error)")
        }
        return Opened(path: path, contents: contents, number: chosen + 1, entry: entry, image: image)
    }

    /// The file's bytes (at most `limit`), read whole: a regular file, at most ImageLimits.maxFileBytes.
    public static func readBytes(_ path: String, atMost limit: Int = ImageLimits.maxFileBytes) throws(ImageFileError)
        -> [UInt8]
    {
        func systemError() -> ImageFileError { ImageFileError(String(cString: strerror(errno)).lowercased()) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw systemError() }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw systemError() }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ImageFileError("not a regular file") }
        guard info.st_size <= ImageLimits.maxFileBytes else { throw ImageFileError("the file is larger than 2 GiB") }
        var bytes = [UInt8](repeating: 0, count: min(limit, Int(info.st_size)))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return filled == bytes.count ? bytes : Array(bytes[0..<filled])
    }
}
