import Foundation
import Glibc
import SonicBruker
import SonicCore
import SonicHDF5
import SonicPNG
import SonicTIFF

/// Opens image files of every format the program reads, recognised by their first bytes (never by
/// their names), and picks what to play from the signals a file holds.
///
/// A file's signals — images, stacks, spectrum images, line scans and spectra — are numbered 1, 2, …
/// in the file's order, as `inspect` lists them; datasets it skips are not numbered. What plays is
/// an image, a stack's first frame, or a spectrum image's (or line scan's) image acquired with its
/// spectra, else its total counts.
public enum ImageFiles {
    /// A signal chosen from a file, with the image it plays as, read.
    public struct Opened: Sendable {
        public let path: String
        public let contents: ImageFileContents
        /// 1-based among the file's signals.
        public let number: Int
        public let entry: ImageEntry
        public let image: GrayImage
        /// What of the signal plays, when it is not simply an image: "stack, frame 1 of 12",
        /// "spectrum image, total counts", "spectrum image, survey image HAADF".
        public let shown: String?
        /// The calibration of the image played.
        public let calibration: Calibration

        public var signalCount: Int { contents.entries.filter(\.isSignal).count }
        public var fileName: String { URL(fileURLWithPath: path).lastPathComponent }
        public var openedImage: OpenedImage {
            OpenedImage(
                fileName: fileName, title: [entry.title, shown ?? ""].filter { !$0.isEmpty }.joined(separator: ", "),
                number: number, imageCount: signalCount, calibration: calibration)
        }
    }

    /// Every dataset in the file, described (samples are read only when asked for).
    public static func contents(of path: String) throws(ImageFileError) -> ImageFileContents {
        let head = try readBytes(path, atMost: 16)
        guard !head.isEmpty else { throw ImageFileError("the file is empty") }
        guard let format = ImageFileFormat.recognise(head) else {
            throw ImageFileError("not an image file this program reads (PNG, DM3, DM4, TIFF, EMD, HyperSpy or Bruker)")
        }
        switch format {
        case .png: return try PNGDecoder.contents(of: readBytes(path))
        case .dm3, .dm4: return try DigitalMicrograph.contents(of: MappedFile.bytes(of: path))
        case .tiff: return try TIFFReader.contents(path: path)
        case .emd, .hspy: return try EMDReader.contents(path: path)
        case .bcf: return try BCFReader.contents(of: MappedFile.bytes(of: path))
        }
    }

    /// Opens signal `number` of the file (1-based among its signals), or by default the one whose
    /// image is largest (the first of equals that is not an element map).
    public static func open(_ path: String, number: Int? = nil) throws(ImageFileError) -> Opened {
        try open(path, contents: contents(of: path), number: number)
    }

    /// The signal `number` names (1-based), or by default the one whose image is largest (the
    /// first of equals that is not an element map): its index among the file's entries, and its number.
    public static func signal(_ number: Int?, in contents: ImageFileContents) throws(ImageFileError)
        -> (entry: Int, number: Int)
    {
        let signals = contents.entries.indices.filter { contents.entries[$0].isSignal }
        if let number {
            guard !signals.isEmpty, (1...signals.count).contains(number) else {
                throw ImageFileError(
                    "there is no image \(number): the file holds \(describe(signals.map { contents.entries[$0] }))")
            }
            return (signals[number - 1], number)
        }
        let playable = signals.filter { contents.entries[$0].kind != .spectrum }
        guard !playable.isEmpty else {
            let reasons = Set(
                contents.entries.compactMap {
                    $0.kind == .spectrum ? "a single spectrum: inspect and map read it" : $0.unsupported
                }
            ).sorted().joined(separator: "; ")
            throw ImageFileError(
                reasons.isEmpty ? "the file holds no image" : "the file holds no image it can play (\(reasons))")
        }
        let size = { (index: Int) in contents.entries[index].width * contents.entries[index].height }
        let largest = playable.map(size).max() ?? 0
        let candidates = playable.filter { size($0) == largest }
        // A survey or HAADF image plays before the element maps beside it.
        let first = candidates.first { Element.mapped(byTitle: contents.entries[$0].title) == nil } ?? candidates[0]
        return (first, signals.firstIndex(of: first)! + 1)
    }

    /// Opens a signal of a file already listed.
    public static func open(_ path: String, contents: ImageFileContents, number: Int?) throws(ImageFileError)
        -> Opened
    {
        let (index, number) = try signal(number, in: contents)
        let entry = contents.entries[index]
        guard entry.kind != .spectrum else {
            throw ImageFileError("image \(number) is a single spectrum, not an image: inspect and map read it")
        }
        var shown: String?
        var calibration = entry.calibration
        let image: GrayImage
        do {
            switch entry.content {
            case .stack(let stack):
                shown = "stack, frame 1 of \(stack.count)"
                image = try stack.frame(0)
            case .spectra:
                if let acquired = entry.acquiredImage.map({ contents.entries[$0] }), acquired.isImage,
                    acquired.width == entry.width, acquired.height == entry.height
                {
                    shown = "\(entry.kind?.spoken ?? ""), with its \(acquired.title) image"
                    calibration = acquired.calibration
                    image = try acquired.read()
                } else {
                    shown = "\(entry.kind?.spoken ?? ""), total counts"
                    image = try entry.read()
                }
            default:
                image = try entry.read()
            }
        } catch let error as ImageFileError { throw error } catch { throw ImageFileError("\(error)") }
        return Opened(
            path: path, contents: contents, number: number, entry: entry, image: image, shown: shown,
            calibration: calibration)
    }

    /// "2 images", "one image", "18 signals: 8 images, 3 spectrum images and 7 spectra".
    static func describe(_ signals: [ImageEntry]) -> String {
        guard !signals.isEmpty else { return "none" }
        var counts: [(SignalKind, Int)] = []
        for kind in SignalKind.allCases {
            let n = signals.filter { $0.kind == kind }.count
            if n > 0 { counts.append((kind, n)) }
        }
        func named(_ kind: SignalKind, _ n: Int) -> String {
            let word = kind == .spectrum ? (n == 1 ? "spectrum" : "spectra") : kind.spoken + (n == 1 ? "" : "s")
            return n == 1 ? "one \(word)" : "\(n) \(word)"
        }
        if counts.count == 1 { return named(counts[0].0, counts[0].1) }
        let parts = counts.map { named($0.0, $0.1) }
        return "\(signals.count) signals: " + parts.dropLast().joined(separator: ", ") + " and " + parts.last!
    }

    /// The file's first `limit` bytes, or all of them: a regular file, of which at most
    /// ImageLimits.maxFileBytes are read.
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
        guard min(limit, Int(info.st_size)) <= ImageLimits.maxFileBytes else {
            throw ImageFileError("the file is larger than 2 GiB")
        }
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

extension ImageFiles.Opened {
    /// An image the program made, played as an image read from a file named `name` would be.
    public static func made(_ image: GrayImage, name: String) -> Self {
        let entry = ImageEntry(
            title: "", shape: [image.width, image.height], sampleType: image.sampleType, read: { image })
        return Self(
            path: name, contents: ImageFileContents(format: .png, entries: [entry]), number: 1, entry: entry,
            image: image, shown: nil, calibration: .none)
    }
}
