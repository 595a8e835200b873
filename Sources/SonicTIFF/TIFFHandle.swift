import CTIFF
import Glibc
import SonicCore

/// One open TIFF file: libtiff's handle, with its messages captured instead of printed.
final class TIFFHandle {
    /// libtiff refuses any single allocation above this. The largest legal plane (8192 × 8192
    /// float64) is 512 MiB in one strip; a compressed strip may be somewhat larger than its data.
    static let maxSingleAllocation: tmsize_t = 1 << 30

    private static let processHandlersSilenced: Void = sonic_tiff_silence_process_handlers()

    let tiff: OpaquePointer
    let fileBytes: UInt64
    private let messages: UnsafeMutablePointer<SonicTIFFMessages>

    init(path: String) throws(ImageFileError) {
        _ = Self.processHandlersSilenced
        // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ImageFileError(String(cString: strerror(errno)).lowercased()) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            close(fd)
            throw ImageFileError(reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ImageFileError("not a regular file")
        }
        guard info.st_size <= ImageLimits.maxFileBytes else {
            close(fd)
            throw ImageFileError("the file is larger than 2 GiB")
        }
        let messages = UnsafeMutablePointer<SonicTIFFMessages>.allocate(capacity: 1)
        messages.initialize(to: SonicTIFFMessages())
        guard let tiff = sonic_tiff_open(fd, messages, Self.maxSingleAllocation) else {
            let said = Self.text(of: messages)
            messages.deallocate()
            close(fd)
            if info.st_size == 0 { throw ImageFileError("the file is empty") }
            if said.isEmpty || said.contains("Not a TIFF") { throw ImageFileError("not a TIFF file") }
            if said.contains("Cannot read TIFF header") { throw ImageFileError("the TIFF header is truncated") }
            throw ImageFileError("the TIFF header is damaged (\(said))")
        }
        self.tiff = tiff
        self.fileBytes = UInt64(info.st_size)
        self.messages = messages
    }

    deinit {
        TIFFClose(tiff) // also closes the file descriptor
        messages.deallocate()
    }

    /// Runs a libtiff call that reports failure through its result, with a fresh message buffer,
    /// and throws `failure` (plus libtiff's words, when it said any) if `succeeded` is false.
    func attempt<Result>(
        _ failure: @autoclosure () -> String, _ call: () -> Result,
        succeeded: (Result) -> Bool
    ) throws(ImageFileError) -> Result {
        messages.pointee.errors.0 = 0
        let result = call()
        guard succeeded(result) else {
            let said = Self.text(of: messages)
            throw ImageFileError(said.isEmpty ? failure() : "\(failure()) (\(said))")
        }
        return result
    }

    /// The message that tells what went wrong. libtiff reports tags it does not know as errors,
    /// though it carries on, and follows a directory's real failure with a generic line.
    static func text(of messages: UnsafeMutablePointer<SonicTIFFMessages>) -> String {
        let all = lines(of: messages)
        let telling = all.filter {
            !$0.contains("TIFF_SETGET_UNDEFINED") && !$0.hasPrefix("Failed to read directory at offset")
        }
        return telling.first ?? all.last ?? ""
    }

    /// libtiff's messages, one a line, without the empty file name we gave it.
    private static func lines(of messages: UnsafeMutablePointer<SonicTIFFMessages>) -> [String] {
        let raw = withUnsafeBytes(of: &messages.pointee.errors) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return raw.split(separator: "\n").map { line in
            var line = Substring(line.map { $0 == "\t" || $0 == "\r" ? " " : $0 })
            while line.hasPrefix(":") || line.hasPrefix(" ") { line.removeFirst() }
            while line.hasSuffix(".") || line.hasSuffix(" ") { line.removeLast() }
            return String(line)
        }
    }

    // MARK: - Tags of the current directory

    func uint16(_ tag: Int32) -> UInt16? {
        var value: UInt16 = 0
        return sonic_tiff_uint16(tiff, UInt32(tag), &value) != 0 ? value : nil
    }

    func uint16(_ tag: Int32, default fallback: UInt16) -> UInt16 {
        var value: UInt16 = 0
        return sonic_tiff_uint16_defaulted(tiff, UInt32(tag), &value) != 0 ? value : fallback
    }

    func uint32(_ tag: Int32) -> UInt32? {
        var value: UInt32 = 0
        return sonic_tiff_uint32(tiff, UInt32(tag), &value) != 0 ? value : nil
    }

    func uint32(_ tag: Int32, default fallback: UInt32) -> UInt32 {
        var value: UInt32 = 0
        return sonic_tiff_uint32_defaulted(tiff, UInt32(tag), &value) != 0 ? value : fallback
    }

    func float(_ tag: Int32) -> Float? {
        var value: Float = 0
        return sonic_tiff_float(tiff, UInt32(tag), &value) != 0 ? value : nil
    }

    /// An ASCII tag's text. Writers put UTF-8 or Latin-1 there ("Å", "µm" from older ImageJ): bytes
    /// that are not UTF-8 are read as Latin-1.
    func string(_ tag: Int32) -> String? {
        guard let text = sonic_tiff_string(tiff, UInt32(tag)) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: strlen(text))
        return String(validating: bytes, as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
