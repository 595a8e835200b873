import Glibc
import SonicCore

/// Reads EMD files, Thermo Fisher Velox's and Berkeley's, and HyperSpy's own files, through libhdf5.
///
/// libhdf5 runs only in helper processes (see `HDF5Helper`): one lists the file, and the file's
/// lasting helpers (see `HDF5File`) read the planes and spectra that are asked for. A file that crashes or hangs the library gives an ImageFileError.
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
        return try contents(of: try survey(path: path, limits: listing), path: path, reading: reading)
    }

    /// What a helper finds in the file, before it is interpreted.
    package static func survey(path: String) throws(ImageFileError) -> Survey {
        try survey(path: path, limits: listingLimits)
    }

    static func survey(path: String, limits: ChildProcess.Limits) throws(ImageFileError) -> Survey {
        try Survey(decoding: try HDF5Helper.run(.survey, file: path, limits: limits))
    }

    /// The entries a survey of the file at `path` makes. Lists only: each signal is read when it
    /// is asked for.
    package static func contents(of survey: Survey, path: String) throws(ImageFileError) -> ImageFileContents {
        try contents(of: survey, path: path, reading: readingLimits)
    }

    static func contents(of survey: Survey, path: String, reading: ChildProcess.Limits) throws(ImageFileError)
        -> ImageFileContents
    {
        let maker = DatasetEntries(file: HDF5File(path: path, limits: reading))
        if let version = survey.veloxVersion, VeloxEntries.isVelox(version: version) {
            return ImageFileContents(format: .emd, entries: VeloxEntries.entries(survey, maker: maker))
        }
        if survey.hasBerkeleyVersion {
            return ImageFileContents(format: .emd, entries: BerkeleyEntries.entries(survey, maker: maker))
        }
        if survey.fileFormat == "HyperSpy" {
            return ImageFileContents(
                format: .hspy, entries: HyperSpyEntries.entries(survey, file: maker.file))
        }
        throw ImageFileError(
            "an HDF5 file, but not an EMD file nor HyperSpy's (it has neither Velox's version record, Berkeley EMD's "
                + "version attributes nor HyperSpy's file format)")
    }

    /// The values of a Velox file's EDS streams (its `SpectrumStream` datasets), read whole.
    package static func veloxStreams(of survey: Survey, path: String) throws(ImageFileError) -> [FileBytes] {
        try VeloxSpectra.read(
            survey.velox.filter { $0.kind == VeloxDataset.streamKind },
            file: HDF5File(path: path, limits: readingLimits))
    }

    /// Whether the program reads these spectra from the mapped file itself, not through the helpers.
    package static func readsInPlace(_ source: any SpectrumSource) -> Bool {
        (source as? HDF5Spectra)?.readsInPlace ?? false
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
