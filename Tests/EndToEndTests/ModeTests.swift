import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The multi-mode instrument and its voice, on the real pen and a real sound server: what the
    /// user hears is checked in the recording, what was said in the log.
    @Suite struct ModeTests {
        static let rate = SoundServer.sampleRate

        /// The first sample after `mark` louder than −40 dBFS.
        func onset(_ x: [Float], after mark: Int) -> Int? {
            x[mark...].firstIndex { abs($0) > 0.01 }
        }

        @Test(arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func barrelButtonChangesModeAndEveryActionIsSpoken(sound kind: SoundServer.Kind) throws {
            try withServers("barrel", sound: kind) { display, sound, folder in
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                // The greeting first.
                let greetingMark = try session.waitForGreeting()
                let greeting = try session.spokenTexts()
                let noTablet =
                    display.hasRealPen ? "" : " No pen tablet found: the mouse plays, as a pen pressed fully."
                #expect(
                    greeting.first
                        == "SonicAtomic. atomic-lattice.png, 384 by 384 pixels, 16 bit. Mode 1, intensity pitch."
                        + noTablet)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[..<greetingMark], sampleRate: Self.rate))

                // Double click of the lower barrel button, hovering: the next mode, announced at once.
                let mark = sound.recordedSampleCount()
                try display.pen("button", "1", "--double", "--at", "960,540")
                let modeSpeech = try sound.waitForUtterance(after: mark)
                #expect(
                    Double(modeSpeech.lowerBound - mark) / Self.rate < 0.6,
                    "speech began \(Double(modeSpeech.lowerBound - mark) / Self.rate) s after the click")
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[modeSpeech], sampleRate: Self.rate))
                #expect(try session.records(ofType: "mode").map { $0["mode"] as! String } == ["pressure-amplitude"])
                #expect(try session.spokenTexts().last == "Mode 2, pressure amplitude.")

                // A single click: where am I, once the double-click time has passed.
                let whereMark = sound.recordedSampleCount()
                try display.pen("button", "1", "--at", "960,540")
                let whereSpeech = try sound.waitForUtterance(after: whereMark)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[whereSpeech], sampleRate: Self.rate))
                // The hovering pen at the screen centre is over pixel (192, 192) of the 384-pixel lattice.
                let afterClick = try session.spokenTexts()
                #expect(afterClick.last?.hasPrefix("x 192, y 192, intensity ") == true, "\(afterClick)")
                #expect(try session.records(ofType: "mode").count == 1)

                // The upper barrel button outside tagging mode: the last announcement again.
                let said = try session.spokenTexts()
                try display.pen("button", "2", "--at", "960,540")
                try sound.waitForUtterance(after: sound.recordedSampleCount())
                let repeated = try session.spokenTexts()
                #expect(repeated.count == said.count + 1 && repeated.last == said.last)

                #expect(try session.quitWithKey() == 0)
                #expect(try session.spokenTexts().last == "Goodbye.")

                // The offline render speaks every announcement where it was spoken.
                try sound.waitForSilence()
                let wavPath = folder + "/session.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary,
                    [
                        "render", Fixtures.repository + "/images/atomic-lattice.png",
                        "--session", session.logPath, "--out", wavPath
                    ])
                #expect(rendered.status == 0, "\(rendered.output)")
                let wav = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath))))
                func utterances(_ x: [Float]) -> [Double] {
                    let spans = SignalAnalysis.bursts(x, threshold: 0.01, window: 480, minimumGap: Int(0.3 * Self.rate))
                    return spans.map { Double($0.lowerBound - spans[0].lowerBound) / Self.rate }
                }
                let heard = utterances(try sound.recording()), replayed = utterances(wav.channel(0))
                #expect(heard.count == replayed.count && heard.count >= 5, "heard \(heard), rendered \(replayed)")
                // A pause of the machine shifts what is heard after it: each pause may shift the rest once.
                let shifts = zip(heard, replayed).map { $0 - $1 }
                let jumps = zip(shifts.dropFirst(), shifts).filter { abs($0 - $1) >= 0.05 }.count
                let pauses = sound.machinePauses.pauses()
                #expect(
                    jumps <= pauses.count && (!pauses.isEmpty || shifts.allSatisfy { abs($0) < 0.05 }),
                    "heard \(heard), rendered \(replayed), machine pauses \(pauses.map(\.evidence))")
            }
        }

        /// On a flat image in mode `key`: one pen stroke (`pen stroke` arguments), then `body` gets the
        /// recording and `count` equal windows through the middle 80 % of the stroke's sound.
        func stroke(
            inMode key: String, _ name: String, _ arguments: [String], windows count: Int, sound kind: SoundServer.Kind,
            _ body: ([Float], [Range<Int>], RunningPlay) throws -> Void
        ) throws {
            try withServers(name, sound: kind) { display, sound, folder in
                let image = try writeImage(folder, "flat.png", width: 64, height: 64) { _, _ in 20_000 }
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let modeMark = sound.recordedSampleCount()
                try display.key(key)
                let mark = try sound.waitForUtterance(after: modeMark).upperBound
                try display.pen(["stroke", "--from", "700,540", "--to", "1200,540"] + arguments)
                try sound.waitForSilence()
                let x = try sound.recording()
                let bursts = SignalAnalysis.bursts(Array(x[mark...]), threshold: 0.005, window: 48, minimumGap: 4800)
                let stroke = try #require(bursts.first, "no sound from the stroke")
                let inner =
                    (mark + stroke.lowerBound + stroke.count / 10)..<(mark + stroke.upperBound - stroke.count / 10)
                let windows = (0..<count).map { k in
                    (inner.lowerBound + k * inner.count / count)..<(inner.lowerBound + (k + 1) * inner.count / count)
                }
                try body(x, windows, session)
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test(
            .enabled(if: Fixtures.hasRealPen, "needs the real pen's pressure: \(Fixtures.penTabletMissing ?? "")"),
            arguments: SoundServer.Kind.allCases)
        func pressureSetsTheLoudness(sound kind: SoundServer.Kind) throws {
            try stroke(inMode: "2", "pressure", ["--pressure", "0.1:0.9", "--ms", "2000"], windows: 5, sound: kind) {
                x, windows, _ in
                // Each window louder than the last, as the linear pressure curve says — loudness ∝
                // (p − threshold) — within 1.5 dB.
                let levels = windows.map { SignalAnalysis.dBFS(x[$0]) }
                // The stroke's pressure at each window's middle (windows span 10 % … 90 % of it).
                let pressures: [Double] = (0..<5).map { k in
                    let u = 0.1 + 0.8 * (Double(k) + 0.5) / 5
                    return 0.1 + 0.8 * u
                }
                let expected = pressures.map { 20 * log10(($0 - 0.013) / (pressures[2] - 0.013)) }
                #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 }, "levels \(levels)")
                for k in 0..<5 {
                    #expect(
                        abs((levels[k] - levels[2]) - expected[k]) < 1.5,
                        "levels \(levels), expected \(expected) relative to the middle")
                }
            }
        }

        @Test(
            .enabled(if: Fixtures.hasRealPen, "needs the real pen's tilt: \(Fixtures.penTabletMissing ?? "")"),
            arguments: SoundServer.Kind.allCases)
        func leaningThePenDarkensTheSound(sound kind: SoundServer.Kind) throws {
            // Upright to leaning 60° to the right, at even pressure.
            try stroke(
                inMode: "3", "tilt", ["--pressure", "0.8", "--tilt", "0,0:60,0", "--ms", "2500"], windows: 4,
                sound: kind
            ) { x, windows, session in
                let centroids = windows.map { Spectrum.centroid(x[$0], sampleRate: Self.rate, frame: 4096) }
                // Upright is bright, flat is dark: the centre of the spectrum falls as the pen leans.
                #expect(zip(centroids, centroids.dropFirst()).allSatisfy { $0 > $1 }, "centroids \(centroids)")
                #expect(centroids[0] > 1.5 * centroids[3], "centroids \(centroids)")
                let pens = try session.records(ofType: "pen").filter { ($0["buttons"] as! [Int]).contains(1) }
                #expect(pens.allSatisfy { $0["mode"] as? String == "tilt-filter" })
                #expect(abs((pens.last?["tiltX"] as? Double ?? 0) - 60) < 1.5)
            }
        }

        @Test func tapInTaggingModeTagsAndSaysWhere() throws {
            try withServers("tagging") { display, sound, folder in
                // A smooth gradient: no lattice, so the tap is tagged where it lands (snapping is TaggingTests').
                let image = try writeImage(folder, "gradient.png", width: 384, height: 384) { x, y in
                    UInt16(x * 100 + y * 50)
                }
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let viewport = try session.waitUntilShown()
                try session.waitForGreeting()
                let modeMark = sound.recordedSampleCount()
                try display.key("4")
                try sound.waitForUtterance(after: modeMark)
                #expect(try session.spokenTexts().last == "Mode 4, unit cell tagging.")

                // A tap in the middle of pixel (100, 200).
                let tapX = viewport.originX + 100.5 * viewport.scale + 0.3,
                    tapY = viewport.originY + 200.5 * viewport.scale - 0.4
                let sent = display.effective(tapX, tapY)
                let mark = sound.recordedSampleCount()
                try display.tap(tapX, tapY, ms: 80)
                let end = try sound.waitForUtterance(after: mark).upperBound
                let tags = try session.records(ofType: "tag")
                #expect(tags.count == 1)
                let tag = try #require(tags.first)
                #expect(tag["id"] as? Int == 1)
                #expect(abs(tag["ix"] as! Double - ((sent.x - viewport.originX) / viewport.scale - 0.5)) < 0.5)
                #expect(abs(tag["iy"] as! Double - ((sent.y - viewport.originY) / viewport.scale - 0.5)) < 0.5)
                let afterTap = try session.spokenTexts()
                #expect(afterTap.last?.hasPrefix("Tag 1 at x 100, y 200, intensity ") == true, "\(afterTap)")
                let x = try sound.recording()
                #expect(SignalAnalysis.looksLikeSpeech(x[mark..<end], sampleRate: Self.rate))

                // A stroke is not a tap.
                try display.stroke(from: (tapX, tapY), to: (tapX + 60, tapY), ms: 200)
                try sound.waitForSilence()
                #expect(try session.records(ofType: "tag").count == 1)

                // The upper barrel button takes the tag back.
                let untagMark = sound.recordedSampleCount()
                try display.pen("button", "2", "--at", "\(tapX),\(tapY)")
                try sound.waitForUtterance(after: untagMark)
                #expect(try session.records(ofType: "untag").map { $0["id"] as! Int } == [1])
                #expect(try session.spokenTexts().last == "Removed tag 1.")
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func everyActionHasAKey() throws {
            try withServers("keys") { display, sound, folder in
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                try display.pen("hover", "960,540")
                func press(_ key: String) throws -> String? {
                    let mark = sound.recordedSampleCount()
                    try display.key(key)
                    try sound.waitForUtterance(after: mark)
                    return try session.spokenTexts().last
                }
                #expect(try press("Tab") == "Mode 2, pressure amplitude.")
                #expect(try press("shift+Tab") == "Mode 1, intensity pitch.")
                #expect(try press("3") == "Mode 3, tilt filter.")
                #expect(try press("9") == "There is no mode 9.")
                #expect(try press("1") == "Mode 1, intensity pitch.")
                #expect(try press("space")?.hasPrefix("x 192, y 192, intensity ") == true)
                let whereAmI = try session.spokenTexts().last
                #expect(try press("r") == whereAmI)
                #expect(try press("BackSpace") == "No tags to remove.")
                #expect(
                    try session.records(ofType: "mode").map { $0["mode"] as! String }
                        == ["pressure-amplitude", "intensity-pitch", "tilt-filter", "intensity-pitch"])
                // F1's long help, cut short by quitting: the goodbye interrupts it.
                let helpMark = sound.recordedSampleCount()
                try display.key("F1")
                usleep(2_000_000)
                #expect(try session.spokenTexts().last?.hasPrefix("Keys. Control: stop speaking.") == true)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[helpMark...], sampleRate: Self.rate))
                #expect(try session.quitWithKey() == 0)
                #expect(try session.spokenTexts().last == "Goodbye.")
                // Quitting waited for the goodbye, not for the rest of the help.
                let end = try sound.waitForSilence()
                #expect(Double(end - helpMark) / Self.rate < 5)
            }
        }

        @Test(arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func theToneDucksTwelveDecibelsUnderTheVoice(sound kind: SoundServer.Kind) throws {
            try withServers("duck", sound: kind) { display, sound, folder in
                // Left half black, right half white: with no headroom, the white half plays 1760 Hz, well above the
                // voice.
                let image = try writeImage(folder, "halves.png", width: 64, height: 32) { x, _ in x < 32 ? 0 : 65535 }
                let profile = folder + "/no-headroom.toml"
                try "[level]\nheadroom = 0\n".write(toFile: profile, atomically: true, encoding: .utf8)
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder, arguments: ["--profile", profile])
                defer { session.stop() }
                let viewport = try session.waitUntilShown()
                try session.waitForGreeting()
                let point = (viewport.originX + 48 * viewport.scale, viewport.originY + 16 * viewport.scale)
                try display.down(point.0, point.1, pressure: 0.6)
                usleep(600_000)
                let before = sound.recordedSampleCount()
                try display.key("space")
                usleep(1_000_000)
                try display.up()
                let x = try sound.recording()
                let start = try #require(
                    SignalAnalysis.speechOnset(x, after: before, tone: 1760, sampleRate: Self.rate),
                    "no voice over the tone")
                let alone = try #require(
                    Spectrum.steadyAmplitude(
                        x[(before - 24_000)..<before], at: 1760, sampleRate: Self.rate, block: 2400))
                let ducked = try #require(
                    Spectrum.steadyAmplitude(
                        x[(start + 2400)..<(start + 16_800)], at: 1760, sampleRate: Self.rate, block: 2400))
                let drop = 20 * log10(alone / ducked)
                #expect(abs(drop - 12) < 1.5, "the tone dropped \(drop) dB under the voice")
                #expect(abs(alone - 0.5) < 0.02, "the tone alone played at \(alone), not 0.5")
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func aMissingVoiceFallsBackToEnglishAndSaysSo() throws {
            try withServers("novoice") { display, sound, folder in
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder,
                    arguments: ["--voice", "no-such-voice"])
                defer { session.stop() }
                try session.waitUntilShown()
                let end = try session.waitForGreeting()
                #expect(
                    session.process.stderr
                        == "sonic-atomic: the voice \"no-such-voice\" is not available; speaking English\n")
                #expect(
                    try session.spokenTexts().first?.contains("Note: the voice \"no-such-voice\" is not available")
                        == true)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[..<end], sampleRate: Self.rate))
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func withoutATabletTheGreetingSaysSoAndTheMousePlays() throws {
            try withServers("mouse", plainMouse: true) { display, sound, folder in
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                let greeting = try #require(try session.spokenTexts().first)
                #expect(
                    greeting.hasSuffix("No pen tablet found: the mouse plays, as a pen pressed fully."), "\(greeting)")
                let mark = sound.recordedSampleCount()
                try display.tap(960, 540, ms: 300)
                usleep(200_000)
                #expect(SignalAnalysis.peak(try sound.recording()[mark...]) > 0.4)
                let touch = try #require(
                    try session.records(ofType: "pen").first { ($0["buttons"] as! [Int]).contains(1) })
                #expect(touch["pressure"] as? Double == 1)
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func withoutSpeechDataTheInstrumentStillPlays() throws {
            try withServers("nodata") { display, sound, folder in
                let empty = folder + "/no-espeak-data"
                try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder,
                    environment: ["ESPEAK_DATA_PATH": empty])
                defer { session.stop() }
                try session.waitUntilShown()
                let lines = session.process.stderr.split(separator: "\n")
                #expect(
                    lines.count == 1
                        && lines.first?.hasPrefix("sonic-atomic: no speech: the eSpeak-NG voice data was not found")
                            == true,
                    "\(session.process.stderr)")
                // Silent greeting, but the pen plays.
                let mark = sound.recordedSampleCount()
                try display.tap(960, 540, ms: 300)
                usleep(200_000)
                #expect(SignalAnalysis.peak(try sound.recording()[mark...]) > 0.4)
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
