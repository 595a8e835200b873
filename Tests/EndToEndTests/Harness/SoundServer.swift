import Foundation
import TestSupport

/// A private PulseAudio daemon for one test: a 48 kHz float null sink whose monitor is recorded
/// from the start, so the test hears exactly what the program played.
final class SoundServer {
    static let sampleRate = 48_000.0
    let runFolder: String
    private var daemon: Subprocess?
    private var recorder: Subprocess?
    let recordingPath: String
    private var recorderStarted = Date()

    /// What a client needs to reach this server.
    var environment: [String: String] { ["PULSE_SERVER": "unix:\(runFolder)/native"] }

    init(folder: String) throws {
        // The socket path must stay under 108 bytes: keep the run folder short, in /tmp.
        runFolder = "/tmp/sa-pa-\(getpid())-\(UUID().uuidString.prefix(6))"
        recordingPath = folder + "/monitor.f32"
        for sub in ["", "/xdg", "/home"] {
            try FileManager.default.createDirectory(atPath: runFolder + sub, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        try "autospawn = no\n".write(toFile: runFolder + "/client.conf", atomically: true, encoding: .utf8)
        guard let pulseaudio = Subprocess.which("pulseaudio"), let pactl = Subprocess.which("pactl"),
              let parec = Subprocess.which("parec") else {
            throw HarnessError("cannot start the sound server: pulseaudio, pactl or parec is not installed")
        }
        daemon = try Subprocess(pulseaudio, [
            "--daemonize=no", "--system=false", "-n", "--exit-idle-time=-1", "--disallow-exit=yes",
            "--use-pid-file=false", "--log-target=stderr",
            "--load=module-null-sink sink_name=test rate=48000 channels=2 format=float32le",
            "--load=module-native-protocol-unix socket=\(runFolder)/native auth-anonymous=1",
        ], environment: daemonEnvironment, folder: folder, label: "pulseaudio")
        do {
            try waitFor("the PulseAudio test server", timeout: 15) {
                (try? Subprocess.run(pactl, ["info"], environment: clientEnvironment, timeout: 5).status) == 0
            }
        } catch {
            let log = daemon?.stderr ?? ""
            stop()
            throw HarnessError("cannot start the sound server: \(error) — \(log.suffix(600))")
        }
        // Recording from the start also keeps the null sink rendering in small blocks, not 2 s ones.
        recorder = try Subprocess(parec, [
            "--device=test.monitor", "--format=float32le", "--rate=48000", "--channels=1", "--raw", "--latency-msec=5",
        ], environment: clientEnvironment, stdout: recordingPath, folder: folder, label: "parec")
        recorderStarted = Date()
        try waitFor("the monitor recording to start", timeout: 10) {
            ((try? FileManager.default.attributesOfItem(atPath: recordingPath)[.size] as? Int) ?? 0) > 0
        }
    }

    /// A null sink starts with a ~2 s render block and only adopts the recorder's low latency once
    /// that block ends; a stream that connects earlier stays silent until then (measured: 1.4 s late
    /// at 0.5 s, prompt from 2 s). Real sound cards do not do this. Call before starting the program.
    func waitUntilLive() {
        let remaining = 2.5 - Date().timeIntervalSince(recorderStarted)
        if remaining > 0 { usleep(UInt32(remaining * 1_000_000)) }
    }

    private var daemonEnvironment: [String: String] {
        ["HOME": runFolder + "/home", "XDG_RUNTIME_DIR": runFolder + "/xdg", "DBUS_SESSION_BUS_ADDRESS": "disabled:",
         "PULSE_CLIENTCONFIG": runFolder + "/client.conf"]
    }

    var clientEnvironment: [String: String] {
        environment.merging(["PULSE_CLIENTCONFIG": runFolder + "/client.conf"]) { $1 }
    }

    /// Samples recorded so far (mono float).
    func recording() throws -> [Float] { try SignalAnalysis.readFloat32(recordingPath) }

    /// Index of the next sample to be recorded: a marker for "from now on".
    func recordedSampleCount() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: recordingPath)[.size] as? Int) ?? 0) / 4
    }

    func stop() {
        recorder?.stop()
        daemon?.stop()
        recorder = nil
        daemon = nil
        try? FileManager.default.removeItem(atPath: runFolder)
    }
}
