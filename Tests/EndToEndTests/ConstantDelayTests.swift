import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Every pen event sounds a constant delay after it happened: live, as the sink heard it, the
    /// moments between touches are those of the session log — which is what `render` replays at the
    /// samples the events' times give — to within a millisecond. Played at the start of the next
    /// period instead, they would wander by up to a period (5.3 ms natively on PipeWire). The delay
    /// may grow where the server holds its sound longer than it said, and a change queued after its
    /// frames were rendered (the program's main loop kept waiting by other work) is made late; the log
    /// says when (`delay`, `late`), and those gaps are not compared.
    @Suite struct ConstantDelayTests {
        static let rate = SoundServer.sampleRate

        /// Where each touch's tone starts: the first sample above −40 dBFS after at least 50 ms of silence.
        static func onsets(_ x: [Float]) -> [Int] {
            var onsets: [Int] = []
            var quiet = 0
            for (i, v) in x.enumerated() {
                if abs(v) >= 0.01 {
                    if quiet >= 2400 { onsets.append(i) }
                    quiet = 0
                } else {
                    quiet += 1
                }
            }
            return onsets
        }

        /// When each touch began, as the session log has it.
        static func touches(in session: RunningPlay) throws -> [Double] {
            var touches: [Double] = []
            var touching = false
            for record in try session.records(ofType: "pen") {
                let down = (record["buttons"] as! [Int]).contains(1) && record["pressure"] as! Double > 0
                if down && !touching { touches.append(record["t"] as! Double) }
                touching = down
            }
            return touches
        }

        /// The touches (by index) that, with the one before, fell where the machine itself did not
        /// pause (a pause between a touch and its sound makes it late; one before the touch delays its
        /// time stamp too, which changes nothing), the delay stayed as it was and no change was made late
        /// (`logged`: when the log says the delay changed or a change was late, a little after it was).
        static func gapsOnTime(_ touches: [Double], sound: SoundServer, logged: [Double]) -> [Int] {
            let pauses = sound.machinePauses.pauses()
            let onTime = touches.map {
                MachinePauseWatch.pauses(during: ($0 - 0.002)...($0 + 0.02), among: pauses).isEmpty
            }
            return touches.indices.dropFirst().filter { k in
                onTime[k - 1] && onTime[k] && !logged.contains { (touches[k - 1]...(touches[k] + 0.1)).contains($0) }
            }
        }

        /// When the session log says the delay changed, and when a change was made late.
        static func timingNotes(in session: RunningPlay) throws -> (delays: [Double], late: [Double]) {
            (
                try session.records(ofType: "delay").map { $0["t"] as! Double },
                try session.records(ofType: "late").map { $0["t"] as! Double }
            )
        }

        @Test(arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func liveAndRenderedSoundChangeAtTheSameMoments(sound kind: SoundServer.Kind) throws {
            try withServers("constant-delay", sound: kind) { display, sound, folder in
                // No voice: nothing but the touches sounds.
                let silent = folder + "/no-voice"
                try FileManager.default.createDirectory(atPath: silent, withIntermediateDirectories: true)
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder,
                    environment: ["ESPEAK_DATA_PATH": silent])
                defer { session.stop() }
                try session.waitUntilShown()
                usleep(500_000)
                let mark = sound.recordedSampleCount()
                let (x, y) = SoundServerLossTests.disc(on: display)
                // Touches of a tenth of a second at irregular moments, ten at a time until at least four
                // gaps between them fall where the machine itself did not pause (a pause holds
                // everything up), at most forty touches.
                var random = SeededRandom(seed: 30)
                var taps = 0
                var cleanGaps = 0
                repeat {
                    for _ in 0..<10 {
                        try display.tap(x, y, ms: 100)
                        usleep(UInt32(150_000 + random.next() % 200_000))
                    }
                    taps += 10
                    usleep(300_000)
                    cleanGaps =
                        Self.gapsOnTime(
                            try Self.touches(in: session), sound: sound,
                            logged: { $0.delays + $0.late }(try Self.timingNotes(in: session))
                        ).count
                } while cleanGaps < 4 && taps < 40
                let live = Self.onsets(Array(try sound.recording()[mark...]))
                #expect(try session.quitWithKey() == 0)
                let touches = try Self.touches(in: session)

                let wavPath = folder + "/session.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary,
                    [
                        "render", Fixtures.repository + "/images/shapes.png", "--session", session.logPath, "--out",
                        wavPath
                    ],
                    environment: ["ESPEAK_DATA_PATH": silent])
                try #require(rendered.status == 0, "\(rendered.output)")
                let wav = try WAVFile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: wavPath))))
                let offline = Self.onsets(stride(from: 0, to: wav.samples.count, by: 2).map { wav.samples[$0] })
                try #require(touches.count == taps, "\(touches)")
                try #require(live.count == taps && offline.count == taps, "live \(live), rendered \(offline)")

                var compared = 0
                let notes = try Self.timingNotes(in: session)
                #expect(!notes.delays.isEmpty, "the log never said the delay")
                for k in Self.gapsOnTime(touches, sound: sound, logged: notes.delays + notes.late) {
                    let liveGap = Double(live[k] - live[k - 1]) / Self.rate
                    let renderedGap = Double(offline[k] - offline[k - 1]) / Self.rate
                    #expect(
                        abs(liveGap - renderedGap) < 0.001,
                        "touch \(k): \(liveGap * 1000) ms after the last live, \(renderedGap * 1000) ms rendered")
                    compared += 1
                }
                #expect(compared >= 4, "only \(compared) gaps without a pause of the machine")
            }
        }
    }
}
