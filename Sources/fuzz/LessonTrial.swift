import SonicCore
import SonicImageFiles

/// The lesson's progress file, damaged as text: read as `learn` reads it, and what is accepted must be written back
/// as it was read.
struct LessonTrial: FuzzTrial {
    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] { mutator.mutate(input, text: true) }

    func run(_ path: String, seed: String) throws {
        let progress = try LessonProgress(parsing: try ImageFiles.readBytes(path))
        guard (try? LessonProgress(parsing: Array(progress.text.utf8))) == progress else {
            throw FuzzFinding(message: "progress \(progress) is not read back as written: \(progress.text)")
        }
    }
}
