import Glibc
import SonicCore

/// Reads EMD files, Thermo Fisher Velox's and Berkeley's, and HyperSpy's own files, through libhdf5.
///
/// libhdf5 runs only in helper processes (see `HDF5Helper`): one lists the file, and one reads
/// each plane that is asked for. A file that crashes or hangs the library gives an ImageFileError.
public enum EMDReader {
    static let listingLimits = ChildProcess.Limits(seconds: 20, memoryBytes: 2 << 30)
    static let readingLimits = ChildProcess.Limits(seconds: 60, memoryBytes: 3 << 30)

    public static func contents(path: String) throws(ImageFileError) -> ImageFileContents {
        try contents(path: path, listing: listingLimits, reading: readingLimits)
    }

    static func contents(
        path: String, listing: ChildProcess.Limits,
        reading: ChildProcess.Limits
    ) throws(ImageFileError) -> ImageFileContents {
        try checkReadable(path)
        let answer = try HDF5Helper.run(.survey, file: path, limits: listing)
        let survey = try Survey(decoding: answer)
        let maker = DatasetEntries(file: path, limits: reading)
        if let version = survey.veloxVersion, VeloxEntries.isVelox(version: version) {
            return ImageFileContents(format: .emd, entries: VeloxEntries.entries(survey, maker: maker))
        }
        if survey.hasBerkeleyVersion {
            return ImageFileContents(format: .emd, entries: BerkeleyEntries.entries(survey, maker: maker))
        }
        if survey.fileFormat == "HyperSpy" {
            return ImageFileContents(
                format: .hspy, entries: HyperSpyEntries.entries(survey, file: path, limits: reading))
        }
        throw ImageFileError(
            "an HDF5 file, but not an EMD file nor HyperSpy's (it has neither Velox's version record, Berkeley EMD's "
                + "version attributes nor HyperSpy's file format)")
    }

    /// Clear reasons for the commonest failures, before any process is started.
    private static func checkReadable(_ path: String) throws(ImageFileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageFileError(String(cString: strerror(errno)).lowercased()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ImageFileError(String(cString: strerror(errno)).lowercased()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ImageFileError("not a regular file") }
        guard info.st_size > 0 else { throw ImageFileError("the file is empty") }
    }
}
