import Foundation
import SonicCore

/// Where the user got to in the lesson, kept in the user's data folder beside the tags kept there:
/// $XDG_DATA_HOME/sonic-atomic/lesson.json.
final class LessonStore {
    let path: String
    private var failing = false

    init() {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        path = data + "/sonic-atomic/lesson.json"
    }

    /// Where the user got to, or the start; `notice`, to be said, when the file could not be read.
    func load() -> (progress: LessonProgress, notice: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return (.start, nil) }
        do { return (try LessonProgress(parsing: Array(data)), nil) } catch {
            warn("the lesson's progress \(path) is damaged (\(error)); the lesson starts from the beginning")
            return (.start, Phrases.lessonProgressDamaged)
        }
    }

    /// Keeps `progress`; a failure is said on stderr once, until saving works again.
    func save(_ progress: LessonProgress) {
        do {
            try TagStore.writeAtomically(Data(progress.text.utf8), to: path)
            failing = false
        } catch {
            if !failing { warn(error.description) }
            failing = true
        }
    }
}
