import Glibc
import SonicCore

/// Reads a session log line by line from disk, in a buffer of fixed size, and decodes each line:
/// a log of any length is read in the same small memory.
struct SessionLogReader {
    /// No line the program writes comes near this; a longer one is not a session log.
    static let longestLine = 1 << 20

    let path: String

    /// Calls `body` with each record in order (blank lines and record types not replayed are skipped).
    func forEachRecord(_ body: (SessionRecord, _ line: Int) throws(RenderError) -> Void) throws(RenderError) {
        guard let file = fopen(path, "r") else {
            throw .log(
                SessionLogError(
                    message: "cannot read the session log \(path): \(String(cString: strerror(errno)).lowercased())"))
        }
        defer { fclose(file) }
        var decoder = SessionLogDecoder(name: path)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var filled = 0
        var lineNumber = 0
        var atEnd = false
        while !atEnd || filled > 0 {
            if !atEnd && filled < buffer.count {
                let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress! + filled, 1, $0.count - filled, file) }
                filled += n
                if n == 0 {
                    guard ferror(file) == 0 else {
                        throw .log(SessionLogError(message: "cannot read the session log \(path)"))
                    }
                    atEnd = true
                }
            }
            // Every whole line in the buffer; at the end of the file, the last line without its newline too.
            var consumed = 0
            while let newline = buffer[consumed..<filled].firstIndex(of: 0x0A)
                ?? (atEnd && consumed < filled ? filled : nil)
            {
                lineNumber += 1
                let record = try buffer.withUnsafeBufferPointer { bytes throws(RenderError) in
                    do throws(SessionLogError) {
                        return try decoder.decode(
                            UnsafeBufferPointer(rebasing: bytes[consumed..<newline]), number: lineNumber)
                    } catch { throw .log(error) }
                }
                if let record { try body(record, lineNumber) }
                consumed = min(filled, newline + 1)
            }
            if consumed > 0 {
                let remaining = filled - consumed
                buffer.withUnsafeMutableBytes {
                    $0.baseAddress!.copyMemory(from: $0.baseAddress! + consumed, byteCount: remaining)
                }
                filled = remaining
            } else if filled == buffer.count {
                guard buffer.count < Self.longestLine else {
                    throw .log(
                        SessionLogError(
                            message: "\(path):\(lineNumber + 1): the line is longer than a session log's lines"))
                }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
        }
    }
}
