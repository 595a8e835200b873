import Foundation

/// A braille display of the test's own, driven by a private brltty through its Virtual driver: the display listens on
/// a unix socket, announces its size (`cells COLS ROWS`), records every line brltty sends it — `Visual "text"` and
/// `Braille "dots|dots|…"`, sent only when the content changes — and sends keys as brltty's command names
/// (`FWinRt`, `LnDn`, `Route 3`). brltty runs rootless in a private folder, its BrlAPI on a free TCP port; the program
/// reaches it through `clientEnvironment`, as any client does. A brltty that is restarted connects to the same display.
final class BrailleTestDisplay: @unchecked Sendable {
    static let program = "/usr/bin/brltty"

    let columns: Int
    let rows: Int
    /// brltty's BrlAPI port is 4101 + this.
    let port: Int
    private let folder: String
    private let logFolder: String
    private let listener: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var connection: Int32 = -1
    private var connections = 0
    private var closed = false
    private var brltty: Subprocess?
    private var starts = 0

    /// What the program needs to reach this brltty.
    var clientEnvironment: [String: String] { ["BRLAPI_HOST": "127.0.0.1:\(port)", "BRLAPI_AUTH": "none"] }

    init(columns: Int, rows: Int, logFolder: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.program) else {
            throw HarnessError("cannot start brltty: brltty is not installed (scripts/install-deps test)")
        }
        self.columns = columns
        self.rows = rows
        self.logFolder = logFolder
        // The socket path must stay under 108 bytes: a short folder in /tmp.
        folder = "/tmp/sa-brl-\(getpid())-\(UUID().uuidString.prefix(6))"
        for path in [folder + "/W", folder + "/U"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        port = try Self.freePort()
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = folder + "/display.sock"
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (k, byte) in path.utf8.enumerated() { bytes[k] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 4) == 0 else {
            throw HarnessError("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in serve() }
        thread.start()
        try start()
    }

    /// Starts brltty (again), and waits until its display is connected and its BrlAPI takes clients.
    func start() throws {
        starts += 1
        let before = lock.withLock { connections }
        let child = try Subprocess(
            Self.program,
            [
                "-n", "-q", "-f", "/dev/null", "-b", "vr", "-d", "client:" + folder + "/display.sock", "-x", "no",
                "-s", "no", "-A", "host=127.0.0.1:\(port),auth=none", "-W", folder + "/W", "-U", folder + "/U"
            ],
            folder: logFolder, label: starts == 1 ? "brltty" : "brltty-\(starts)")
        brltty = child
        try waitFor("brltty to connect to its display", timeout: 20) {
            !child.isRunning || lock.withLock { connections } > before
        }
        guard child.isRunning else { throw HarnessError("brltty did not start: \(child.stderr.suffix(500))") }
        try waitFor("brltty's BrlAPI to take clients", timeout: 20) { !child.isRunning || Self.accepts(4101 + port) }
        guard child.isRunning else { throw HarnessError("brltty ended: \(child.stderr.suffix(500))") }
    }

    /// Kills brltty at once, as a crash does; `start` starts another on the same port and display.
    func kill() {
        brltty?.signal(SIGKILL)
        brltty?.wait(timeout: 5)
    }

    /// Sends a key as brltty's command name ("FWinRt", "LnDn", "Route 3": the routing key over cell 3, from 0).
    func send(_ command: String) throws {
        let sent = lock.withLock { () -> Bool in
            guard connection >= 0 else { return false }
            let line = Array((command + "\n").utf8)
            return Glibc.send(connection, line, line.count, Int32(MSG_NOSIGNAL)) == line.count
        }
        guard sent else { throw HarnessError("the braille display is not connected to brltty") }
    }

    /// Every text brltty has shown so far (its `Visual` lines), in order, blanks at the end taken off.
    func texts() -> [String] {
        lock.withLock { received }.compactMap { line in
            Self.quoted(line, after: "Visual ").map { String($0.reversed().drop { $0 == " " }.reversed()) }
        }
    }

    /// Every set of cells brltty has shown so far (its `Braille` lines), one byte a cell, dots 1–8 as bits 0–7.
    func cellLines() -> [[UInt8]] {
        lock.withLock { received }.compactMap { line in
            Self.quoted(line, after: "Braille ").map { dots in
                dots.split(separator: "|", omittingEmptySubsequences: false).map { cell in
                    cell.reduce(UInt8(0)) { bits, digit in
                        guard let dot = digit.wholeNumberValue, (1...8).contains(dot) else { return bits }
                        return bits | UInt8(1 << (dot - 1))
                    }
                }
            }
        }
    }

    /// Waits for a text brltty shows that `matches`, after the first `skipping`; returns it.
    @discardableResult
    func waitForText(
        _ what: String, after skipping: Int = 0, timeout: Double = 10, _ matches: (String) -> Bool
    ) throws -> String {
        var found: String?
        try waitFor(what + " on the braille display", timeout: timeout) {
            found = texts().dropFirst(skipping).last(where: matches)
            return found != nil
        }
        return found!
    }

    /// Stops brltty (before its display, as it expects), the display, and removes the folder.
    func stop() {
        brltty?.stop()
        lock.withLock {
            closed = true
            if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Takes brltty's connections, one after another: announces the size and records every line.
    private func serve() {
        while true {
            let accepted = accept(listener, nil, nil)
            guard accepted >= 0 else { return }
            let open = lock.withLock { () -> Bool in
                guard !closed else { return false }
                connection = accepted
                connections += 1
                return true
            }
            guard open else { close(accepted); return }
            let size = Array("cells \(columns) \(rows)\n".utf8)
            _ = Glibc.send(accepted, size, size.count, Int32(MSG_NOSIGNAL))
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(accepted, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                pending += buffer[..<count]
                while let end = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                        .trimmingCharacters(in: .init(charactersIn: "\r"))
                    pending.removeSubrange(...end)
                    lock.withLock { received.append(line) }
                }
            }
            lock.withLock { if connection == accepted { connection = -1 } }
            close(accepted)
        }
    }

    /// The string after `prefix` in a line, its escapes (`\\`, `\"`, `\Xhh`) read.
    static func quoted(_ line: String, after prefix: String) -> String? {
        guard line.hasPrefix(prefix + "\""), line.hasSuffix("\""), line.count >= prefix.count + 2 else { return nil }
        let inner = Array(line.dropFirst(prefix.count + 1).dropLast().utf8)
        var bytes: [UInt8] = []
        var k = 0
        while k < inner.count {
            if inner[k] == UInt8(ascii: "\\"), k + 1 < inner.count {
                if inner[k + 1] == UInt8(ascii: "X") || inner[k + 1] == UInt8(ascii: "x"), k + 3 < inner.count,
                    let value = UInt8(String(decoding: inner[(k + 2)...(k + 3)], as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    k += 4
                    continue
                }
                bytes.append(inner[k + 1])
                k += 2
                continue
            }
            bytes.append(inner[k])
            k += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether something takes TCP connections on this local port.
    static func accepts(_ port: Int) -> Bool {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// A number N whose BrlAPI port 4101 + N nothing listens on.
    static func freePort() throws -> Int {
        for _ in 0..<50 {
            let candidate = Int.random(in: 1000..<20_000)
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(4101 + candidate).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(probe)
            if bound == 0 { return candidate }
        }
        throw HarnessError("no free port for brltty's BrlAPI")
    }
}
