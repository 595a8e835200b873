import Foundation

/// Orca, the screen reader of Linux desktops, for one test: on a session bus of its own (which starts
/// the desktop's accessibility bus when asked, as a desktop session does), with a user's default
/// settings in a private home, speaking through the test's speech-dispatcher, so what it says is
/// heard in the recording and listed in speech-dispatcher's log.
final class ScreenReader {
    private let bus: Subprocess
    private let orca: Subprocess
    private let busAddress: String

    /// What a program needs to be seen by this screen reader: the session bus.
    var clientEnvironment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": busAddress] }

    /// Starts the bus and Orca, and waits until Orca has said that it is on.
    init(display: TestDisplay, dispatcher: SpeechDispatcher, folder: String) throws {
        if let missing = Fixtures.screenReaderMissing {
            throw HarnessError("cannot start the screen reader: \(missing) (scripts/install-deps test)")
        }
        let home = folder + "/orca-home"
        for path in [home, home + "/config", home + "/data", home + "/xdg"] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        busAddress = "unix:path=\(home)/bus"
        bus = try Subprocess(
            Fixtures.dbusDaemonProgram, ["--session", "--nofork", "--nopidfile", "--address=\(busAddress)"],
            folder: folder, label: "session-bus")
        try waitFor("the session bus", timeout: 30) { [bus] in
            !bus.isRunning || FileManager.default.fileExists(atPath: home + "/bus")
        }
        guard bus.isRunning else { throw HarnessError("the session bus did not start: \(bus.stderr.suffix(500))") }
        let environment = display.environment.merging(dispatcher.clientEnvironment) { $1 }.merging([
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "HOME": home, "XDG_CONFIG_HOME": home + "/config",
            "XDG_DATA_HOME": home + "/data", "XDG_RUNTIME_DIR": home + "/xdg", "GSETTINGS_BACKEND": "memory"
        ]) { $1 }
        orca = try Subprocess(
            Fixtures.orcaProgram, ["--replace"], environment: environment, folder: folder, label: "orca")
        do {
            try waitFor("Orca to say it is on", timeout: 30) { [orca] in
                !orca.isRunning || dispatcher.queuedTexts().contains { $0.hasPrefix("Screen reader on") }
            }
            guard orca.isRunning else { throw HarnessError("Orca stopped: \(orca.stderr.suffix(500))") }
        } catch {
            stop()
            throw error
        }
    }

    /// Stops Orca, then the bus (the accessibility bus it started goes with it).
    func stop() {
        orca.stop()
        bus.stop()
    }
}
