/// A file's bytes, read in place: mapped from the file by the program, or copied into memory (tests,
/// the fuzzer). Entries that read samples later keep it alive.
///
/// A mapped file counts towards the program's memory only for the pages read; a reader that has
/// gone through a stretch of it says so (`doneReading`), and those pages are given back, so that
/// going through a file of gigabytes keeps the program small.
public final class FileBytes: @unchecked Sendable {
    public let buffer: UnsafeRawBufferPointer
    private let release: @Sendable (UnsafeRawBufferPointer) -> Void
    private let giveBack: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Bytes owned elsewhere: `release` ends their life, `giveBack` returns the memory behind a
    /// stretch already read (mapped pages; nothing to do for bytes in memory).
    public init(
        buffer: UnsafeRawBufferPointer, release: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        giveBack: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
    ) {
        self.buffer = buffer
        self.release = release
        self.giveBack = giveBack
    }

    /// A copy of `bytes` in memory.
    public convenience init(copying bytes: [UInt8]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        self.init(
            buffer: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(memory)[0..<bytes.count]),
            release: { $0.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }, giveBack: { _ in })
    }

    deinit { release(buffer) }

    public var count: Int { buffer.count }

    /// The bytes `range` (already checked to lie inside the file) have been read and are not needed
    /// soon. Their pages may go back with some around them: a page given back is read again when
    /// wanted.
    public func doneReading(_ range: Range<Int>) {
        giveBack(UnsafeRawBufferPointer(rebasing: buffer[range]))
    }
}
