/// The lesson's own words, besides each step's instruction and checks (`Lesson.steps`).
public enum LessonPhrases {
    /// "2 columns to the left of it and 1 row above", "a little to the right of the nib": where `point` is from
    /// `origin`, counted in columns and rows along the image's axes (`spacing` pixels apart) — or, nearer than half
    /// a spacing, only which way.
    public static func offset(of point: ImagePoint, from origin: ImagePoint, spacing: Double, from name: String)
        -> String
    {
        let dx = (point.x - origin.x) / spacing, dy = (point.y - origin.y) / spacing
        let columns = Int(dx.rounded()), rows = Int(dy.rounded())
        let across = dx < 0 ? "to the left" : "to the right", upDown = dy < 0 ? "above" : "below"
        guard columns != 0 || rows != 0 else {
            return "a little " + (abs(dx) >= abs(dy) ? "\(across) of \(name)" : "\(upDown) \(name)")
        }
        var parts: [String] = []
        if columns != 0 { parts.append("\(Phrases.counted(abs(columns), "column")) \(across)") }
        if rows != 0 { parts.append("\(Phrases.counted(abs(rows), "row")) \(upDown)") }
        parts[0] += columns != 0 ? " of \(name)" : " \(name)"
        return parts.joined(separator: " and ")
    }

    /// What a lesson starts with: how it goes and its keys; where the user got to, when not at the start.
    static func welcome(_ progress: LessonProgress) -> String {
        let start =
            "SonicAtomic lesson: \(Lesson.steps.count) steps, about \(Lesson.minutes) minutes. Each step asks you to do something and checks it. Enter answers; Shift+Enter says the step again and starts it afresh; Ctrl+Enter skips it; Q quits, and next time the lesson goes on from there."
        guard progress.step > 0 else { return start }
        return start + " You got to step \(progress.step + 1) last time. " + score(progress)
    }

    /// "Step 3 of 9. "
    static func step(_ index: Int) -> String { "Step \(index + 1) of \(Lesson.steps.count). " }

    /// "Score: 3 of 9 steps passed, in 5 tries."
    static func score(_ progress: LessonProgress) -> String {
        "Score: \(progress.passed) of \(Lesson.steps.count) steps passed, in \(progress.tries == 1 ? "1 try" : "\(progress.tries) tries")."
    }

    static let tryAgain = "Try again."
    /// After this many misses of one step, how to skip it is said.
    static let missesBeforeSkipHint = 3
    static let skipHint = "Ctrl+Enter skips this step."
    static let skipped = "Skipped."

    static func done(_ progress: LessonProgress) -> String {
        "The course is done. " + score(progress)
            + " Play your own images with sonic-atomic play; sonic-atomic learn starts the course again."
    }

    static let startedAgain = "You finished the course last time; it starts again from the beginning."
    static let notInALesson = "Only in a lesson: sonic-atomic learn starts one."
}

extension Phrases {
    public static let lessonProgressDamaged =
        "Where you got to in the lesson could not be read, so it starts from the beginning."
}
