import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The sound server crashes, or the user restarts it to fix their sound: the program keeps the
    /// session, says on stderr that nothing is heard, plays again once the server is back and says so
    /// aloud with what was asked for meanwhile; and its sound follows the user's default output.
    @Suite struct SoundServerLossTests {
        static let rate = SoundServer.sampleRate

        /// The white disc of `images/shapes.png` (centre (70, 120) of 320 × 240): a loud, steady tone.
        static func disc(on display: TestDisplay) -> (Double, Double) {
            let scale = min(Double(display.width) / 320, Double(display.height) / 240)
            return (
                (Double(display.width) - 320 * scale) / 2 + 70 * scale,
                (Double(display.height) - 240 * scale) / 2 + 120 * scale
            )
        }

        /// Taps the disc and returns the pitch heard in `recording` from `mark` on (nil: no steady tone).
        static func tapPitch(
            on display: TestDisplay, heard recording: () throws -> [Float], from mark: Int
        ) throws -> Double? {
            let (x, y) = disc(on: display)
            try display.tap(x, y, ms: 400)
            usleep(300_000)
            let heard = try recording()
            let loud = SignalAnalysis.bursts(
                Array(heard[min(mark, heard.count)...]), threshold: 0.3, window: 48, minimumGap: 4800)
            guard let tone = loud.max(by: { $0.count < $1.count }), tone.count > 9600 else { return nil }
            return SignalAnalysis.steadyFrequency(
                heard[(mark + tone.lowerBound + 2400)..<(mark + tone.upperBound - 960)], sampleRate: rate)
        }

        // A new null sink renders its first two seconds in one block, and a stream that connects meanwhile
        // runs dry (real sound cards do not): the program reconnects within that time, so dropouts are let pass.
        @Test(arguments: SoundServer.Kind.allCases)
        func theSoundComesBackWhenTheServerDoesAndSaysSo(sound kind: SoundServer.Kind) throws {
            try withServers("sound-back", sound: kind, dropoutsExpected: true) { display, sound, folder in
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let before = try #require(
                    try Self.tapPitch(on: display, heard: sound.recording, from: sound.recordedSampleCount()),
                    "the disc's tone before the server went")

                try sound.crash()
                try waitFor("the loss on stderr", timeout: 3) { session.process.stderr.contains("went away") }
                #expect(session.process.isRunning)
                // Asked for while nothing is heard: said once the server is back.
                try display.key("space")
                usleep(1_500_000)

                // Heard within 3 s of the server's return: the program tries every half second.
                try sound.revive()
                try waitFor("the voice, within 3 s of the server's return", timeout: 3) {
                    SignalAnalysis.peak((try? sound.recording())?[...] ?? []) > 0.05
                }
                let spoken = try sound.waitForUtterance(after: 0)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[spoken], sampleRate: Self.rate))
                let said = try session.spokenTexts()
                #expect(said.last?.hasPrefix("Sound is back. x ") == true, "\(said.suffix(3))")
                let after = try Self.tapPitch(on: display, heard: sound.recording, from: sound.recordedSampleCount())
                #expect(abs((after ?? 0) / before - 1) < 0.01, "the disc sounded \(after ?? 0) Hz, before \(before)")

                #expect(try session.records(ofType: "sound").map { $0["playing"] as? Bool } == [false, true])
                let server = kind == .pipewireNative ? "PipeWire" : "PulseAudio"
                let lines = session.process.stderr.split(separator: "\n").map(String.init)
                #expect(lines.count == 2, "\(session.process.stderr)")
                #expect(lines.first?.hasPrefix("sonic-atomic: \(server): the ") == true, "\(lines)")
                #expect(lines.first?.hasSuffix("): nothing is heard until it is back") == true, "\(lines)")
                #expect(lines.last == "sonic-atomic: \(server) plays again")
                #expect(try session.quitWithKey() == 0)
            }
        }

        /// Headphones plugged in make a new default output: the program's sound moves to it, as other
        /// programs' does — nothing in its stream pins it to the output it started on.
        @Test(arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func theSoundFollowsTheDefaultOutput(sound kind: SoundServer.Kind) throws {
            try withServers("default-output", sound: kind, dropoutsExpected: true) { display, sound, folder in
                let pactl = try #require(Subprocess.which("pactl"), "pactl is needed (scripts/install-deps test)")
                func run(_ arguments: String...) throws -> String {
                    let result = try Subprocess.run(pactl, arguments, environment: sound.clientEnvironment)
                    guard result.status == 0 else { throw HarnessError("pactl \(arguments): \(result.output)") }
                    return result.output
                }
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()

                let module = try run(
                    "load-module", "module-null-sink", "sink_name=headphones", "rate=48000", "channels=2",
                    "format=float32le"
                ).trimmingCharacters(in: .whitespacesAndNewlines)
                // The server is shared with the tests that follow: its own sink is the default again after.
                defer {
                    _ = try? run("set-default-sink", "test")
                    _ = try? run("unload-module", module)
                }
                let path = folder + "/headphones.f32"
                let headphones = try sound.record("headphones", into: path, label: "parec-headphones")
                defer { headphones.stop() }
                _ = try run("set-default-sink", "headphones")
                // A new null sink gives its monitor nothing for its first two seconds (a sound card would).
                // The recording of the old output is of no use now: the server moves it to the new output's
                // monitor, as every recording that follows the default.
                usleep(2_500_000)
                let (x, y) = Self.disc(on: display)
                try display.tap(x, y, ms: 400)
                var reader = RecordingReader()
                try waitFor("the tone on the new default output", timeout: 5) {
                    SignalAnalysis.peak((try? reader.read(path))?[...] ?? []) > 0.3
                }
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
