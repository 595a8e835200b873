import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The tests' own pen (scripts/pen-tablet): what is sent arrives as XInput2 events, and the
    /// program lives through its device going away and coming back.
    @Suite struct PenTabletTests {
        @Test(.enabled(if: Fixtures.hasRealPen, "needs the pen tablet: \(Fixtures.penTabletMissing ?? "")"))
        func thePenTabletDeliversPositionPressureTiltAndButtons() throws {
            let display = ":\(try TestDisplay.freeDisplayNumber())"
            defer { TestDisplay.release(display) }
            let result = try Subprocess.run(Fixtures.penTablet + "/selftest", [display], timeout: 60)
            #expect(result.status == 0, "\(result.output)")
            // Its five checks, each on the events xinput saw.
            #expect(
                result.output.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.count == 5, "\(result.output)")
        }

        /// The pen's device goes away with the tip down, as when its cable is pulled: the tone stops
        /// and "Pen lost." is heard; when it comes back, "Pen found." is heard and the pen plays as before.
        @Test(.enabled(if: Fixtures.hasRealPen, "needs the pen tablet: \(Fixtures.penTabletMissing ?? "")"))
        func anUnpluggedPenFallsSilentIsAnnouncedAndPlaysAgainWhenBack() throws {
            try withServers("unplug") { display, sound, folder in
                // At 350 words a minute "Pen lost." lasts long enough to tell from the silence after it.
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder, arguments: ["--rate", "350"])
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let rate = SoundServer.sampleRate

                /// Touches the screen's centre and returns the tone's pitch once it has settled.
                func touch() throws -> Double {
                    let mark = sound.recordedSampleCount()
                    try display.down(960, 540, pressure: 0.6)
                    let settled = mark + Int(0.3 * rate), window = Int(0.2 * rate)
                    try waitFor("the tone", timeout: 5) { sound.recordedSampleCount() > settled + window }
                    let tone = try sound.recording()[settled..<settled + window]
                    return try #require(SignalAnalysis.steadyFrequency(tone, sampleRate: rate), "no steady tone")
                }

                let before = try touch()
                try display.pen("unplug")
                let gone = sound.recordedSampleCount()
                // The sound ends: "Pen lost.", then lasting silence (a tone left playing never falls silent).
                let lost = try sound.waitForUtterance(after: gone)
                #expect(
                    SignalAnalysis.looksLikeSpeech(
                        try sound.recording()[gone + Int(0.05 * rate)..<lost.upperBound], sampleRate: rate))
                #expect(try session.spokenTexts().last == "Pen lost.")

                let back = sound.recordedSampleCount()
                try display.pen("plug")
                let found = try sound.waitForUtterance(after: back)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[found], sampleRate: rate))
                #expect(try session.spokenTexts().last == "Pen found.")

                let after = try touch()
                #expect(abs(after - before) / before < 0.01, "\(before) Hz before, \(after) Hz after")
                try display.up()
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
