import Glibc
import SonicCore

/// Maps a file into memory, read-only: its pages are read from the file when first touched, and
/// given back when a reader is done with them, so a file of gigabytes never counts as the
/// program's memory all at once.
enum MappedFile {
    static func bytes(of path: String) throws(ImageFileError) -> FileBytes {
        func systemError() -> ImageFileError { ImageFileError(String(cString: strerror(errno)).lowercased()) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw systemError() }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw systemError() }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ImageFileError("not a regular file") }
        guard info.st_size > 0 else { throw ImageFileError("the file is empty") }
        let count = Int(info.st_size)
        guard let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else {
            throw ImageFileError("cannot map the file: \(String(cString: strerror(errno)).lowercased())")
        }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return FileBytes(
            buffer: UnsafeRawBufferPointer(start: address, count: count),
            release: { munmap(UnsafeMutableRawPointer(mutating: $0.baseAddress), $0.count) },
            giveBack: { stretch in
                // Only whole pages inside the stretch: those at its ends may hold what is still to be read.
                guard let start = stretch.baseAddress else { return }
                let first = (Int(bitPattern: start) + page - 1) / page * page
                let end = (Int(bitPattern: start) + stretch.count) / page * page
                guard end > first, let pages = UnsafeMutableRawPointer(bitPattern: first) else { return }
                madvise(pages, end - first, MADV_DONTNEED)
            })
    }
}
