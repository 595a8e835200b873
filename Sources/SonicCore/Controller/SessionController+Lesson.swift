/// The lesson's routing: its keys go to the lesson run, what the session does is followed for the step's check,
/// and each step's image takes the place of the one before, as a stack's frames do.
extension SessionController {
    /// The lesson's start, in place of the greeting: from `progress` on, `notices` said after the welcome; `showing`
    /// is the lesson image the session opened with, if it is one.
    public func startLesson(at progress: LessonProgress, showing image: LessonImage? = nil, notices: [String] = [])
        -> [ControllerOutput]
    {
        var run = LessonRun(progress: progress, showing: image)
        let outputs = run.start(notices: notices, prepare: prepareLessonImage)
        lesson = run
        return settle(outputs)
    }

    /// Where the user has got to in the lesson; nil outside a lesson.
    public var lessonProgress: LessonProgress? { lesson?.progress }

    /// Enter, Shift+Enter and Ctrl+Enter: the step answered, started afresh or skipped. Enter outside a lesson says
    /// what it does in tagging mode. F2 outside a lesson ends the session for the lesson, said first.
    func runLesson(_ command: Command) -> [ControllerOutput] {
        if command == .startLesson {
            return lesson == nil ? [.speak(LessonPhrases.starting), .learn] : [.speak(LessonPhrases.inALesson)]
        }
        guard var run = lesson else {
            return [
                .speak(
                    command == .lessonAnswer
                        ? Bindings.doesNothing(key: "Enter", in: state.mode) : LessonPhrases.notInALesson)
            ]
        }
        let outputs: [ControllerOutput]
        switch command {
        case .lessonAnswer: outputs = run.answer(lessonSituation, prepare: prepareLessonImage)
        case .lessonSkip: outputs = run.skip(prepare: prepareLessonImage)
        default: outputs = run.begin(after: [], prepare: prepareLessonImage)
        }
        lesson = run
        // A step starting ends any guidance to a feature of the step before.
        let starts = outputs.contains { if case .lesson(let event) = $0 { event.what == .started } else { false } }
        return (starts && state.guidance != nil ? [.guidance(nil)] : []) + outputs
    }

    /// What the lesson makes of `settled`, the outputs just settled: see `LessonRun.follow`.
    func followLesson(_ settled: [ControllerOutput]) -> [ControllerOutput] {
        guard var run = lesson else { return [] }
        let outputs = run.follow(settled, lessonSituation, prepare: prepareLessonImage)
        lesson = run
        return outputs
    }

    /// The pen and the cell as a step's check sees them, in the image whose truth is `facts`.
    private func lessonSituation(_ facts: LessonFacts) -> LessonSituation {
        let record = instrument.lastRecord
        return LessonSituation(
            nib: instrument.penInImage, pressure: record?.pressure ?? 0,
            lean: record.map { PenTilt(tiltX: $0.tiltX, tiltY: $0.tiltY).altitude } ?? 0,
            cell: state.cell, facts: facts)
    }

    private func prepareLessonImage(_ image: GrayImage) -> PlayedImage {
        instrument.preparation.prepare(image, ownStretch: true)
    }
}
