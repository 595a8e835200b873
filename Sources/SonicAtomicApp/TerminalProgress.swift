import Foundation
import Glibc
import SonicCore

/// Long work said on the terminal: a line on stderr every few seconds once it has taken two (see
/// `ProgressLines`), so that a slow file is not taken for a hung program. Nothing when stderr is not
/// a terminal: a script reading it wants the answer alone.
enum TerminalProgress {
    static func following<T>(_ work: () throws -> T) throws -> T {
        guard isatty(2) == 1 else { return try work() }
        let progress = WorkProgress()
        let finished = DispatchSemaphore(value: 0)
        let reporter = Thread {
            var lines = ProgressLines()
            let start = Date()
            while finished.wait(timeout: .now() + 0.5) == .timedOut {
                if let line = lines.line(elapsed: Date().timeIntervalSince(start), now: progress.now) {
                    FileHandle.standardError.write(Data((line + "\n").utf8))
                }
            }
        }
        reporter.start()
        defer { finished.signal() }
        return try WorkProgress.$current.withValue(progress) { try work() }
    }
}
