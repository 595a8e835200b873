import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The first whole path on real parts: a PNG on screen, a pen on it, a tone out of PulseAudio.
    /// Assertions about sound come from the recording of the sink, not from what the program logs.
    @Suite struct PlayTests {
        /// Nearest-rank percentile, computed here from the definition.
        static func percentile(_ samples: [UInt16], _ p: Double) -> Double {
            let sorted = samples.sorted()
            let rank = max(1, Int((p / 100 * Double(sorted.count) - 1e-9).rounded(.up)))
            return Double(sorted[rank - 1])
        }

        /// The default profile's level: clamp((v − lo)/(top − lo)), the top half the span above the 99.5th percentile.
        static func level(_ value: UInt16, samples: [UInt16]) -> Double {
            let lo = percentile(samples, 0.5), hi = percentile(samples, 99.5)
            let top = hi + 0.5 * (hi - lo)
            return min(max((Double(value) - lo) / (top - lo), 0), 1)
        }

        /// The default profile's mapping: f = 110·16^level.
        static func mappedFrequency(_ value: UInt16, samples: [UInt16]) -> Double {
            110 * pow(16, level(value, samples: samples))
        }

        @Test(arguments: SoundServer.Kind.allCases)
        func pitchFollowsIntensityAndLiftingIsSilent(sound kind: SoundServer.Kind) throws {
            try withServers("regions", sound: kind) { display, sound, folder in
                // Five 10×10 regions of known values, side by side.
                let values: [UInt16] = [3000, 12_000, 25_000, 41_000, 60_000]
                let width = 50, height = 10
                let samples = (0..<width * height).map { values[($0 % width) / 10] }
                let imagePath = folder + "/regions.png"
                try Data(TestPNG(width: width, height: height, bitDepth: 16, colourType: .gray, samples: samples).bytes)
                    .write(to: URL(fileURLWithPath: imagePath))

                let session = try RunningPlay(image: imagePath, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let viewport = try session.waitUntilShown()
                // Independently: the image fills the screen's width, centred vertically.
                let scale = min(Double(display.width) / Double(width), Double(display.height) / Double(height))
                let originX = (Double(display.width) - Double(width) * scale) / 2
                let originY = (Double(display.height) - Double(height) * scale) / 2
                #expect(
                    abs(viewport.scale - scale) < 1e-9 && abs(viewport.originX - originX) < 1e-6
                        && abs(viewport.originY - originY) < 1e-6)

                // The sighted view: each region drawn with the percentile stretch, letterbox black.
                let shot = try Screenshot.capture(display)
                for (region, value) in values.enumerated() {
                    let x = Int(originX + (Double(region * 10) + 5) * scale), y = Int(originY + 5 * scale)
                    let expectedGray = Int((Self.level(value, samples: samples) * 255).rounded())
                    #expect(
                        shot.gray(x: x, y: y) == expectedGray,
                        "region \(region) at \(x),\(y): \(String(shot[x, y], radix: 16))")
                }
                #expect(shot[display.width / 2, Int(originY) / 2] == 0 && shot[10, display.height - 5] == 0)

                // Once the greeting is over: slowly across all five regions, lift, rest, then a tap on
                // the middle region.
                let mark = try session.waitForGreeting()
                let y = originY + 5.3 * scale
                let from = (originX + 1.5 * scale, y), to = (originX + 48.5 * scale, y)
                try display.stroke(from: from, to: to, ms: 3000)
                usleep(600_000)
                let tapPoint = (originX + 25.2 * scale, originY + 3.7 * scale)
                try display.tap(tapPoint.0, tapPoint.1, ms: 400)
                usleep(500_000)
                let end = sound.recordedSampleCount()
                #expect(try session.quitWithKey() == 0)

                // --- What came out of the sink, between the greeting and the goodbye.
                let recording = Array(try sound.recording()[..<end])
                let rate = SoundServer.sampleRate
                let bursts = SignalAnalysis.bursts(recording, threshold: 0.01, window: 48, minimumGap: 4800)
                    .filter { $0.lowerBound >= mark }
                try #require(
                    bursts.count == 2,
                    "expected two sounding stretches (stroke, tap), found \(bursts.map { Double($0.count) / rate })")
                let stroke = bursts[0], tap = bursts[1]

                // When the pen touched (from the log's clock): the stroke, then the tap after the longest lift.
                let touching = try session.records(ofType: "pen").filter { ($0["buttons"] as! [Int]).contains(1) }
                let touchTimes = touching.map { $0["t"] as! Double }
                let lift = try #require(
                    touchTimes.indices.dropFirst().max {
                        touchTimes[$0] - touchTimes[$0 - 1] < touchTimes[$1] - touchTimes[$1 - 1]
                    })
                let pauses = sound.machinePauses.pauses()
                // Each pause of the machine during the stroke left a gap in one region's tone.
                let strokePauses = MachinePauseWatch.pauses(
                    during: touchTimes[0]...touchTimes[lift - 1], among: pauses)

                let expected = values.map { Self.mappedFrequency($0, samples: samples) }
                let plateaus = SignalAnalysis.pitchPlateaus(
                    recording[stroke], sampleRate: rate, window: 2400,
                    tolerance: 0.005, minimumLength: 9600, machinePauses: strokePauses.count)
                #expect(
                    plateaus.count == 5, "plateaus: \(plateaus.map { ($0.frequency, Double($0.range.count) / rate) })")
                for (plateau, frequency) in zip(plateaus, expected) {
                    #expect(
                        abs(plateau.frequency / frequency - 1) < 0.01,
                        "region at \(frequency) Hz sounded \(plateau.frequency) Hz")
                }
                let tapPitch = SignalAnalysis.steadyFrequency(
                    recording[(tap.lowerBound + 960)..<(tap.upperBound - 960)],
                    sampleRate: rate)
                #expect(
                    abs((tapPitch ?? 0) / expected[2] - 1) < 0.01,
                    "tap sounded \(tapPitch ?? 0) Hz, expected \(expected[2])")

                // Silence (< −60 dBFS) while the pen is lifted: before the first touch and between the two.
                let gap = (stroke.upperBound + 960)..<(tap.lowerBound - 960)
                #expect(gap.count > 12_000)
                #expect(
                    SignalAnalysis.peak(recording[gap]) < 0.001,
                    "lifted gap peak \(SignalAnalysis.peak(recording[gap]))")
                #expect(SignalAnalysis.peak(recording[mark..<max(mark, stroke.lowerBound - 960)]) < 0.001)
                // Lifting fades out within 10 ms: from the last full-level millisecond to below −60 dBFS.
                for burst in [stroke, tap] {
                    let ms = 48
                    var lastLoud = burst.lowerBound
                    for start in stride(from: burst.lowerBound, to: burst.upperBound + 2400, by: ms)
                    where SignalAnalysis.peak(recording[start..<start + ms]) > 0.45 { lastLoud = start + ms }
                    var firstQuiet = lastLoud
                    while SignalAnalysis.peak(recording[firstQuiet..<firstQuiet + ms]) >= 0.001 { firstQuiet += ms }
                    #expect(
                        Double(firstQuiet - lastLoud) / rate <= 0.010,
                        "fade took \(Double(firstQuiet - lastLoud) / rate) s")
                }

                // --- The offline render of this session's log sounds what the sink heard, and is repeatable.
                let wavPath = folder + "/session.wav"
                for copy in 0..<2 {
                    let rendered = try Subprocess.run(
                        Fixtures.binary,
                        [
                            "render", imagePath, "--session", session.logPath,
                            "--out", wavPath + ".\(copy)"
                        ])
                    #expect(rendered.status == 0, "\(rendered.output)")
                }
                let renderedBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath + ".0")))
                #expect(renderedBytes == (try [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath + ".1")))))
                let wav = try WAVFile(bytes: renderedBytes)
                let renderedLeft = wav.channel(0)
                // The render speaks too: the stroke is the stretch of sound with the most steady pitches,
                // the tap the next one.
                let renderedBursts = SignalAnalysis.bursts(renderedLeft, threshold: 0.01, window: 48, minimumGap: 4800)
                let tonal = renderedBursts.map {
                    SignalAnalysis.pitchPlateaus(
                        renderedLeft[$0], sampleRate: rate, window: 2400, tolerance: 0.005, minimumLength: 9600)
                }
                let strokeIndex = try #require(tonal.indices.max { tonal[$0].count < tonal[$1].count })
                try #require(strokeIndex + 1 < renderedBursts.count, "no tap after the stroke in the render")
                let renderedPlateaus = tonal[strokeIndex]
                #expect(
                    renderedPlateaus.count == plateaus.count
                        && zip(renderedPlateaus, plateaus).allSatisfy { abs($0.frequency / $1.frequency - 1) < 0.002 },
                    "rendered \(renderedPlateaus.map(\.frequency)) vs heard \(plateaus.map(\.frequency))")
                // The lifted gap lasts as long in the render as in the recording (within 20 ms, and the length
                // of any pause of the machine then: it delays what is heard after it).
                let heardGap = Double(tap.lowerBound - stroke.upperBound) / rate
                let renderedGap =
                    Double(renderedBursts[strokeIndex + 1].lowerBound - renderedBursts[strokeIndex].upperBound) / rate
                let gapPauses = MachinePauseWatch.pauses(during: touchTimes[lift - 1]...touchTimes[lift], among: pauses)
                #expect(
                    abs(heardGap - renderedGap) < 0.02 + gapPauses.map(\.seconds).reduce(0, +),
                    "gap \(renderedGap) s rendered, \(heardGap) s heard, machine pauses \(gapPauses.map(\.evidence))")

                // --- What the log says about positions: every touching record maps the sent position exactly.
                let sent = [from] + TestDisplay.strokePoints(from: from, to: to, ms: 3000) + [tapPoint]
                #expect(touching.count > 200)
                for record in touching {
                    let x = record["x"] as! Double, y = record["y"] as! Double
                    // The sent point this record reports (the X server passes tenths of a pixel).
                    let match = sent.map { display.effective($0.0, $0.1) }.min {
                        hypot($0.x - x, $0.y - y) < hypot($1.x - x, $1.y - y)
                    }!
                    #expect(hypot(match.x - x, match.y - y) < 0.05, "record at \(x),\(y) matches no sent point")
                    let ix = (match.x - originX) / scale - 0.5, iy = (match.y - originY) / scale - 0.5
                    #expect(abs(record["ix"] as! Double - ix) <= 0.5 && abs(record["iy"] as! Double - iy) <= 0.5)
                    let i = Int((ix + 0.5).rounded(.down)), j = Int((iy + 0.5).rounded(.down))
                    #expect(record["sample"] as! Int == Int(samples[j * width + i]))
                }
            }
        }

        @Test func everyPenPositionReadsItsExactPixel() throws {
            try withServers("pixels") { display, sound, folder in
                // A large image where neighbouring pixels differ, shown at a scale near 1.
                let width = 1500, height = 900
                let samples = (0..<width * height).map {
                    UInt16(truncatingIfNeeded: ($0 % width) * 37 + ($0 / width) * 1009)
                }
                let imagePath = folder + "/gradient.png"
                try Data(TestPNG(width: width, height: height, bitDepth: 16, colourType: .gray, samples: samples).bytes)
                    .write(to: URL(fileURLWithPath: imagePath))
                let session = try RunningPlay(image: imagePath, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                let scale = min(Double(display.width) / Double(width), Double(display.height) / Double(height))
                let originX = (Double(display.width) - Double(width) * scale) / 2
                let originY = (Double(display.height) - Double(height) * scale) / 2

                // Positions in tenths of a pixel all over the screen, including the letterbox.
                var random = SystemRandomNumberGenerator()
                var points: [(Double, Double)] = (0..<30).map { _ in
                    (
                        Double(Int.random(in: 0..<display.width * 10, using: &random)) / 10,
                        Double(Int.random(in: 0..<display.height * 10, using: &random)) / 10
                    )
                }
                points += [
                    (originX + 0.1, originY + 0.1), (originX - 0.5, 500), (originX + Double(width) * scale - 0.1, 300.3)
                ]
                try display.down(points[0].0, points[0].1)
                for p in points.dropFirst() { try display.move(p.0, p.1) }
                try display.up()
                usleep(300_000)
                #expect(try session.quitWithKey() == 0)

                let records = try session.records(ofType: "pen")
                var checked = Set<Int>()
                for (index, p) in points.enumerated() {
                    let e = display.effective(p.0, p.1)
                    guard
                        let record = records.first(where: {
                            abs($0["x"] as! Double - e.x) < 0.05 && abs($0["y"] as! Double - e.y) < 0.05
                                && ($0["buttons"] as! [Int]).contains(1)
                        })
                    else {
                        Issue.record("no pen record for the point sent to \(e)")
                        continue
                    }
                    checked.insert(index)
                    let ix = (e.x - originX) / scale - 0.5, iy = (e.y - originY) / scale - 0.5
                    #expect(abs(record["ix"] as! Double - ix) <= 0.5 && abs(record["iy"] as! Double - iy) <= 0.5)
                    // On a pixel edge (X passes 16.16 fixed point, so 75.6 arrives as 75.599998) either neighbour is right.
                    func candidates(_ v: Double) -> [Int] {
                        let edge = (v + 0.5).rounded()
                        return abs(v + 0.5 - edge) < 1e-3 ? [Int(edge) - 1, Int(edge)] : [Int((v + 0.5).rounded(.down))]
                    }
                    // Each candidate pixel as the log must report it: (inImage, sample; 0 outside).
                    let expected = candidates(ix).flatMap { i in
                        candidates(iy).map { j in
                            i >= 0 && i < width && j >= 0 && j < height
                                ? "\(true) \(samples[j * width + i])" : "\(false) 0"
                        }
                    }
                    let reported = "\(record["inImage"] as! Bool) \(record["sample"] as! Int)"
                    #expect(expected.contains(reported), "at \(e): logged \(reported), expected one of \(expected)")
                }
                #expect(checked.count == points.count)
            }
        }

        @Test func opensTheBundledImageByDefaultAndQuitsOnSignal() throws {
            try withServers("default") { display, sound, folder in
                let session = try RunningPlay(image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let start = try #require(try session.records(ofType: "start").first)
                #expect((start["image"] as! String).hasSuffix("/images/atomic-lattice.png"))
                #expect(start["bitDepth"] as? Int == 16 && start["profile"] as? String == "default")
                #expect(start["sampleRate"] as? Int == 48000)
                // A touch on the lattice sounds — the pitch of the pixel under the nib, which the log
                // names — and SIGTERM ends the program at once (no goodbye), cleanly.
                let mark = sound.recordedSampleCount()
                try display.tap(Double(display.width) / 2, Double(display.height) / 2, ms: 300)
                usleep(300_000)
                session.process.signal(SIGTERM)
                #expect(session.process.wait(timeout: 10) == 0)
                let recording = Array(try sound.recording()[mark...])
                let touch = try #require(
                    SignalAnalysis.bursts(recording, threshold: 0.01, window: 48, minimumGap: 4800).first)
                let heard =
                    SignalAnalysis.steadyFrequency(
                        recording[(touch.lowerBound + 960)..<(touch.upperBound - 960)],
                        sampleRate: SoundServer.sampleRate) ?? 0
                let logged = try #require(try session.records(ofType: "pen").last { ($0["frequency"] as! Double) > 0 })
                #expect(abs(heard / (logged["frequency"] as! Double) - 1) < 0.01)
                #expect(SignalAnalysis.peak(recording[...]) > 0.4)
                #expect(try session.lastAnswer() != "Goodbye.")
            }
        }

        @Test func asksTheWindowManagerForFullScreenAndQuitsOnEscapePressedTwice() throws {
            try withServers("wm") { display, sound, folder in
                guard let openbox = Subprocess.which("openbox"), let xprop = Subprocess.which("xprop") else {
                    throw HarnessError("openbox and xprop are needed for this test (scripts/install-deps test)")
                }
                // Openbox claims the screen before its start ends, and a window mapped in between may go
                // unmanaged (never shown, never told its place): its startup command runs once it has started.
                let started = folder + "/openbox-started"
                let manager = try Subprocess(
                    openbox, ["--startup", "touch \(started)"], environment: display.environment, folder: folder,
                    label: "openbox")
                defer { manager.stop() }
                try waitFor("openbox to run its startup command", timeout: 30) {
                    FileManager.default.fileExists(atPath: started)
                }
                let session = try RunningPlay(image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let search = {
                    try Subprocess.run(
                        try #require(Subprocess.which("xdotool")),
                        ["search", "--name", "SonicAtomic"], environment: display.environment)
                }
                func state(_ window: String) throws -> String {
                    try Subprocess.run(xprop, ["-id", window, "_NET_WM_STATE"], environment: display.environment).output
                }
                // Full screen: the window manager gives the window the whole screen.
                do {
                    try waitFor("a full-screen placement", timeout: 20) {
                        (try? session.records(ofType: "viewport"))?.last.map {
                            ($0["scale"] as! Double) == Double(display.height) / 384
                        } == true
                    }
                } catch {
                    let windows = (try? search().output.split(separator: "\n").map(String.init)) ?? []
                    let states = windows.map { (try? state($0)) ?? "?" }
                    let viewport = String(describing: try? session.records(ofType: "viewport").last)
                    Issue.record("last viewport: \(viewport); windows \(windows): \(states)")
                    throw error
                }
                let window = try #require(try search().output.split(separator: "\n").first.map(String.init))
                let state = try state(window)
                #expect(state.contains("_NET_WM_STATE_FULLSCREEN"), "\(state)")
                // Escape never quits at once: a second press, said beforehand, does.
                try display.key("Escape")
                #expect(session.process.wait(timeout: 1) == nil)
                try display.key("Escape")
                #expect(session.process.wait(timeout: 10) == 0)
            }
        }

        @Test(arguments: SoundServer.Kind.allCases)
        func aDropoutIsHeardAsSilenceAndLogged(sound kind: SoundServer.Kind) throws {
            try withServers("dropout", sound: kind, dropoutsExpected: true) { display, sound, folder in
                let image = try writeImage(folder, "flat.png", width: 64, height: 64) { _, _ in 20_000 }
                let session = try RunningPlay(image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                try display.down(Double(display.width) / 2, Double(display.height) / 2)
                try waitFor("the tone", timeout: 5) {
                    SignalAnalysis.peak((try? sound.recording())?.suffix(480) ?? []) > 0.3
                }
                // The program stopped for 0.3 s, as a machine too busy to run it would: its buffer runs dry.
                let mark = sound.recordedSampleCount()
                func now() -> Double {
                    var time = timespec()
                    clock_gettime(CLOCK_MONOTONIC, &time)
                    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
                }
                let heldBefore = try Self.serverBuffer(on: sound)
                let stopped = now()
                session.process.signal(SIGSTOP)
                usleep(300_000)
                session.process.signal(SIGCONT)
                let resumed = now()
                try waitFor("a dropout record", timeout: 5) {
                    (try? session.records(ofType: "dropout"))?.contains { ($0["t"] as! Double) > stopped } == true
                }
                usleep(300_000)
                try display.up()
                // Heard: the tone stops (silence of 0.1 s or more) and comes back.
                let heard = Array(try sound.recording()[mark...])
                let gaps = SignalAnalysis.bursts(
                    heard.map { $0 == 0 ? 1 : 0 }, threshold: 0.5, window: 48, minimumGap: 0)
                #expect(gaps.contains { $0.count >= 4800 }, "silences \(gaps)")
                // Logged: after the stop, with a count, and noticed as the program ran on again.
                let dropout = try #require(
                    try session.records(ofType: "dropout").first { ($0["t"] as! Double) > stopped })
                let logged = dropout["t"] as! Double
                #expect((dropout["count"] as! Int) >= 1, "\(dropout)")
                let noticed = try #require(dropout["at"] as? Double, "\(dropout)")
                #expect(
                    noticed > stopped && noticed < resumed + 0.1 && noticed <= logged, "\(dropout), resumed \(resumed)")
                // Through PulseAudio's protocol the buffer then grows by half the default 10 ms, from whatever it was (an
                // earlier dropout or near miss, as the session started, may have grown it already); PulseAudio holds
                // more than before, by its own account. Not when it grew less than `BufferLength.settling` before: that
                // is the same trouble, before the longer buffer has filled.
                let lengths = try session.records(ofType: "buffer")
                let earlier = lengths.last { ($0["t"] as! Double) < stopped }
                let grewAt: Double = earlier?["t"] as? Double ?? -Double.infinity
                let settled = resumed - grewAt >= BufferLength.settling
                if sound.kind != .pipewireNative && settled {
                    let before = earlier?["seconds"] as? Double ?? 0.01
                    let grown = try #require(lengths.first { ($0["t"] as! Double) > stopped }, "\(lengths)")
                    #expect(abs((grown["seconds"] as? Double ?? 0) - (before + 0.005)) < 1e-9, "\(lengths)")
                    if let heldBefore {
                        try waitFor(
                            "PulseAudio's longer buffer (it held \(heldBefore) s, lengths \(lengths))", timeout: 5
                        ) {
                            ((try? Self.serverBuffer(on: sound)) ?? 0) > heldBefore + 0.003
                        }
                    }
                }
                #expect(try session.quitWithKey() == 0)
            }
        }

        /// How much of the program's sound PulseAudio says it holds (its buffer and its sink's, in seconds), from its
        /// own list of streams; nil on PipeWire, whose pulse service does not say.
        static func serverBuffer(on sound: SoundServer) throws -> Double? {
            guard sound.kind == .pulseaudio else { return nil }
            let pactl = try #require(Subprocess.which("pactl"), "pactl is needed (scripts/install-deps test)")
            let listed = try Subprocess.run(pactl, ["list", "sink-inputs"], environment: sound.clientEnvironment)
            let ours = try #require(
                listed.output.components(separatedBy: "Sink Input #").first {
                    $0.contains("application.name = \"SonicAtomic\"")
                }, "\(listed.output)")
            let microseconds = ["Buffer Latency: ", "Sink Latency: "].compactMap { label in
                ours.components(separatedBy: label).dropFirst().first?.split(separator: " ").first.flatMap {
                    Double($0)
                }
            }
            try #require(microseconds.count == 2, "\(ours)")
            return microseconds.reduce(0, +) / 1e6
        }

        @Test func noSoundServerIsOneLineAndStatusFour() throws {
            let folder = try Fixtures.scratch("nosound")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let display = try TestDisplay(folder: folder)
            defer { display.stop() }
            let image = Fixtures.repository + "/images/atomic-lattice.png"
            let result = try Subprocess.run(
                Fixtures.binary, ["play", image],
                environment: display.environment.merging(
                    [
                        "PULSE_SERVER": "unix:/tmp/no-such-sound-server/native",
                        "PIPEWIRE_REMOTE": "/tmp/no-such-sound-server/pipewire-0"
                    ]) { $1 })
            #expect(result.status == 4)
            // Both servers were tried, and the line says why each could not play.
            #expect(
                result.output.hasPrefix(
                    "sonic-atomic: no sound server: PipeWire: not running; PulseAudio: cannot connect"))
            #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        }
    }
}
