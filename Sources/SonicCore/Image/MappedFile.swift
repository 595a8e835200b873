import Glibc

/// Maps a file into memory, read-only: its pages are read from the file when first touched, and
/// given back when a reader is done with them, so a file of gigabytes never counts as the
/// program's memory all at once.
public enum MappedFile {
    public static func bytes(of path: String) throws(ImageFileError) -> FileBytes {
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
        let mapped = Int(bitPattern: address)
        return FileBytes(
            buffer: UnsafeRawBufferPointer(start: address, count: count),
            release: { munmap(UnsafeMutableRawPointer(mutating: $0.baseAddress), $0.count) },
            giveBack: { stretch in
                // Out to whole 2 MiB blocks: a read maps the page cache's whole folio around it, up
                // to that size, and a clean page dropped while still wanted is only mapped again.
                guard let start = stretch.baseAddress else { return }
                let block = 1 << 21
                let first = max(mapped, Int(bitPattern: start) / block * block)
                let end = min(mapped + count, (Int(bitPattern: start) + stretch.count + block - 1) / block * block)
                guard end > first, let pages = UnsafeMutableRawPointer(bitPattern: first) else { return }
                madvise(pages, end - first, MADV_DONTNEED)
            })
    }
}
