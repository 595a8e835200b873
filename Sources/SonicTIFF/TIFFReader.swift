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
