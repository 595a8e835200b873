import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `--audio` chooses how the program plays: natively to PipeWire, or as a PulseAudio client (of
    /// PulseAudio, or of PipeWire's PulseAudio service); `auto` takes what runs, and a server that
    /// cannot play gives way to the other in one line.
    @Suite struct SoundOutputTests {
        /// How the program's stream reached the server, from the server's own list of streams:
        /// "native" for a PipeWire client, "pulse" for a PulseAudio one; nil when it has none.
        static func connection(on sound: SoundServer) throws -> String? {
            let pactl = try #require(Subprocess.which("pactl"), "pactl is needed (scripts/install-deps test)")
            let listed = try Subprocess.run(pactl, ["list", "sink-inputs"], environment: sound.clientEnvironment)
            // One block per stream, each starting "Sink Input #N".
            let ours = listed.output.components(separatedBy: "Sink Input #").first {
                $0.contains("application.name = \"SonicAtomic\"")
            }
            guard let ours else { return nil }
            // PipeWire's pulse service marks its clients; PulseAudio has nothing but PulseAudio clients.
            return sound.kind.daemons == .pulseaudio || ours.contains("client.api = \"pipewire-pulse\"")
                ? "pulse" : "native"
        }

        /// Plays with `--audio option` until shown, and returns how the stream connected, what the
        /// program said on stderr, and whether a touch was heard.
        static func play(
            _ option: String, on sound: SoundServer, display: TestDisplay, folder: String,
            environment: [String: String] = [:], launcher: [String] = [], whilePlaying: () throws -> Void = {}
        ) throws -> (connection: String?, stderr: String, heard: Bool) {
            let session = try RunningPlay(
                image: Fixtures.repository + "/images/shapes.png", display: display,
                sound: sound, folder: folder, arguments: ["--audio", option],
                environment: environment, launcher: launcher)
            defer { session.stop() }
            try session.waitUntilShown()
            let connection = try connection(on: sound)
            try whilePlaying()
            try session.waitForGreeting()
            let mark = sound.recordedSampleCount()
            // The white disc (centre (70, 120) of 320 × 240): a loud, steady tone.
            let scale = min(Double(display.width) / 320, Double(display.height) / 240)
            try display.tap(
                (Double(display.width) - 320 * scale) / 2 + 70 * scale,
                (Double(display.height) - 240 * scale) / 2 + 120 * scale, ms: 300)
            usleep(300_000)
            let heard = SignalAnalysis.peak(try sound.recording()[mark...]) > 0.3
            #expect(try session.quitWithKey() == 0)
            return (connection, session.process.stderr, heard)
        }

        @Test(arguments: [
            (SoundServer.Kind.pulseaudio, "auto", "pulse"), (.pipewireNative, "auto", "native"),
            (.pipewireNative, "pipewire", "native"), (.pipewire, "pulse", "pulse"), (.pulseaudio, "pulse", "pulse")
        ])
        func theOutputIsTheOneAskedForOrWhatRuns(kind: SoundServer.Kind, option: String, expected: String) throws {
            try withServers("audio-\(option)", sound: kind) { display, sound, folder in
                var latency: String?
                let played = try Self.play(
                    option, on: sound, display: display, folder: folder,
                    whilePlaying: { if expected == "native" { latency = try Self.requestedLatency(on: sound) } })
                #expect(played.connection == expected, "--audio \(option) on \(kind.daemons.rawValue)")
                // With real-time priority a native stream asks for the periods --latency makes: two of
                // them are about the default 10 ms (the power of two nearest 240 frames).
                if expected == "native" { #expect(latency == "256/48000") }
                #expect(played.stderr.isEmpty, "\(played.stderr)")
                #expect(played.heard)
            }
        }

        /// Where the program may not have real-time priority, natively on PipeWire it asks for 1024-frame
        /// periods rather than break up in short ones, from its first period on, and says so in one line.
        /// Its sound is starved of real-time priority on purpose: beside a busy core the machine's load,
        /// not the program, then decides whether a period comes late, so a dropout is no failure here.
        @Test func withoutRealTimePriorityNativePipeWirePlaysInLongerPeriodsAndSaysSo() throws {
            try withServers("audio-no-rt", sound: .pipewire, dropoutsExpected: true) { display, sound, folder in
                // No rtprio limit, and for root no right to real-time priority regardless of it; the test
                // server's session bus has no RTKit to ask.
                let prlimit = try #require(Subprocess.which("prlimit"), "prlimit is needed (util-linux)")
                var launcher = [prlimit, "--rtprio=0:0", "--"]
                if geteuid() == 0 {
                    let setpriv = try #require(Subprocess.which("setpriv"), "setpriv is needed (util-linux)")
                    launcher += [setpriv, "--inh-caps=-sys_nice", "--bounding-set=-sys_nice", "--"]
                }
                var latency: String?
                let played = try Self.play(
                    "pipewire", on: sound, display: display, folder: folder, launcher: launcher,
                    whilePlaying: { latency = try Self.requestedLatency(on: sound) })
                #expect(played.connection == "native")
                #expect(latency == "1024/48000")
                #expect(
                    played.stderr
                        == "sonic-atomic: PipeWire: the sound may not run at real-time priority here, so it plays "
                        + "in periods of 21 ms (latency about 42 ms) rather than break up\n")
                #expect(played.heard)
            }
        }

        /// The period the program's stream asks the PipeWire graph for (its node.latency), from the
        /// server's own description of its nodes.
        static func requestedLatency(on sound: SoundServer) throws -> String? {
            let pwDump = try #require(Subprocess.which("pw-dump"), "pw-dump is needed (pipewire-bin)")
            let dumped = try Subprocess.run(pwDump, [], environment: sound.clientEnvironment)
            let objects = try JSONSerialization.jsonObject(with: Data(dumped.output.utf8)) as? [[String: Any]] ?? []
            let properties = objects.compactMap { ($0["info"] as? [String: Any])?["props"] as? [String: Any] }
            return properties.first { $0["application.name"] as? String == "SonicAtomic" }?["node.latency"] as? String
        }

        @Test func pipeWireWithoutADaemonFallsBackToPulseAudioInOneLine() throws {
            try withServers("audio-fallback", sound: .pulseaudio) { display, sound, folder in
                let played = try Self.play("pipewire", on: sound, display: display, folder: folder)
                #expect(played.connection == "pulse")
                #expect(played.stderr == "sonic-atomic: PipeWire: not running; playing through PulseAudio instead\n")
                #expect(played.heard)
            }
        }

        @Test func pulseWithoutAPulseAudioServerFallsBackToPipeWireInOneLine() throws {
            try withServers("audio-fallback-pw", sound: .pipewireNative) { display, sound, folder in
                let played = try Self.play(
                    "pulse", on: sound, display: display, folder: folder,
                    environment: ["PULSE_SERVER": "unix:/tmp/no-such-sound-server/native"])
                #expect(played.connection == "native")
                #expect(played.stderr.hasPrefix("sonic-atomic: PulseAudio: cannot connect ("), "\(played.stderr)")
                #expect(played.stderr.hasSuffix("); playing through PipeWire instead\n"), "\(played.stderr)")
                #expect(played.stderr.split(separator: "\n").count == 1, "\(played.stderr)")
                #expect(played.heard)
            }
        }
    }
}
