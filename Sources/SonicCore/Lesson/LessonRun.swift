/// What happened in the lesson, for the session log and the progress file: the step it concerns (its id, or "done"),
/// the image the step plays, and where the user has got to since.
public struct LessonEvent: Sendable, Equatable {
    public enum What: String, Sendable {
        case started, passed, missed, skipped, done
    }

    public var what: What
    public var step: String
    public var image: String?
    public var progress: LessonProgress
}

/// The lesson as it runs: the step under way, what was used during it, and the score. Each way in returns what the
/// controller is to do — the step's mode and image, the words, the events to log and save. `prepare` makes a lesson
/// image ready to play, as the session plays its images.
struct LessonRun {
    private(set) var progress: LessonProgress
    /// The image playing, and its truth.
    private var playing: (image: LessonImage, facts: LessonFacts)?
    private var guided = false, swept = false, misses = 0

    /// `showing`: the lesson image the session already plays.
    init(progress: LessonProgress, showing image: LessonImage?) {
        self.progress = progress
        playing = image.map { ($0, $0.facts) }
    }

    var step: LessonStep? { Lesson.steps.indices.contains(progress.step) ? Lesson.steps[progress.step] : nil }

    /// The welcome, anything the user must know (`notices`), then the step reached — the first again after a
    /// course finished.
    mutating func start(notices: [String], prepare: (GrayImage) -> PlayedImage) -> [ControllerOutput] {
        var words = [LessonPhrases.welcome(progress)] + notices
        if step == nil {
            progress = .start
            words = [LessonPhrases.welcome(progress), LessonPhrases.startedAgain] + notices
        }
        return begin(after: words, prepare: prepare)
    }

    /// The step reached starts afresh, said after `words`: its mode and image, and its instruction.
    mutating func begin(after words: [String], prepare: (GrayImage) -> PlayedImage) -> [ControllerOutput] {
        guided = false
        swept = false
        misses = 0
        guard let step else {
            let done = words + [LessonPhrases.done(progress)]
            return [.speak(done.joined(separator: " ")), event(.done, step: LessonProgress.doneName)]
        }
        var outputs: [ControllerOutput] = [.mode(step.mode)]
        if playing?.image != step.image {
            playing = (step.image, step.image.facts)
            outputs.append(.lessonImage(prepare(step.image.render())))
        }
        let said = words + [LessonPhrases.step(progress.step) + step.instruction]
        return outputs + [.speak(said.joined(separator: " ")), event(.started, step: step.id)]
    }

    /// The user's answer, checked in `situation` (given the truth of the image playing): passed, the score and
    /// the next step; missed, why and to try again.
    mutating func answer(
        _ situation: (LessonFacts) -> LessonSituation, prepare: (GrayImage) -> PlayedImage
    ) -> [ControllerOutput] {
        guard let step, let facts = playing?.facts else { return [.speak(LessonPhrases.done(progress))] }
        let verdict = step.check(situation(facts))
        progress.tries += 1
        guard verdict.passed else {
            misses += 1
            let hint = misses >= LessonPhrases.missesBeforeSkipHint ? [LessonPhrases.skipHint] : []
            let said = [verdict.words, LessonPhrases.tryAgain] + hint
            return [.speak(said.joined(separator: " ")), event(.missed, step: step.id)]
        }
        progress.passed += 1
        progress.step += 1
        let passed = event(.passed, step: step.id)
        return [passed] + begin(after: [verdict.words, LessonPhrases.score(progress)], prepare: prepare)
    }

    /// The step is left unpassed, and the next starts.
    mutating func skip(prepare: (GrayImage) -> PlayedImage) -> [ControllerOutput] {
        guard let step else { return [.speak(LessonPhrases.done(progress))] }
        progress.step += 1
        return [event(.skipped, step: step.id)] + begin(after: [LessonPhrases.skipped], prepare: prepare)
    }

    /// What the session did besides the lesson's keys (`outputs`, settled): the guide or a sweep used during the
    /// step, noted for its check; a unit cell made, the answer to a step that asks for one — said after what the
    /// tagging says.
    mutating func follow(
        _ outputs: [ControllerOutput], _ situation: (LessonFacts) -> LessonSituation,
        prepare: (GrayImage) -> PlayedImage
    ) -> [ControllerOutput] {
        var cellMade = false
        for output in outputs {
            switch output {
            case .guidance(_?): guided = true
            case .sweep(_?): swept = true
            case .cell(_?, _): cellMade = true
            default: break
            }
        }
        guard cellMade, step?.answer == .cell else { return [] }
        return answer(situation, prepare: prepare).map { output in
            if case .speak(let text) = output { return .speakAfter(text) }
            return output
        }
    }

    private func event(_ what: LessonEvent.What, step: String) -> ControllerOutput {
        .lesson(LessonEvent(what: what, step: step, image: playing?.image.rawValue, progress: progress))
    }
}
