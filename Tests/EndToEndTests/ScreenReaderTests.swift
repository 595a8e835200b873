import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Living beside a screen reader: the window's name, which Orca speaks when the window comes to the
    /// front; `--speech dispatcher`, the announcements spoken by a private speech-dispatcher into the
    /// test's sound server, heard in the recording beside the program's own stream, the tone ducking
    /// under them; a restarted speech-dispatcher found again; and eSpeak-NG standing in, said once, when
    /// speech-dispatcher cannot be reached or goes away for good.
    @Suite struct ScreenReaderTests {
        static let rate = SoundServer.sampleRate

        /// The names of the applications playing to the sound server now.
        func playing(on sound: SoundServer) throws -> [String] {
            let pactl = try #require(Subprocess.which("pactl"), "pactl is needed (scripts/install-deps test)")
            let listed = try Subprocess.run(pactl, ["list", "sink-inputs"], environment: sound.clientEnvironment)
            return listed.output.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "application.name" else {
                    return nil
                }
                return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: .init(charactersIn: "\""))
            }
        }

        @Test(
            .enabled(
                if: Fixtures.hasSpeechDispatcher, "needs speech-dispatcher: \(Fixtures.speechDispatcherMissing ?? "")"),
            arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func announcementsAreSpokenBySpeechDispatcherAndTheToneDucksUnderThem(sound kind: SoundServer.Kind) throws {
            // Not held to zero dropouts: once in a few runs on a quiet machine, the program's stream ran dry
            // once, around when speech-dispatcher's stream joined the sound server (its first words). The other tests
            // hold the program's own sound to zero.
            try withServers("dispatcher", sound: kind, dropoutsExpected: true) { display, sound, folder in
                let dispatcher = try SpeechDispatcher(sound: sound, logFolder: folder)
                defer { dispatcher.stop() }
                // Left half black, right half white: with no headroom, the white half plays 1760 Hz, well above the
                // voice.
                let image = try writeImage(folder, "halves.png", width: 64, height: 32) { x, _ in x < 32 ? 0 : 65535 }
                let profile = folder + "/no-headroom.toml"
                try "[level]\nheadroom = 0\n".write(toFile: profile, atomically: true, encoding: .utf8)
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder,
                    arguments: ["--speech", "dispatcher", "--profile", profile],
                    environment: dispatcher.clientEnvironment)
                defer { session.stop() }
                let viewport = try session.waitUntilShown()

                // The greeting, in speech-dispatcher's voice: its module plays it to the server.
                var players: [String] = []
                try waitFor("speech-dispatcher to play", timeout: 10) {
                    players = (try? playing(on: sound)) ?? []
                    return players.contains("speech-dispatcher-espeak-ng")
                }
                let greetingEnd = try session.waitForGreeting()
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[..<greetingEnd], sampleRate: Self.rate))
                #expect(try session.spokenTexts().first?.hasPrefix("SonicAtomic. halves.png, 64 by 32 pixels") == true)
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")

                // The tone ducks while speech-dispatcher speaks, and comes back when it has finished.
                let point = (viewport.originX + 48 * viewport.scale, viewport.originY + 16 * viewport.scale)
                try display.down(point.0, point.1, pressure: 0.6)
                usleep(600_000)
                let before = sound.recordedSampleCount()
                try display.key("space")
                usleep(3_000_000)
                let after = sound.recordedSampleCount()
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
                        x[(start + 4800)..<(start + 19_200)], at: 1760, sampleRate: Self.rate, block: 2400))
                let back = try #require(
                    Spectrum.steadyAmplitude(
                        x[(after - 14_400)..<after], at: 1760, sampleRate: Self.rate, block: 2400))
                let drop = 20 * log10(alone / ducked)
                #expect(abs(drop - 12) < 1.5, "the tone dropped \(drop) dB under the voice")
                #expect(abs(alone - 0.5) < 0.02, "the tone alone played at \(alone), not 0.5")
                #expect(abs(back - 0.5) < 0.02, "after the voice the tone played at \(back), not 0.5")
                #expect(try session.spokenTexts().last?.hasPrefix("x 48, y 16, intensity 100 percent") == true)

                // A new announcement cuts off our last: the long key help gives way to where the pen is.
                try sound.waitForSilence()
                try display.key("F1")
                usleep(1_500_000)
                let cut = sound.recordedSampleCount()
                try display.key("space")
                let end = try sound.waitForSilence()
                #expect(
                    Double(end - cut) / Self.rate < 5, "the key help went on for \(Double(end - cut) / Self.rate) s")
                #expect(try session.spokenTexts().suffix(2).first?.hasPrefix("Keys.") == true)

                // The goodbye is heard to its end before the program leaves.
                let quitMark = sound.recordedSampleCount()
                #expect(try session.quitWithKey() == 0)
                #expect(try session.spokenTexts().last == "Goodbye.")
                let goodbye = try sound.waitForUtterance(after: quitMark)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[goodbye], sampleRate: Self.rate))
            }
        }

        @Test(
            .enabled(
                if: Fixtures.hasSpeechDispatcher, "needs speech-dispatcher: \(Fixtures.speechDispatcherMissing ?? "")"))
        func aRestartedSpeechDispatcherIsFoundAgainAndOneThatStaysAwayHandsOverToESpeakUntilItIsBack() throws {
            // Not held to zero dropouts, as above: speech-dispatcher's streams come and go here.
            try withServers("dispatcher-lost", dropoutsExpected: true) { display, sound, folder in
                let dispatcher = try SpeechDispatcher(sound: sound, logFolder: folder)
                defer { dispatcher.stop() }
                // The program may not start a daemon itself: the test says when one runs.
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder, arguments: ["--speech", "dispatcher"],
                    environment: dispatcher.clientEnvironment.merging(["SPEECHD_CMD": "/bin/false"]) { $1 })
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()

                // Restarted, as a user or the screen reader restarts it: found again within 3 s of its return,
                // and the new daemon says so, with what was asked for meanwhile.
                dispatcher.kill()
                try display.key("space")
                usleep(1_500_000)
                let asked = sound.recordedSampleCount()
                try dispatcher.start()
                try waitFor("the new speech-dispatcher to be told, within 3 s", timeout: 3) {
                    dispatcher.queuedTexts().contains { $0.hasPrefix("speech-dispatcher is back. x ") }
                }
                let spoken = try sound.waitForUtterance(after: asked)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[spoken], sampleRate: Self.rate))
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")

                // Gone for longer: eSpeak-NG says so, aloud and on stderr, once, and speaks from then on.
                let gone = sound.recordedSampleCount()
                dispatcher.kill()
                let lost = "sonic-atomic: speech-dispatcher has stopped; speaking with eSpeak-NG"
                try waitFor("the hand-over on stderr", timeout: 15) { session.process.stderr.contains(lost) }
                let notice = try sound.waitForUtterance(after: gone)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[notice], sampleRate: Self.rate))
                #expect(try playing(on: sound) == ["SonicAtomic"])
                let after = sound.recordedSampleCount()
                try display.key("space")
                let answer = try sound.waitForUtterance(after: after)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[answer], sampleRate: Self.rate))

                // Back at last: speech-dispatcher speaks again, and says so.
                let told = dispatcher.queuedTexts().count
                try dispatcher.start()
                try waitFor("speech-dispatcher to be told it is back, within 3 s", timeout: 3) {
                    dispatcher.queuedTexts().dropFirst(told).contains("speech-dispatcher is back.")
                }
                try display.key("space")
                try waitFor("the next announcement to be speech-dispatcher's", timeout: 5) {
                    dispatcher.queuedTexts().dropFirst(told).contains { $0.hasPrefix("x ") }
                }
                #expect(try session.quitWithKey() == 0)
                let back = "sonic-atomic: speech-dispatcher is back"
                #expect(session.process.stderr.split(separator: "\n") == [Substring(lost), Substring(back)])
            }
        }

        @Test func withoutSpeechDispatcherESpeakSpeaksAndSaysSo() throws {
            try withServers("nodispatcher") { display, sound, folder in
                let session = try RunningPlay(
                    image: nil, display: display, sound: sound, folder: folder,
                    arguments: ["--speech", "dispatcher"],
                    // No daemon at that address, and none may be started there.
                    environment: ["SPEECHD_ADDRESS": "unix_socket:\(folder)/none.sock", "SPEECHD_CMD": "/bin/false"])
                defer { session.stop() }
                try session.waitUntilShown()
                let end = try session.waitForGreeting()
                let lines = session.process.stderr.split(separator: "\n")
                #expect(
                    lines.count == 1 && lines[0].hasPrefix("sonic-atomic: speech-dispatcher cannot be reached")
                        && lines[0].hasSuffix("; speaking with eSpeak-NG"), "\(session.process.stderr)")
                #expect(
                    try session.spokenTexts().first?.contains(
                        "Note: speech-dispatcher cannot be reached; speaking with eSpeak-NG.") == true)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[..<end], sampleRate: Self.rate))
                #expect(try playing(on: sound) == ["SonicAtomic"])
                #expect(try session.quitWithKey() == 0)
            }
        }

        /// With Orca running, as a blind user's desktop has it, Orca speaks the window's name when the
        /// window comes to the front: as the program starts, and when the user comes back to it from
        /// another application.
        @Test(.enabled(if: Fixtures.hasScreenReader, "needs Orca: \(Fixtures.screenReaderMissing ?? "")"))
        func orcaSpeaksTheWindowsNameWhenItComesToTheFront() throws {
            // Not held to zero dropouts: Orca's voice comes and goes on the server as another program's stream.
            try withServers("orca", dropoutsExpected: true) { display, sound, folder in
                let dispatcher = try SpeechDispatcher(sound: sound, logFolder: folder)
                defer { dispatcher.stop() }
                let reader = try ScreenReader(display: display, dispatcher: dispatcher, folder: folder)
                defer { reader.stop() }
                let image = try writeImage(folder, "Å-lattice.png", width: 8, height: 8) { x, _ in UInt16(x * 8000) }
                func said(_ name: String) -> Int { dispatcher.queuedTexts().filter { $0.hasPrefix(name) }.count }
                let window = "SonicAtomic — Å-lattice.png"

                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder, environment: reader.clientEnvironment)
                defer { session.stop() }
                try session.waitUntilShown()
                try waitFor("Orca to say the window's name", timeout: 15) { said(window) == 1 }
                try session.waitForGreeting()

                // Another application comes to the front (a GTK window, accessible as every GTK one is),
                // then the program's window again.
                let other = try Subprocess(
                    Fixtures.systemPython,
                    [
                        "-c",
                        """
                        import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk
                        w = Gtk.Window(title="Notes"); w.add(Gtk.Label(label="Notes")); w.show_all(); Gtk.main()
                        """
                    ],
                    environment: display.environment.merging(reader.clientEnvironment) { $1 }, folder: folder,
                    label: "notes")
                defer { other.stop() }
                try display.focusWindow(named: "^Notes$")
                try waitFor("Orca to say the other window's name", timeout: 15) { said("Notes") == 1 }
                let mark = try sound.waitForSilence()
                try display.focusWindow(named: "^SonicAtomic")
                try waitFor("Orca to say the window's name again", timeout: 15) { said(window) == 2 }
                // Heard, too: the program itself says nothing when it comes to the front.
                let heard = try sound.waitForUtterance(after: mark)
                #expect(SignalAnalysis.looksLikeSpeech(try sound.recording()[heard], sampleRate: Self.rate))
                #expect(
                    try session.records(ofType: "speech").filter { $0["after"] == nil }.count == 1,
                    "the program spoke only its greeting, and the overview after it")
                #expect(try session.quitWithKey() == 0)
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        @Test func theWindowIsNamedInUTF8ForTheScreenReader() throws {
            try withServers("title") { display, sound, folder in
                guard let xprop = Subprocess.which("xprop"), let xdotool = Subprocess.which("xdotool") else {
                    throw HarnessError("xprop and xdotool are needed for this test (scripts/install-deps test)")
                }
                let image = try writeImage(folder, "Å-lattice.png", width: 8, height: 8) { x, _ in UInt16(x * 8000) }
                let session = try RunningPlay(image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                let found = try Subprocess.run(
                    xdotool, ["search", "--name", "SonicAtomic"], environment: display.environment)
                let window = try #require(found.output.split(separator: "\n").first.map(String.init), "\(found.output)")
                for property in ["WM_NAME", "_NET_WM_NAME"] {
                    // As bytes, so the test reads exactly what a screen reader gets, whatever the locale.
                    let shown = try Subprocess.run(
                        xprop, ["-id", window, "-f", property, "8x", property], environment: display.environment
                    ).output.trimmingCharacters(in: .whitespacesAndNewlines)
                    let parts = shown.components(separatedBy: " = ")
                    #expect(parts.first == "\(property)(UTF8_STRING)", "\(shown)")
                    let bytes = (parts.last ?? "").components(separatedBy: ", ").compactMap {
                        UInt8($0.dropFirst(2), radix: 16)
                    }
                    #expect(String(decoding: bytes, as: UTF8.self) == "SonicAtomic — Å-lattice.png", "\(shown)")
                }
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
