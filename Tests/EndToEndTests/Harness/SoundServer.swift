import Foundation
import Synchronization
import TestSupport
import Testing

/// A private sound server — PulseAudio, or PipeWire with its pulse service, as most desktops now
/// run — with a 48 kHz float null sink, and a recording of its monitor for one test, so the test hears
/// exactly what the program played. Both servers run with real-time priority where the user may
/// have it, as a desktop's do.
///
/// The servers are shared by the tests of a run (the tests run one at a time): starting one for each
/// test, and waiting out a new null sink's first two-second block, took a third of the run.
final class SoundServer {
    /// The daemons, as scripts/sound-server names them.
    enum Daemons: String { case pulseaudio, pipewire }

    /// A way to play: a server, and the program's output to it.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        /// PulseAudio, through `--audio pulse`.
        case pulseaudio
        /// PipeWire through its PulseAudio service (`--audio pulse`).
        case pipewire
        /// PipeWire natively (`--audio pipewire`).
        case pipewireNative = "pipewire-native"

        var testDescription: String { rawValue }

        var daemons: Daemons { self == .pulseaudio ? .pulseaudio : .pipewire }

        /// The program's option that plays this way.
        var audioArguments: [String] { ["--audio", self == .pipewireNative ? "pipewire" : "pulse"] }
    }

    static let sampleRate = 48_000.0
    let kind: Kind
    private let daemons: SoundDaemons
    private var recorder: Subprocess?
    private let folder: String
    private(set) var recordingPath: String
    private var heard = RecordingReader()
    /// How many times the daemons were started again (`revive`).
    private var revivals = 0
    /// The machine's own pauses during this test, which break up any sound.
    let machinePauses: MachinePauseWatch

    /// What a client needs to reach this server.
    var clientEnvironment: [String: String] { daemons.clientEnvironment }

    /// The shared server of this kind (started if need be), recorded from now on into `folder`.
    init(folder: String, kind: Kind = .pulseaudio) throws {
        try Self.requireTestable(kind)
        self.kind = kind
        self.folder = folder
        daemons = try SoundDaemons.shared(kind.daemons)
        recordingPath = folder + "/monitor-\(kind.rawValue).f32"
        // Native PipeWire streams reach the graph without the pulse service's relaying thread.
        let relaying = kind == .pipewireNative ? nil : daemons.relayingThread
        machinePauses = try MachinePauseWatch(folder: folder, threads: relaying.map { [$0] } ?? [])
        try startRecording(label: "parec-\(kind.rawValue)")
    }

    /// Records the test sink's monitor into `recordingPath`, once its first samples are there. A
    /// server kept from running a moment (a busy machine) may refuse the connection: the recorder is
    /// started again until the server takes it, within a generous ceiling.
    private func startRecording(label: String) throws {
        let deadline = Date().addingTimeInterval(30)
        var attempts = 0
        while true {
            attempts += 1
            let recorder = try record("test", into: recordingPath, label: label)
            self.recorder = recorder
            try waitFor("the monitor recording to start", timeout: max(deadline.timeIntervalSinceNow, 1)) {
                recordedSampleCount() > 0 || !recorder.isRunning
            }
            if recordedSampleCount() > 0 { return }
            let said = recorder.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            if let stopped = daemons.stopped { throw HarnessError("parec could not record: \(stopped)") }
            guard Date() < deadline else {
                throw HarnessError(
                    "the \(kind.rawValue) server never let the monitor be recorded (\(attempts) tries; parec: \(said))")
            }
            print("note: parec could not record the \(kind.rawValue) server (\(said)); trying again")
            usleep(200_000)
        }
    }

    /// A recording of `sink`'s monitor into `path`: stereo, so that both servers' monitors give the
    /// same samples (their stereo-to-mono downmixes differ).
    func record(_ sink: String, into path: String, label: String) throws -> Subprocess {
        try Subprocess(
            daemons.parec,
            [
                "--device=\(sink).monitor", "--format=float32le", "--rate=48000", "--channels=2", "--raw",
                "--latency-msec=5"
            ], environment: clientEnvironment, stdout: path, folder: folder, label: label)
    }

    /// Kills the server's daemons at once, as a crash does (the recording ends with them).
    func crash() throws {
        try daemons.run("crash")
        recorder?.stop()
    }

    /// Starts the daemons again on the same sockets with the same settings, as a desktop restarting its
    /// sound server does, and records afresh: from now on `recording()` and its marks start from nothing.
    func revive() throws {
        try daemons.run("revive")
        revivals += 1
        recordingPath = folder + "/monitor-\(kind.rawValue)-\(revivals + 1).f32"
        heard = RecordingReader()
        try startRecording(label: "parec-\(kind.rawValue)-\(revivals + 1)")
    }

    /// Native PipeWire needs real-time priority: where this user cannot have it, the test is
    /// cancelled with the reason — but never in CI, where that fails it.
    private static func requireTestable(_ kind: Kind) throws {
        guard kind == .pipewireNative, let missing = Fixtures.realTimeMissing else { return }
        if Fixtures.isCI {
            throw HarnessError("native PipeWire needs real-time priority here (\(missing)): CI must test it")
        }
        // The test library reports a cancelled case as passed: the run's summary counts this line instead.
        let reason = "native PipeWire needs real-time priority, which this user lacks (\(missing))"
        print("note: test \(Test.current?.name ?? "?") on pipewire-native cancelled: \(reason)")
        try Test.cancel(Comment(rawValue: reason))
    }

    /// Waits until the server's sink has left its first, two-second render block (a new null sink's;
    /// real sound cards do not do this): a stream that connects earlier stays silent until then
    /// (measured: 1.4 s late at 0.5 s, prompt from 2 s). Call before starting the program.
    func waitUntilLive() { daemons.waitUntilLive() }

    /// Samples recorded so far: the mean of the two channels.
    func recording() throws -> [Float] { try heard.read(recordingPath) }

    /// Both channels recorded so far, read afresh: for the tests that hear where a sound is.
    func stereoRecording() throws -> (left: [Float], right: [Float]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: recordingPath))
        let frames = data.count / 8
        var left = [Float](repeating: 0, count: frames), right = left
        data.withUnsafeBytes { raw in
            for i in 0..<frames {
                left[i] = Float(
                    bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt32.self)))
                right[i] = Float(
                    bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8 + 4, as: UInt32.self)))
            }
        }
        return (left, right)
    }

    /// Index of the next sample to be recorded: a marker for "from now on".
    func recordedSampleCount() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: recordingPath)[.size] as? Int) ?? 0) / 8
    }

    /// Why the server is no longer running (the end of its logs), or nil while it runs.
    var stoppedServer: String? { daemons.stopped }

    /// Stops this test's recording; the server runs on for the next test.
    func stop() {
        recorder?.stop()
        recorder = nil
        machinePauses.stop()
    }
}

/// One private sound server (scripts/sound-server: the servers' settings are there, shared with
/// the benchmarks), with a reader on its monitor for as long as it runs.
private final class SoundDaemons: @unchecked Sendable {
    let kind: SoundServer.Daemons
    let runFolder: String
    let parec: String
    let clientEnvironment: [String: String]
    private let started = Date()

    private static let running = Mutex<[SoundServer.Daemons: SoundDaemons]>([:])

    /// The running server of this kind, or a new one if there is none or it died.
    static func shared(_ kind: SoundServer.Daemons) throws -> SoundDaemons {
        try running.withLock { servers in
            if let server = servers[kind] {
                guard let stopped = server.stopped else { return server }
                // Said before its folder, logs and all, is removed.
                print("note: \(stopped); a new one is started")
                server.stop()
            }
            let server = try SoundDaemons(kind: kind)
            if servers.isEmpty { atexit { SoundDaemons.stopAll() } }
            servers[kind] = server
            return server
        }
    }

    static func stopAll() {
        running.withLock { servers in
            for server in servers.values { server.stop() }
            servers = [:]
        }
    }

    /// The server's thread that passes the clients' sound on to the sink (PulseAudio's, or PipeWire's pulse
    /// service's, main thread), if its process is known.
    var relayingThread: Int32? {
        let file = runFolder + (kind == .pulseaudio ? "/pulseaudio.pid" : "/pipewire-pulse.pid")
        return (try? String(contentsOfFile: file, encoding: .utf8)).flatMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    private static var script: String { Fixtures.repository + "/scripts/sound-server" }

    private init(kind: SoundServer.Daemons) throws {
        self.kind = kind
        // The socket path must stay under 108 bytes: keep the run folder short, in /tmp.
        runFolder = "/tmp/sa-\(kind == .pulseaudio ? "pa" : "pw")-\(getpid())-\(UUID().uuidString.prefix(6))"
        guard let parec = Subprocess.which("parec") else {
            throw HarnessError("cannot start the sound server: parec is not installed (scripts/install-deps test)")
        }
        self.parec = parec
        // The server's relaying thread niced as it asks, against other sessions too (see the script).
        let started = try Subprocess.run(
            Self.script, ["start", kind.rawValue, runFolder, "--niced-relay"], timeout: 60)
        guard started.status == 0 else {
            throw HarnessError("cannot start the \(kind.rawValue) sound server: \(started.output)")
        }
        clientEnvironment = Dictionary(
            uniqueKeysWithValues: started.output.split(separator: "\n").compactMap { line in
                line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            })
    }

    /// The processes the script started, by name (its `NAME.pid` files).
    private var daemonProcesses: [(name: String, pid: pid_t)] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: runFolder)) ?? []
        return files.filter { $0.hasSuffix(".pid") }.sorted().compactMap { file in
            (try? String(contentsOfFile: runFolder + "/" + file, encoding: .utf8)).flatMap {
                pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)).map { (String(file.dropLast(4)), $0) }
            }
        }
    }

    /// How a process ended, or nil while it runs. The daemons outlive the script that started them and
    /// are nobody's children, so where nothing reaps orphans a dead one stays a zombie: its state and
    /// exit code are read from /proc, not taken from `kill(pid, 0)`, which succeeds on a zombie.
    private static func ending(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return "gone" }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard let state = fields.first, state == "Z" || state == "X" else { return nil }
        // Field 52, the 50th after the name: the status as waitpid reports it.
        guard fields.count >= 50, let status = Int32(fields[49].trimmingCharacters(in: .whitespacesAndNewlines))
        else { return "ended" }
        let signal = status & 0x7f
        return signal == 0 ? "exited with status \(status >> 8)" : "killed by signal \(signal)"
    }

    /// Whether every process the script started still runs.
    private var isRunning: Bool {
        let processes = daemonProcesses
        return !processes.isEmpty && processes.allSatisfy { Self.ending(of: $0.pid) == nil }
    }

    /// How each ended daemon ended and the end of the server's logs, once it has stopped; nil while it runs.
    var stopped: String? {
        let endings = daemonProcesses.compactMap { daemon in Self.ending(of: daemon.pid).map { "\(daemon.name) \($0)" }
        }
        guard !endings.isEmpty || daemonProcesses.isEmpty else { return nil }
        let logs = ((try? FileManager.default.contentsOfDirectory(atPath: runFolder)) ?? []).filter {
            $0.hasSuffix(".log")
        }
        let tails = logs.sorted().map { log in
            let lines = ((try? String(contentsOfFile: runFolder + "/" + log, encoding: .utf8)) ?? "")
                .split(separator: "\n").suffix(3)
            return log + ": " + lines.joined(separator: " | ")
        }
        return "the \(kind.rawValue) test server stopped (\(endings.joined(separator: ", "))); "
            + tails.joined(separator: "; ")
    }

    func waitUntilLive() {
        guard kind == .pulseaudio else { return }
        let remaining = 2.5 - Date().timeIntervalSince(started)
        if remaining > 0 { usleep(UInt32(remaining * 1_000_000)) }
    }

    private func stop() { _ = try? Subprocess.run(Self.script, ["stop", runFolder], timeout: 30) }

    /// `scripts/sound-server crash` or `revive` on these daemons.
    func run(_ command: String) throws {
        let result = try Subprocess.run(Self.script, [command, runFolder], timeout: 60)
        guard result.status == 0 else { throw HarnessError("sound-server \(command): \(result.output)") }
    }
}

/// Reads a growing stereo float recording, only the part added since the last read: the tests poll it
/// often, and reading it whole each time would load the machine the program under test runs on.
struct RecordingReader {
    private var samples: [Float] = []
    private var bytesRead = 0

    mutating func read(_ path: String) throws -> [Float] {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64(bytesRead))
        let data = try file.readToEnd() ?? Data()
        let frames = data.count / 8
        guard frames > 0 else { return samples }
        samples.reserveCapacity(samples.count + frames)
        data.withUnsafeBytes { raw in
            for i in 0..<frames {
                let left = Float(
                    bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8, as: UInt32.self)))
                let right = Float(
                    bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 8 + 4, as: UInt32.self)))
                samples.append((left + right) / 2)
            }
        }
        bytesRead += frames * 8
        return samples
    }
}
