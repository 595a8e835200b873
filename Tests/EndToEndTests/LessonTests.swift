import Foundation
import SonicCore
import SonicSpeech
import TestSupport
import Testing

extension EndToEnd {
    /// `learn` on the real pen and sound server: it goes on from the step kept in the user's data folder, a step is
    /// missed and then passed by where the pen rests when Enter is pressed, each answer is heard (the pass with the
    /// score and the next step, much longer than the miss), and where the user got to is kept; a damaged progress
    /// file is said and the lesson starts afresh. Two short sessions.
    @Suite struct LessonTests {
        /// `learn` on the test's servers, going on from `progress` kept in the data folder under `folder`: the
        /// session, and the progress file it keeps.
        static func lesson(from progress: String, display: TestDisplay, sound: SoundServer, folder: String) throws
            -> (session: RunningPlay, kept: String)
        {
            let data = folder + "/data"
            let kept = data + "/sonic-atomic/lesson.json"
            try FileManager.default.createDirectory(atPath: data + "/sonic-atomic", withIntermediateDirectories: true)
            try progress.write(toFile: kept, atomically: true, encoding: .utf8)
            let session = try RunningPlay(
                image: nil, display: display, sound: sound, folder: folder, environment: ["XDG_DATA_HOME": data],
                command: "learn")
            return (session, kept)
        }

        @Test func aStepIsMissedThenPassedByThePenAndTheScoreSaid() throws {
            try withServers("lesson") { display, sound, folder in
                // The step without the guide: one column of the crystal is brighter than the rest.
                let (session, kept) = try Self.lesson(
                    from: "{\"step\":\"bright-alone\",\"passed\":5,\"tries\":7}\n", display: display, sound: sound,
                    folder: folder)
                defer { session.stop() }
                let view = try session.waitUntilShown()
                func screen(_ point: ImagePoint) -> String { view.point(point.x, point.y) }
                let welcome = try #require(try session.spokenTexts().first)
                #expect(welcome.contains("You got to step 6 last time. Score: 5 of 10 steps passed, in 7 tries."))
                #expect(welcome.contains("Step 6 of 10. Finding without the guide."))
                // Control silences the welcome, to keep the test short.
                usleep(1_000_000)
                try display.key("Control_L")
                try sound.waitForSilence()

                let facts = LessonImage.crystal.facts
                let bright = try #require(facts.bright.first)
                // Two columns to the left of it: missed, and said where.
                try display.pen("hover", screen(ImagePoint(x: bright.x - 2 * facts.spacing, y: bright.y)))
                usleep(200_000)
                let missMark = sound.recordedSampleCount()
                try display.key("Return")
                let miss = try sound.waitForUtterance(after: missMark)
                #expect(try session.lastAnswer() == "That one is 2 columns to the left of it. Try again.")
                // On it: passed, the score and the next step said.
                try display.pen("hover", screen(bright))
                usleep(200_000)
                let passMark = sound.recordedSampleCount()
                try display.key("Return")
                let pass = try sound.waitForUtterance(after: passMark, timeout: 40)
                let answer = try #require(try session.lastAnswer())
                #expect(
                    answer.hasPrefix(
                        "Yes, the brightest column. Score: 6 of 10 steps passed, in 9 tries. Step 7 of 10."))
                // Heard: each answer starts at once, and the pass, with the score and the next step, takes far
                // longer than the miss.
                let rate = SoundServer.sampleRate
                #expect(
                    Double(miss.lowerBound - missMark) / rate < 0.6 && Double(pass.lowerBound - passMark) / rate < 0.6)
                #expect(pass.count > 3 * miss.count, "\(Double(miss.count) / rate) s, \(Double(pass.count) / rate) s")

                let events = try session.records(ofType: "lesson").map { $0["event"] as? String ?? "" }
                #expect(events == ["started", "missed", "passed", "started"], "\(events)")
                #expect(
                    try String(contentsOfFile: kept, encoding: .utf8)
                        == "{\"step\":\"vacancy\",\"passed\":6,\"tries\":9}\n")
                #expect(try session.quitWithKey() == 0)

                // A damaged file: said, on stderr and aloud, and the lesson starts from its first step.
                try "{\"step\":\"vacancy\",\"passed\":61".write(toFile: kept, atomically: true, encoding: .utf8)
                let again = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder + "/damaged",
                    environment: ["XDG_DATA_HOME": folder + "/data"], command: "learn")
                defer { again.stop() }
                try again.waitUntilShown()
                let said = try #require(try again.spokenTexts().first)
                #expect(
                    said.contains(Phrases.lessonProgressDamaged) && said.contains("Step 1 of 10. Pitch."), "\(said)")
                #expect(try again.quitWithKey() == 0)
                #expect(again.process.stderr.contains("lesson.json is damaged"), "\(again.process.stderr)")
                #expect(try String(contentsOfFile: kept, encoding: .utf8) == LessonProgress.start.text)
            }
        }

        /// The spectrum step: the spectrum image shows, the pen touching it plays the lesson's spectra, and Enter is
        /// checked by where the nib is — in nickel's region missed and said which way iron's lies, in iron's passed.
        @Test func theSpectrumStepIsCheckedByWhereThePenFindsIron() throws {
            try withServers("lesson-spectrum") { display, sound, folder in
                let (session, kept) = try Self.lesson(
                    from: "{\"step\":\"spectrum\",\"passed\":9,\"tries\":9}\n", display: display, sound: sound,
                    folder: folder)
                defer { session.stop() }
                let view = try session.waitUntilShown()
                func screen(_ point: ImagePoint) -> (Double, Double) { view.screen(point.x, point.y) }
                let welcome = try #require(try session.spokenTexts().first)
                #expect(welcome.contains("Step 10 of 10. A spectrum's timbre."), "\(welcome)")
                usleep(1_000_000)
                try display.key("Control_L")
                try sound.waitForSilence()

                // Touching nickel's corner plays the spectrum there, as the spectrum mode plays any spectrum image.
                let corner = screen(ImagePoint(x: 20, y: 20))
                try display.down(corner.0, corner.1, pressure: 0.3)
                try waitFor("the spectrum under the pen to play", timeout: 10) {
                    (try? session.records(ofType: "spectrum"))?.isEmpty == false
                }
                try display.up()
                try display.pen("hover", TestDisplay.point(corner.0, corner.1))
                usleep(200_000)
                let missMark = sound.recordedSampleCount()
                try display.key("Return")
                try sound.waitForUtterance(after: missMark)
                #expect(
                    try session.lastAnswer()
                        == "That is nickel's region; iron's is below and to the right of the nib. Try again.")

                // The middle of iron's round region, as the image was made.
                let place = try #require(LessonImage.spectrum.facts.places.first { $0.symbol == "Fe" })
                let inside = place.present.indices.filter { place.present[$0] }
                let middle = ImagePoint(
                    x: inside.reduce(0.0) { $0 + Double($1 % place.width) } / Double(inside.count),
                    y: inside.reduce(0.0) { $0 + Double($1 / place.width) } / Double(inside.count))
                let iron = screen(middle)
                try display.pen("hover", TestDisplay.point(iron.0, iron.1))
                usleep(200_000)
                let passMark = sound.recordedSampleCount()
                try display.key("Return")
                try sound.waitForUtterance(after: passMark, timeout: 20)
                let answer = try #require(try session.lastAnswer())
                #expect(answer.hasPrefix("Yes: iron's region. Score: 10 of 10 steps passed, in 11 tries."), "\(answer)")
                #expect(answer.contains("The course is done."), "\(answer)")
                #expect(try String(contentsOfFile: kept, encoding: .utf8).hasPrefix("{\"step\":\"done\""))
                #expect(try session.quitWithKey() == 0)
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        /// F2 in play: said, the session ends with its tags kept, and the lesson starts in its place, in a window of
        /// its own, its welcome heard, logged beside the session's log.
        @Test func f2InPlayStartsTheLessonInItsPlace() throws {
            try withServers("lesson-from-play") { display, sound, folder in
                let data = folder + "/data"
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder,
                    environment: ["XDG_DATA_HOME": data])
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let mark = sound.recordedSampleCount()
                try display.key("F2")
                let lessonLog = folder + "/session-lesson.jsonl"
                func lessonRecords(_ type: String) -> [[String: Any]] {
                    let text = (try? String(contentsOfFile: lessonLog, encoding: .utf8)) ?? ""
                    return text.split(separator: "\n").compactMap {
                        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                    }.filter { $0["type"] as? String == type }
                }
                try waitFor("the lesson's window", timeout: 30) { !lessonRecords("viewport").isEmpty }
                // Said as the session ends, and heard with the lesson's welcome after it: far longer than the
                // announcement alone (a second at 450 words a minute).
                #expect(try session.spokenTexts().last == LessonPhrases.starting)
                let heard = try sound.waitForUtterance(after: mark, timeout: 60)
                #expect(
                    SignalAnalysis.looksLikeSpeech(try sound.recording()[heard], sampleRate: SoundServer.sampleRate))
                #expect(Double(heard.count) / SoundServer.sampleRate > 5, "\(heard)")
                let welcome = try #require(lessonRecords("speech").first?["text"] as? String)
                #expect(welcome.hasPrefix("SonicAtomic lesson: 10 steps") && welcome.contains("Step 1 of 10. Pitch."))
                #expect(lessonRecords("lesson").first?["event"] as? String == "started")
                #expect(session.process.isRunning)
                try display.key("q")
                #expect(session.process.wait(timeout: 20) == 0)
                #expect(FileManager.default.fileExists(atPath: data + "/sonic-atomic/lesson.json"))
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        /// How long the course takes, as the manual says: every word it says when each step is passed at the first
        /// try, spoken by the program's eSpeak-NG voice at the default profile's rate and timed, and
        /// `Lesson.secondsPerStep` for each step besides.
        @Test func theCourseTakesTheMinutesTheManualSays() throws {
            let speech = try OfflineSpeech(settings: Profile.builtIn.speech)
            let rate = 22_050.0
            let spoken = LessonPhrases.walkthrough.map {
                Double(speech.samples(for: $0, sampleRate: rate).count) / rate
            }
            let seconds = spoken.reduce(0, +)
            let total = seconds + Double(Lesson.steps.count) * Lesson.secondsPerStep
            print(
                "the lesson: \(Int(seconds.rounded())) s of speech at \(Profile.builtIn.speech.rate) words a minute, "
                    + "\(Int(total.rounded())) s with \(Int(Lesson.secondsPerStep)) s a step")
            #expect(Int((total / 60).rounded()) == Lesson.minutes, "\(seconds) s spoken, \(total) s in all")
        }
    }
}
