import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Every pen event sounds a constant delay after it happened: live, as the sink heard it, the
    /// moments between touches are those of the session log — which is what `render` replays at the
    /// samples the events' times give — to within a millisecond. Played at the start of the next
    /// period instead, they would wander by up to a period (5.3 ms natively on PipeWire).
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
        /// pause: a pause between a touch and its sound makes it late (one before the touch delays its
        /// time stamp too, which changes nothing).
        static func gapsOnTime(_ touches: [Double], sound: SoundServer) -> [Int] {
            let pauses = sound.machinePauses.pauses()
            let onTime = touches.map {
                MachinePauseWatch.pauses(during: ($0 - 0.002)...($0 + 0.02), among: pauses).isEmpty
            }
            return touches.indices.dropFirst().filter { onTime[$0 - 1] && onTime[$0] }
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
                    cleanGaps = Self.gapsOnTime(try Self.touches(in: session), sound: sound).count
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
                for k in Self.gapsOnTime(touches, sound: sound) {
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
