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

    /// "above and to the left of the nib": which way `point` lies from `origin`, along the image's axes; a direction
    /// is named when it is at least half the larger.
    public static func direction(of point: ImagePoint, from origin: ImagePoint, from name: String) -> String {
        let dx = point.x - origin.x, dy = point.y - origin.y
        let larger = max(abs(dx), abs(dy))
        var parts: [String] = []
        if abs(dy) >= larger / 2 { parts.append(dy < 0 ? "above" : "below") }
        if abs(dx) >= larger / 2 { parts.append(dx < 0 ? "to the left of" : "to the right of") }
        if parts.count == 2 { parts[0] += " and" }
        return (parts + [name]).joined(separator: " ")
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

    /// What the course says when every step is passed at the first try, in order: the welcome, each step, its answer
    /// with the score, and the end — what `Lesson.minutes` is timed from.
    public static var walkthrough: [String] {
        var progress = LessonProgress.start
        var said = [welcome(progress)]
        for (index, lessonStep) in Lesson.steps.enumerated() {
            said.append(step(index) + lessonStep.instruction)
            progress = LessonProgress(step: index + 1, passed: index + 1, tries: index + 1)
            said.append(lessonStep.check(lessonStep.example(lessonStep.image.facts)).words + " " + score(progress))
        }
        return said + [done(progress)]
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
    static let notInALesson = "Only in a lesson: F2 or sonic-atomic learn starts one."
    /// Said as F2 ends a session for the lesson.
    public static let starting = "The lesson starts; the tags are saved."
    static let inALesson = "This is the lesson: Shift+Enter says the step again."
}

extension Phrases {
    public static let lessonProgressDamaged =
        "Where you got to in the lesson could not be read, so it starts from the beginning."
}
