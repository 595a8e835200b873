import Foundation

/// A private speech-dispatcher — Debian's, with its espeak-ng module — for one test: its own
/// configuration, runtime folder and socket, its speech played to the test's sound server (it is a
/// PulseAudio client of it), so the recording hears it beside the program. Its configuration stands
/// for a user's own settings: a faster rate than the program's eSpeak-NG default, to keep tests short.
/// Its log lists every text it was given to speak.
final class SpeechDispatcher {
    let folder: String
    private let environment: [String: String]
    private let logFolder: String
    private var daemon: Subprocess!
    private var starts = 0
    private var socket: String { folder + "/speechd.sock" }

    /// What the program needs to reach this daemon.
    var clientEnvironment: [String: String] { ["SPEECHD_ADDRESS": "unix_socket:" + socket] }

    init(sound: SoundServer, logFolder: String) throws {
        if let missing = Fixtures.speechDispatcherMissing {
            throw HarnessError("cannot start speech-dispatcher: \(missing) (scripts/install-deps test)")
        }
        // The socket path must stay under 108 bytes: a short folder in /tmp.
        folder = "/tmp/sa-sd-\(getpid())-\(UUID().uuidString.prefix(6))"
        let config = folder + "/config/speech-dispatcher"
        for path in [config, folder + "/xdg", folder + "/home", folder + "/log"] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try """
        LogLevel 5
        AddModule "espeak-ng" "sd_espeak-ng" "/etc/speech-dispatcher/modules/espeak-ng.conf"
        DefaultModule espeak-ng
        DefaultLanguage "en"
        DefaultRate 50
        AudioOutputMethod "pulse"

        """.write(toFile: config + "/speechd.conf", atomically: true, encoding: .utf8)
        // Its sound goes over the socket, not shared memory: under load PulseAudio 16 now and then aborts on
        // importing a client's shared block (its issue 824, an assertion in memblock.c), seen in the tests only
        // while speech-dispatcher played into it.
        try "autospawn = no\nenable-shm = no\n".write(
            toFile: folder + "/client.conf", atomically: true, encoding: .utf8)
        environment = sound.clientEnvironment.merging([
            "PULSE_CLIENTCONFIG": folder + "/client.conf",
            "XDG_RUNTIME_DIR": folder + "/xdg", "XDG_CONFIG_HOME": folder + "/config", "HOME": folder + "/home",
            "DBUS_SESSION_BUS_ADDRESS": "disabled:"
        ]) { $1 }
        self.logFolder = logFolder
        try start()
    }

    /// Starts the daemon (again) at this address.
    func start() throws {
        starts += 1
        daemon = try Subprocess(
            Fixtures.speechDispatcherProgram,
            ["--run-single", "--timeout", "0", "--socket-path", socket, "--log-dir", folder + "/log"],
            environment: environment, folder: logFolder,
            label: starts == 1 ? "speech-dispatcher" : "speech-dispatcher-\(starts)")
        try waitFor("speech-dispatcher's socket", timeout: 20) { [daemon, socket] in
            !daemon!.isRunning || FileManager.default.fileExists(atPath: socket)
        }
        guard daemon.isRunning else {
            throw HarnessError("speech-dispatcher did not start: \(daemon.stderr.suffix(500))")
        }
    }

    /// Every text the daemon has been given to speak so far, in order, its SSML marks taken out.
    func queuedTexts() -> [String] {
        let log = (try? String(contentsOfFile: folder + "/log/speech-dispatcher.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "Queueing message |"),
                let end = line.range(of: "| with priority", options: .backwards), start.upperBound <= end.lowerBound
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound]).replacing(/<[^>]*>/, with: "")
        }
    }

    /// Stops the daemon, as it does when it crashes or is restarted; `start` starts another at the same address.
    func kill() {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Stops the daemon (it ends its module) and removes its folder.
    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
