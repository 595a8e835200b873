import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// `learn` on the real pen and sound server: it goes on from the step kept in the user's data folder, a step is
    /// missed and then passed by where the pen rests when Enter is pressed, each answer is heard (the pass with the
    /// score and the next step, much longer than the miss), and where the user got to is kept; a damaged progress
    /// file is said and the lesson starts afresh. Two short sessions.
    @Suite struct LessonTests {
        @Test func aStepIsMissedThenPassedByThePenAndTheScoreSaid() throws {
            try withServers("lesson") { display, sound, folder in
                let data = folder + "/data"
                let kept = data + "/sonic-atomic/lesson.json"
                try FileManager.default.createDirectory(
                    atPath: data + "/sonic-atomic", withIntermediateDirectories: true)
                // The step without the guide: one column of the crystal is brighter than the rest.
                try "{\"step\":\"bright-alone\",\"passed\":5,\"tries\":7}\n".write(
                    toFile: kept, atomically: true, encoding: .utf8)
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder,
                    environment: ["XDG_DATA_HOME": data], command: "learn")
                defer { session.stop() }
                let view = try session.waitUntilShown()
                func screen(_ point: ImagePoint) -> String {
                    TestDisplay.point(
                        view.originX + (point.x + 0.5) * view.scale, view.originY + (point.y + 0.5) * view.scale)
                }
                let welcome = try #require(try session.spokenTexts().first)
                #expect(welcome.contains("You got to step 6 last time. Score: 5 of 9 steps passed, in 7 tries."))
                #expect(welcome.contains("Step 6 of 9. Finding without the guide."))
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
                    answer.hasPrefix("Yes, the brightest column. Score: 6 of 9 steps passed, in 9 tries. Step 7 of 9."))
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
                    environment: ["XDG_DATA_HOME": data], command: "learn")
                defer { again.stop() }
                try again.waitUntilShown()
                let said = try #require(try again.spokenTexts().first)
                #expect(said.contains(Phrases.lessonProgressDamaged) && said.contains("Step 1 of 9. Pitch."), "\(said)")
                #expect(try again.quitWithKey() == 0)
                #expect(again.process.stderr.contains("lesson.json is damaged"), "\(again.process.stderr)")
                #expect(try String(contentsOfFile: kept, encoding: .utf8) == LessonProgress.start.text)
            }
        }
    }
}
