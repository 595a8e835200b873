import Glibc
import SonicCore

/// Writes the session log (JSON Lines). Lines are buffered and flushed after each batch of events,
/// so the file is current while the session runs.
final class SessionLog {
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws(SessionLogError) {
        guard let file = fopen(path, "w") else {
            throw SessionLogError(message: "cannot write the session log \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    deinit { fclose(file) }

    func write(_ record: SessionRecord) {
        fputs(record.jsonLine, file)
        fputc(0x0A, file)
    }

    func flush() { fflush(file) }
}
