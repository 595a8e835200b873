/// Where a user got to in the lesson, kept between sessions: the step to do next (`Lesson.steps.count` once the
/// course is done), how many steps were passed and in how many tries.
public struct LessonProgress: Sendable, Equatable {
    public var step: Int
    public var passed: Int
    public var tries: Int

    public init(step: Int = 0, passed: Int = 0, tries: Int = 0) {
        self.step = step
        self.passed = passed
        self.tries = tries
    }

    public static let start = LessonProgress()
    /// The most tries a progress file may count: beyond, it is damaged.
    static let mostTries = 1_000_000
    /// What names the course done in the file, in place of a step's id.
    static let doneName = "done"

    /// As the file keeps it: one JSON object, `{"step":"vacancy","passed":5,"tries":8}`.
    public var text: String {
        let name = Lesson.steps.indices.contains(step) ? Lesson.steps[step].id : Self.doneName
        return "{\"step\":\"\(name)\",\"passed\":\(passed),\"tries\":\(tries)}\n"
    }

    /// Reads a progress file's bytes; throws, saying why, when they are not one this program wrote.
    public init(parsing bytes: [UInt8]) throws(LessonProgressError) {
        var object = FlatJSONObject()
        let parsed = bytes.withUnsafeBufferPointer { object.parse($0) }
        guard parsed else { throw LessonProgressError("not a JSON object") }
        guard case .string(let name) = object["step"] else { throw LessonProgressError("\"step\" must be text") }
        guard let step = name == Self.doneName ? Lesson.steps.count : Lesson.index(of: name) else {
            throw LessonProgressError("no step is named \(name.prefix(40))")
        }
        func count(_ key: String, _ range: ClosedRange<Int>) throws(LessonProgressError) -> Int {
            guard case .number(let value) = object[key], value == value.rounded(), Double(range.lowerBound) <= value,
                value <= Double(range.upperBound)
            else {
                throw LessonProgressError(
                    "\"\(key)\" must be a whole number, \(range.lowerBound) to \(range.upperBound)")
            }
            return Int(value)
        }
        let passed = try count("passed", 0...step)
        self.init(step: step, passed: passed, tries: try count("tries", passed...Self.mostTries))
    }
}

/// Why a progress file could not be read.
public struct LessonProgressError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
