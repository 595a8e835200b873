import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Speech is under the user's hand: Control silences it at once, as in a screen reader, and the
    /// session goes on.
    @Suite struct SpeechKeysTests {
        @Test func controlSilencesTheSpeechAtOnce() throws {
            try withServers("silence", sound: .pulseaudio) { display, sound, folder in
                let session = try RunningPlay(image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let mark = sound.recordedSampleCount()
                // The keys' help: many seconds of speech.
                try display.key("F1")
                try waitFor("the keys' help to be heard", timeout: 15) {
                    guard let x = try? sound.recording(), x.count > mark else { return false }
                    return x[mark...].contains { abs($0) > 0.01 }
                }
                usleep(700_000)
                let pressed = sound.recordedSampleCount()
                try display.key("Control_L")
                usleep(1_000_000)
                let x = try sound.recording()
                let rate = SoundServer.sampleRate
                #expect(SignalAnalysis.peak(x[(pressed - Int(0.3 * rate))..<pressed]) > 0.01, "speaking before")
                let quiet = pressed + Int(0.3 * rate)
                #expect(SignalAnalysis.peak(x[quiet..<min(x.count, quiet + Int(0.6 * rate))]) < 0.001)
                #expect(session.process.isRunning)
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
