import Foundation

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A child process with its output in files, so a chatty child can never block on a full pipe.
///
/// Spawned with posix_spawn and reaped with waitpid: Foundation's Process notices an exit through an
/// inherited socket, which daemons the child starts (Xorg, say) keep open, so it would wait forever.
/// The child gets a clean signal mask and default handlers, whatever the test runner's thread has.
final class Subprocess {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    let label: String
    private var exitStatus: Int32?

    init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        stdout: String? = nil, folder: String, label: String
    ) throws {
        self.label = label
        stdoutPath = stdout ?? "\(folder)/\(label).out"
        stderrPath = "\(folder)/\(label).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError(
                "cannot start \(label) (\(executable), output in \(folder)): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    deinit { stop() }

    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        // Exit code, or 128 + signal as a shell reports it.
        exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return false
    }

    /// The exit status once the child has ended.
    var terminationStatus: Int32? { isRunning ? nil : exitStatus }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for exit; nil on timeout.
    @discardableResult
    func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { usleep(5_000) }
        return terminationStatus
    }

    func signal(_ number: Int32) { if isRunning { kill(pid, number) } }

    /// TERM, then KILL if it lingers.
    func stop() {
        guard isRunning else { return }
        signal(SIGTERM)
        if wait(timeout: 3) == nil { signal(SIGKILL); wait(timeout: 3) }
    }

    /// Runs a command to completion and returns its status and output (stderr appended).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Double = 30
    ) throws -> (status: Int32, output: String) {
        let folder = NSTemporaryDirectory() + "sonic-run-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let child = try Subprocess(executable, arguments, environment: environment, folder: folder, label: "cmd")
        guard let status = child.wait(timeout: timeout) else {
            child.stop()
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        return (status, child.stdout + child.stderr)
    }

    /// The full path of a program on PATH.
    static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
