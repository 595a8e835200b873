import Foundation
import SampleWriters
import TestSupport
import Testing

extension EndToEnd {
    /// A wait in play, on the real pen and sound server: a stack's next frame read from a slow share is waited
    /// on with a soft pulse after two seconds, "where am I" says what is being done, and "Frame 2 ready." ends it.
    @Suite struct LongWaitTests {
        @Test func aFrameReadFromASlowShareIsWaitedOnAudiblyAndSaidReady() throws {
            try withServers("slow-frame") { display, sound, folder in
                let share = try SlowShare(folder: folder)
                defer { share.stop() }
                // Three frames of 512 × 512 16-bit counts, a smooth slope each: half a megabyte a frame.
                let (width, height) = (512, 512)
                let values = (0..<3).flatMap { k in
                    (0..<(width * height)).map { Double(1000 + $0 % width + $0 / width + 100 * k) }
                }
                let nanometres = SampleDM.Axis(scale: 0.1, units: "nm")
                try writeDigitalMicrograph(
                    [
                        .init(
                            title: "series", dimensions: [width, height, 3], dataType: .uint16, values: values,
                            axes: [nanometres, nanometres, SampleDM.Axis(scale: 1, units: "s")])
                    ], to: share.source + "/series.dm4")
                let session = try RunningPlay(
                    image: share.files + "/series.dm4", display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                // The frames' overview reads each frame once: then the share falls quiet.
                var (reads, since) = (-1, Date())
                try waitFor("the share to fall quiet", timeout: 60) {
                    let count = share.reads().count
                    if count != reads { (reads, since) = (count, Date()) }
                    return Date().timeIntervalSince(since) > 1
                }
                try sound.waitForSilence(lasting: 0.6)

                // From now on a frame takes four seconds to come, as from a slow network share.
                try share.setRate(width * height * 2 / 4)
                try share.forget("series.dm4")
                let rate = SoundServer.sampleRate
                let pressed = sound.recordedSampleCount()
                try display.key("Next")
                // Asked where things stand once the wait has gone on for more than two seconds.
                usleep(2_700_000)
                let asked = sound.recordedSampleCount()
                try display.key("space")
                try waitFor("the frame to be ready", timeout: 30) {
                    (try? session.spokenTexts())?.contains("Frame 2 ready.") == true
                }
                // Silence at last: the pulse, which would break it, is over.
                let quiet = try sound.waitForSilence(lasting: 1.2) - Int(1.2 * rate)
                #expect(try session.quitWithKey() == 0)

                let recording = try sound.recording()
                func pulse(_ range: Range<Int>) -> Double {
                    Spectrum.amplitude(recording[range], at: 392, sampleRate: rate)
                }
                // Nothing but the key's answer for the first two seconds, then a swell at G4 as the wait goes on.
                let answered = recording[pressed..<(pressed + Int(1.9 * rate))].lastIndex { abs($0) > 0.01 } ?? pressed
                let early = (answered + Int(0.1 * rate))..<(pressed + Int(1.9 * rate))
                if early.count > Int(0.2 * rate) { #expect(pulse(early) < 0.002, "\(pulse(early))") }
                let waiting = (pressed + Int(2.05 * rate))..<asked
                #expect(pulse(waiting) > 0.006, "\(pulse(waiting))")
                // Said: what is being done, on request; then that the frame is ready, heard last.
                let spoken = try session.spokenTexts()
                #expect(spoken.contains { $0.contains("Reading the frame") }, "\(spoken)")
                // The last sound after the question, apart from what came before by a third of a second of silence.
                let bursts = SignalAnalysis.bursts(
                    Array(recording[asked..<quiet]), threshold: 0.001, window: 480, minimumGap: Int(0.3 * rate))
                let last = try #require(bursts.last)
                // The speech may follow the pulse with no gap between: the burst's end must be voice, not pulse
                // (the pulse's share of its sound at G4 is all of it, a voice's a small part).
                let lastSound = (asked + last.lowerBound)..<(asked + last.upperBound)
                let ending = max(lastSound.lowerBound, lastSound.upperBound - Int(0.3 * rate))..<lastSound.upperBound
                let pulseShare = pulse(ending) / (SignalAnalysis.rms(recording[ending]) * 2.0.squareRoot())
                let lastIsSpeech =
                    SignalAnalysis.looksLikeSpeech(recording[lastSound], sampleRate: rate) && pulseShare < 0.3
                // What sounded and what was said when, from the answer to the question on, should this fail.
                let heard = bursts.map {
                    String(format: "%.2f…%.2f s", Double($0.lowerBound) / rate, Double($0.upperBound) / rate)
                }
                let said = try session.records(ofType: "speech")
                let answeredAt = said.last { ($0["text"] as! String).contains("Reading the frame") }?["t"] as? Double
                let saidWhen = said.map { record in
                    String(format: "%.2f s: ", (record["t"] as! Double) - (answeredAt ?? 0))
                        + (record["text"] as! String)
                }
                #expect(
                    lastIsSpeech,
                    "sounds \(heard) after the question, the last ending \(Int(pulseShare * 100)) % pulse; said \(saidWhen) after the answer"
                )
                // The frame came through the share, read while the pulse sounded.
                #expect(share.reads().count > reads)
            }
        }
    }
}
