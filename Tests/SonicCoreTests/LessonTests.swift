import Testing

@testable import SonicCore

/// The lesson's table and checks on the truth of its generated images, its progress file, and the lesson run
/// through a controller as `learn` runs it.
@Suite struct LessonTests {
    static let defects = LessonImage.defects.facts
    static let crystal = LessonImage.crystal.facts
    static let domains = LessonImage.domains.facts

    static func step(_ id: String) throws -> LessonStep { try #require(Lesson.steps.first { $0.id == id }) }

    static func check(_ id: String, _ situation: LessonSituation) throws -> LessonVerdict {
        try step(id).check(situation)
    }

    /// `point` moved by (dx, dy) column spacings.
    static func moved(_ point: ImagePoint, _ dx: Double, _ dy: Double, _ facts: LessonFacts) -> ImagePoint {
        ImagePoint(x: point.x + dx * facts.spacing, y: point.y + dy * facts.spacing)
    }

    @Test func theTableNamesEachStepOnceAndAsksForItsAnswer() {
        #expect(Set(Lesson.steps.map(\.id)).count == Lesson.steps.count)
        for step in Lesson.steps {
            switch step.answer {
            case .enter: #expect(step.instruction.contains("Enter"), "\(step.id)")
            case .cell: #expect(step.mode == .unitCellTagging && step.instruction.contains("tap"), "\(step.id)")
            }
        }
        // One size for every image, so each takes the place of the one before in the session.
        let sizes = Set(LessonImage.allCases.map { $0.render() }.map { "\($0.width)x\($0.height)" })
        #expect(sizes.count == 1)
        #expect(Self.defects.bright.count == 5 && Self.defects.vacancies.count == 3)
        #expect(Self.crystal.bright.count == 1 && Self.domains.walls.count == 2)
    }

    @Test func aColumnIsTouchedWithinAThirdOfASpacingAndTheNearestIsNamedOtherwise() throws {
        let column = Self.defects.columns[Self.defects.columns.count / 2]
        let near = LessonSituation(nib: Self.moved(column, 0.2, 0, Self.defects), facts: Self.defects)
        #expect(try Self.check("pitch", near) == .passed("Yes, that is a column."))
        let between = LessonSituation(nib: Self.moved(column, 0.45, 0, Self.defects), facts: Self.defects)
        #expect(
            try Self.check("pitch", between)
                == .missed("That is between columns; the nearest is a little to the left of the nib."))
        let off = LessonSituation(nib: nil, facts: Self.defects)
        #expect(try Self.check("pitch", off) == .missed(Lesson.offImage))
    }

    @Test func theBrightestColumnMissedIsSaidInColumnsAndRowsFromIt() throws {
        let bright = Self.crystal.bright[0]
        let on = LessonSituation(nib: Self.moved(bright, 0.1, -0.1, Self.crystal), facts: Self.crystal)
        #expect(try Self.check("bright-alone", on) == .passed("Yes, the brightest column."))
        let left = LessonSituation(nib: Self.moved(bright, -2, 0, Self.crystal), facts: Self.crystal)
        #expect(try Self.check("bright-alone", left) == .missed("That one is 2 columns to the left of it."))
        let below = LessonSituation(nib: Self.moved(bright, 1, 1, Self.crystal), facts: Self.crystal)
        #expect(
            try Self.check("bright-alone", below) == .missed("That one is 1 column to the right of it and 1 row below.")
        )
        var guided = on
        guided.guided = true
        #expect(try !Self.check("bright-alone", guided).passed)
        // With the guide, any of the lattice's bright columns.
        #expect(try Self.check("bright-guided", guided) == .passed("Yes, a bright column."))
    }

    @Test func aVacancyIsFoundWhereNoColumnIs() throws {
        for vacancy in Self.defects.vacancies {
            #expect(try Self.check("vacancy", LessonSituation(nib: vacancy, facts: Self.defects)).passed)
            // Every vacancy is a spacing from the nearest column: a nib on a column is never on one.
            let nearest = try #require(LessonFacts.nearest(of: Self.defects.columns, to: vacancy))
            #expect(try !Self.check("vacancy", LessonSituation(nib: nearest.point, facts: Self.defects)).passed)
        }
    }

    @Test func theMiddleDomainLiesBetweenTheWalls() throws {
        let walls = Self.domains.walls
        let x = 190.0
        let top = try #require(LessonFacts.height(of: walls[0], at: x))
        let bottom = try #require(LessonFacts.height(of: walls[1], at: x))
        let middle = LessonSituation(nib: ImagePoint(x: x, y: (top + bottom) / 2), facts: Self.domains)
        #expect(try Self.check("domains", middle).passed)
        let above = LessonSituation(nib: ImagePoint(x: x, y: top - 20), facts: Self.domains)
        #expect(
            try Self.check("domains", above)
                == .missed("That is above the middle band, where the columns sit down: move down."))
        let below = LessonSituation(nib: ImagePoint(x: x, y: bottom + 20), facts: Self.domains)
        #expect(try Self.check("domains", below).words.hasSuffix("move up."))
    }

    @Test func pressureLeanSweepAndCellAreCheckedFromThePenAndTheTags() throws {
        let nib = Self.defects.columns[0]
        #expect(try Self.check("loudness", LessonSituation(nib: nib, pressure: 0.8, facts: Self.defects)).passed)
        #expect(
            try Self.check("loudness", LessonSituation(nib: nib, pressure: 0.3, facts: Self.defects)).words.hasPrefix(
                "That was a light touch, 30 percent"))
        #expect(try Self.check("lean", LessonSituation(nib: nib, lean: 40, facts: Self.defects)).passed)
        #expect(try !Self.check("lean", LessonSituation(nib: nib, lean: 10, facts: Self.defects)).passed)
        #expect(try Self.check("rhythm", LessonSituation(nib: nib, swept: true, facts: Self.defects)).passed)
        #expect(try Self.check("rhythm", LessonSituation(nib: nib, facts: Self.defects)) == .missed(Lesson.noSweep))
        let s = Self.defects.spacing
        let neighbours = UnitCell(
            origin: nib, vectorA: ImagePoint(x: s, y: 0), vectorB: ImagePoint(x: 0, y: s))
        #expect(try Self.check("cell", LessonSituation(nib: nib, cell: neighbours, facts: Self.defects)).passed)
        let apart = UnitCell(origin: nib, vectorA: ImagePoint(x: 3 * s, y: 0), vectorB: ImagePoint(x: 0, y: s))
        #expect(try !Self.check("cell", LessonSituation(nib: nib, cell: apart, facts: Self.defects)).passed)
        #expect(try !Self.check("cell", LessonSituation(nib: nib, facts: Self.defects)).passed)
    }

    /// The spectrum image's iron is where the truth has it, and the check says which element's region the nib is
    /// in and which way iron's lies.
    @Test func ironsRegionIsFoundInTheSpectrumImage() throws {
        let facts = LessonImage.spectrum.facts
        let iron = try #require(Lesson.middle(of: "Fe", facts))
        // The disc of radius 14 about (30, 34), six pixels a pixel.
        #expect(abs(iron.x - 182.5) < 1 && abs(iron.y - 206.5) < 1)
        #expect(try Self.check("spectrum", LessonSituation(nib: iron, facts: facts)) == .passed("Yes: iron's region."))
        let edge = ImagePoint(x: iron.x + 80, y: iron.y)
        #expect(try Self.check("spectrum", LessonSituation(nib: edge, facts: facts)).passed)
        let corner = ImagePoint(x: 20, y: 20)
        #expect(
            try Self.check("spectrum", LessonSituation(nib: corner, facts: facts))
                == .missed("That is nickel's region; iron's is below and to the right of the nib."))
        let right = ImagePoint(x: iron.x + 95, y: iron.y)
        #expect(
            try Self.check("spectrum", LessonSituation(nib: right, facts: facts))
                == .missed("That is nickel's region; iron's is to the left of the nib."))
        #expect(try Self.check("spectrum", LessonSituation(nib: nil, facts: facts)) == .missed(Lesson.offImage))
        // The image plays as its total counts: iron's region, its lines the stronger, holds more.
        let image = LessonImage.spectrum.render()
        #expect(image.width == OverviewSamples.size && image.height == OverviewSamples.size)
        func mean(around point: ImagePoint) -> Float {
            let (x, y) = (Int(point.x), Int(point.y))
            let values = (-15..<15).flatMap { dy in (-15..<15).map { dx in image[x + dx, y + dy] } }
            return values.reduce(0, +) / Float(values.count)
        }
        #expect(mean(around: iron) > mean(around: ImagePoint(x: 20, y: 20)))
    }

    @Test func everyStepsExampleAnswerPassesAndTheWalkthroughSaysEachStep() throws {
        for step in Lesson.steps {
            #expect(step.check(step.example(step.image.facts)).passed, "\(step.id)")
        }
        let said = LessonPhrases.walkthrough
        #expect(said.count == 2 * Lesson.steps.count + 2)
        #expect(said[1].hasPrefix("Step 1 of 10. Pitch."))
        #expect(said.last?.hasPrefix("The course is done. Score: 10 of 10 steps passed, in 10 tries.") == true)
        #expect(
            LessonPhrases.direction(of: ImagePoint(x: 0, y: 10), from: ImagePoint(x: 0, y: 0), from: "it") == "below it"
        )
        #expect(
            LessonPhrases.direction(of: ImagePoint(x: -10, y: -8), from: ImagePoint(x: 0, y: 0), from: "it")
                == "above and to the left of it")
    }

    @Test func f2StartsTheLessonInPlayAndSaysSoInALesson() {
        let c = TestPlayer(LessonImage.defects.render()).controller()
        let asked = c.handle(key: "F2", at: 0)
        #expect(speech(asked) == [LessonPhrases.starting])
        #expect(asked.contains(.learn))
        let lesson = TestPlayer(LessonImage.defects.render()).controller()
        _ = lesson.startLesson(at: .start)
        let again = lesson.handle(key: "F2", at: 1)
        #expect(speech(again) == [LessonPhrases.inALesson] && !again.contains(.learn))
    }

    @Test func progressIsKeptAndADamagedFileRefused() throws {
        let progress = LessonProgress(step: 4, passed: 3, tries: 7)
        #expect(progress.text == "{\"step\":\"bright-guided\",\"passed\":3,\"tries\":7}\n")
        #expect(try LessonProgress(parsing: Array(progress.text.utf8)) == progress)
        let done = LessonProgress(step: Lesson.steps.count, passed: 10, tries: 20)
        #expect(try LessonProgress(parsing: Array(done.text.utf8)) == done)
        for damaged in [
            "", "{", "[1]", "{\"step\":\"flying\",\"passed\":0,\"tries\":0}",
            "{\"step\":\"pitch\",\"passed\":1,\"tries\":1}",
            "{\"step\":\"lean\",\"passed\":1,\"tries\":0}", "{\"step\":\"lean\",\"passed\":0.5,\"tries\":1}",
            "{\"step\":3,\"passed\":0,\"tries\":0}", "{\"step\":\"lean\",\"passed\":0,\"tries\":1e300}"
        ] {
            #expect(throws: LessonProgressError.self, "\(damaged)") { try LessonProgress(parsing: Array(damaged.utf8)) }
        }
    }

    // MARK: - The lesson run through the controller

    func pen(_ t: Double, at point: ImagePoint, pressure: Double = 0.5) -> PenEvent {
        var buttons = PenButtons()
        buttons.insert(1)
        return PenEvent(
            time: t, rootX: point.x + 0.5, rootY: point.y + 0.5, pressure: pressure, tiltX: 0, tiltY: 0,
            buttons: buttons, inWindow: true)
    }

    func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    func events(_ outputs: [ControllerOutput]) -> [LessonEvent] {
        outputs.compactMap { if case .lesson(let event) = $0 { event } else { nil } }
    }

    @Test func aStepIsPassedOrMissedFromThePenAndEnterAndTheScoreSaid() throws {
        let player = TestPlayer(LessonImage.defects.render())
        let c = player.controller()
        let started = c.startLesson(at: .start)
        #expect(started.contains(.mode(.intensityPitch)))
        #expect(
            speech(started).first?.hasPrefix("SonicAtomic lesson: 10 steps, about \(Lesson.minutes) minutes.") == true)
        #expect(speech(started).first?.contains("Step 1 of 10. Pitch.") == true)
        #expect(events(started).map(\.what) == [.started])

        let column = Self.defects.columns[Self.defects.columns.count / 2]
        _ = c.handle(pen(1, at: Self.moved(column, 0.5, 0.5, Self.defects)))
        let missed = c.handle(key: "Enter", at: 1.1)
        #expect(events(missed).map(\.what) == [.missed])
        #expect(speech(missed).first?.hasSuffix("Try again.") == true)

        _ = c.handle(pen(2, at: column))
        let passed = c.handle(key: "Enter", at: 2.1)
        #expect(events(passed).map(\.what) == [.passed, .started])
        let said = try #require(speech(passed).first)
        #expect(
            said.hasPrefix("Yes, that is a column. Score: 1 of 10 steps passed, in 2 tries. Step 2 of 10. Loudness."))
        #expect(passed.contains(.mode(.pressureAmplitude)))
        #expect(c.lessonProgress == LessonProgress(step: 1, passed: 1, tries: 2))

        let again = c.handle(key: "Shift+Enter", at: 3)
        #expect(speech(again).first?.hasPrefix("Step 2 of 10. Loudness.") == true)
        let skipped = c.handle(key: "Ctrl+Enter", at: 4)
        #expect(events(skipped).map(\.what) == [.skipped, .started])
        #expect(c.lessonProgress == LessonProgress(step: 2, passed: 1, tries: 2))
    }

    @Test func theLessonGoesOnWhereTheUserGotToAndStartsAgainWhenDone() throws {
        let player = TestPlayer(LessonImage.defects.render())
        let resumed = player.controller().startLesson(at: LessonProgress(step: 6, passed: 5, tries: 8))
        #expect(
            speech(resumed).first?.contains("You got to step 7 last time. Score: 5 of 10 steps passed, in 8 tries.")
                == true)
        #expect(speech(resumed).first?.contains("Step 7 of 10. A vacancy.") == true)
        let count = Lesson.steps.count
        let done = player.controller().startLesson(at: LessonProgress(step: count, passed: count, tries: count))
        #expect(speech(done).first?.contains(LessonPhrases.startedAgain) == true)
        #expect(events(done).first?.progress == .start)
        // A step on another image plays it in the session's place.
        let domains = player.controller().startLesson(at: LessonProgress(step: 7, passed: 0, tries: 0))
        #expect(domains.contains { if case .lessonImage = $0 { true } else { false } })
    }

    @Test func theKeyHelpOfALessonStartsWithItsKeys() {
        let first = Bindings.helpPages(mode: .intensityPitch, frames: false, spectra: false, lesson: true)[0]
        #expect(first.contains("in a lesson, answer the step") && first.contains("Control Enter"))
        let play = Bindings.helpPages(mode: .intensityPitch, frames: false, spectra: false)
        #expect(!play[0].contains("in a lesson"))
    }

    @Test func enterOutsideALessonSaysWhatItDoesInTaggingMode() {
        let c = TestPlayer(LessonImage.defects.render()).controller()
        #expect(speech(c.handle(key: "Enter", at: 0)) == ["Enter: tag the column, in tagging mode only."])
        #expect(speech(c.handle(key: "Shift+Enter", at: 1)) == [LessonPhrases.notInALesson])
    }
}
