import CTIFF
import SonicCore

/// Reads TIFF and BigTIFF files with libtiff: one entry per page (directory), in file order.
///
/// Gray pages of 8-, 16- and 32-bit integers, signed or not, and of 32- and 64-bit floats are read,
/// in strips or tiles, with any compression libtiff decodes. Colour, palette, several samples per
/// pixel, 1/4/12-bit and complex pages are listed with the reason they cannot be played.
/// The Orientation tag is not applied: like ImageJ and tifffile, rows come in stored order, so the
/// calibration's x and y stay those of the stored rows and columns.
public enum TIFFReader {
    /// More pages than any microscope stack has; walking a longer chain is not worth the time.
    static let maxPages = 100_000

    public static func contents(path: String) throws(ImageFileError) -> ImageFileContents {
        let handle = try TIFFHandle(path: path)
        guard TIFFLastDirectory(handle.tiff) == 0 else { throw ImageFileError("the file has no pages") }
        var pages: [TIFFPage] = []
        var firstDescription: String?
        repeat {
            guard pages.count < maxPages else { throw ImageFileError("the file has more than \(maxPages) pages") }
            _ = try handle.attempt(
                "the directory of page \(pages.count + 1) is damaged",
                { TIFFReadDirectory(handle.tiff) }, succeeded: { $0 != 0 })
            if pages.isEmpty { firstDescription = handle.string(TIFFTAG_IMAGEDESCRIPTION) }
            pages.append(TIFFPage(handle, index: pages.count, firstDescription: firstDescription))
        } while TIFFLastDirectory(handle.tiff) == 0
        let pageCount = pages.count
        if let stack = stack(pages, description: firstDescription, path: path) { return stack }
        let entries = pages.map { page in
            ImageEntry(
                title: page.title, shape: [page.width, page.height], sampleType: page.sampleType,
                unsupported: page.unsupported, calibration: page.calibration
            ) {
                try readPlane(path: path, page: page, pageCount: pageCount)
            }
        }
        return ImageFileContents(format: .tiff, entries: entries)
    }

    /// An ImageJ stack — the first page's description says `images=` the number of pages, each
    /// alike — as one entry of as many frames; its frame axis is time where ImageJ gives a frame
    /// interval, depth where it gives a slice spacing.
    static func stack(_ pages: [TIFFPage], description: String?, path: String) -> ImageFileContents? {
        guard pages.count > 1, let description, description.hasPrefix(TIFFCalibration.imageJPrefix) else { return nil }
        let fields = TIFFCalibration.imageJFields(description)
        let first = pages[0]
        guard fields["images"].flatMap({ Int($0) }) == pages.count, let sampleType = first.sampleType,
            first.unsupported == nil,
            pages.allSatisfy({
                $0.width == first.width && $0.height == first.height && $0.sampleType == sampleType
                    && $0.unsupported == nil
            })
        else { return nil }
        let pageCount = pages.count
        let stack = FrameStack(count: pageCount, width: first.width, height: first.height, sampleType: sampleType) {
            (frame: Int) throws(ImageFileError) -> GrayImage in
            try readPlane(path: path, page: pages[frame], pageCount: pageCount)
        }
        var frames = SignalAxis(name: "frame", size: pageCount, navigation: true)
        if let interval = fields["finterval"].flatMap({ Double($0) }), interval.isFinite, interval > 0 {
            frames = SignalAxis(name: "time", size: pageCount, scale: interval, units: "s", navigation: true)
        } else if let spacing = fields["spacing"].flatMap({ Double($0) }), spacing.isFinite, spacing > 0,
            let unit = fields["unit"].flatMap({ TIFFCalibration.unit(imageJName: $0) })
        {
            frames = SignalAxis(name: "z", size: pageCount, scale: spacing, units: unit, navigation: true)
        }
        let axes = [
            frames, SignalAxis(name: "x", size: first.width, calibration: first.calibration.x, navigation: false),
            SignalAxis(name: "y", size: first.height, calibration: first.calibration.y, navigation: false)
        ]
        return ImageFileContents(format: .tiff, entries: [ImageEntry(title: first.title, stack: stack, axes: axes)])
    }

    /// Reopens the file, so that listing a file holds no handle open, and reads one page.
    static func readPlane(path: String, page: TIFFPage, pageCount: Int) throws(ImageFileError) -> GrayImage {
        do throws(ImageFileError) {
            let handle = try TIFFHandle(path: path)
            _ = try handle.attempt(
                "the page's directory cannot be read again",
                { TIFFSetDirectory(handle.tiff, tdir_t(page.index)) }, succeeded: { $0 != 0 })
            guard TIFFPage(handle, index: page.index).hasSameSamples(as: page) else {
                throw ImageFileError("the file has changed since it was listed")
            }
            return try TIFFPlaneReader.read(handle, page: page)
        } catch {
            throw pageCount > 1 ? ImageFileError("page \(page.index + 1) of \(pageCount): \(error.message)") : error
        }
    }
}
