import Foundation

/// An X server for one test, with a way to move the pen on it.
///
/// The real thing is the pen tablet (scripts/pen-tablet): Xorg whose wacom driver reads an emulated
/// pen, so the program gets genuine XInput2 pressure, tilt and barrel buttons. Where the machine
/// cannot run it (no FUSE, say in a container), Xvfb with the XTest pointer stands in (position and
/// buttons only) and tests that need more are skipped; in CI that is a failure instead.
final class TestDisplay {
    enum Kind {
        case penTablet(tool: String)
        case xvfb
    }

    let kind: Kind
    let name: String
    let width: Int
    let height: Int
    private var xvfb: Subprocess?
    private let folder: String

    var environment: [String: String] {
        if case .penTablet(let tool) = kind {
            return ["DISPLAY": name, "PEN_SOCKET": "/tmp/pen-x-\(name.dropFirst())/control.sock", "PEN_TOOL": tool]
        }
        return ["DISPLAY": name]
    }

    /// Whether pressure, tilt and barrel buttons are real (pen-tablet) or absent (XTest mouse).
    var hasRealPen: Bool { if case .penTablet = kind { true } else { false } }

    /// `plainMouse`: Xvfb even where the pen tablet is available, for testing life without a tablet.
    init(folder: String, width: Int = 1920, height: Int = 1080, plainMouse: Bool = false) throws {
        self.folder = folder
        self.width = width
        self.height = height
        let number = try Self.freeDisplayNumber()
        name = ":\(number)"
        if !plainMouse && Fixtures.hasRealPen {
            if let missing = Fixtures.penTabletMissing {
                throw HarnessError("the pen tablet cannot run here (\(missing)): CI must test with the real pen")
            }
            let tool = Fixtures.penTablet
            kind = .penTablet(tool: tool)
            let started = try Subprocess.run(
                tool + "/start-pen-x", [name],
                environment: ["PEN_X_SCREEN": "\(width)x\(height)"].merging(
                    Fixtures.penPython.map { ["PEN_X_PYTHON": $0] } ?? [:]
                ) { $1 }, timeout: 60)
            guard started.status == 0 else {
                throw HarnessError("cannot start the pen-tablet X server on \(name): \(started.output)")
            }
        } else {
            kind = .xvfb
            guard let server = Subprocess.which("Xvfb") else {
                throw HarnessError("Xvfb is not installed (scripts/install-deps test)")
            }
            // -noreset: the root window's properties (such as the desktop's Xft.dpi) outlive the client that
            // set them, as on a desktop, instead of going with the server's reset when it leaves.
            xvfb = try Subprocess(
                server, [name, "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"],
                folder: folder, label: "xvfb")
            try waitFor("Xvfb on \(name)", timeout: 30) {
                FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            }
        }
    }

    func stop() {
        switch kind {
        case .penTablet(let tool): _ = try? Subprocess.run(tool + "/stop-pen-x", [name], timeout: 30)
        case .xvfb: xvfb?.stop()
        }
        Self.release(name)
    }

    /// Gives back the claim on display `name` (":N").
    static func release(_ name: String) { unlink(claim(name.dropFirst())) }

    /// The file whose creation claims display number `n` for this process: the test processes that run side by
    /// side each take their own.
    private static func claim(_ n: some StringProtocol) -> String { "/tmp/sa-display-\(n).claim" }

    /// A display number no X server uses, claimed for this process (a claim whose process is gone is taken over).
    static func freeDisplayNumber() throws -> Int {
        for n in 90..<190
        where !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock")
            && !FileManager.default.fileExists(atPath: "/tmp/pen-x-\(n)")
        {
            let path = claim(String(n))
            if let owner = try? String(contentsOfFile: path, encoding: .utf8), let pid = pid_t(owner),
                kill(pid, 0) != 0
            {
                unlink(path)
            }
            let file = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard file >= 0 else { continue }
            let pid = Array(String(getpid()).utf8)
            _ = pid.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
            close(file)
            return n
        }
        throw HarnessError("no free X display number in :90–:189")
    }

    // MARK: - Driving the pen

    /// Where the X server will put a sent position: the tablet resolves 0.1 px, XTest whole pixels.
    func effective(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        hasRealPen ? ((x * 10).rounded() / 10, (y * 10).rounded() / 10) : (x.rounded(), y.rounded())
    }

    func pen(_ arguments: String...) throws { try pen(arguments) }

    func pen(_ arguments: [String]) throws {
        switch kind {
        case .penTablet(let tool):
            let command = (Fixtures.penPython.map { [$0] } ?? []) + [tool + "/pen"] + arguments
            let result = try Subprocess.run(command[0], Array(command.dropFirst()), environment: environment)
            guard result.status == 0 else {
                throw HarnessError("pen \(arguments.joined(separator: " ")): \(result.output)")
            }
        case .xvfb:
            try emulateWithXTest(arguments)
        }
    }

    func down(_ x: Double, _ y: Double, pressure: Double = 0.5) throws {
        try pen("down", Self.point(x, y), "--pressure", String(pressure))
    }
    func move(_ x: Double, _ y: Double) throws { try pen("move", Self.point(x, y)) }
    func up() throws { try pen("up") }
    func tap(_ x: Double, _ y: Double, ms: Int = 50) throws { try pen("tap", Self.point(x, y), "--ms", String(ms)) }
    func stroke(from a: (Double, Double), to b: (Double, Double), ms: Int, hz: Int = 100) throws {
        try pen(
            "stroke", "--from", Self.point(a.0, a.1), "--to", Self.point(b.0, b.1), "--ms", String(ms), "--hz",
            String(hz))
    }

    /// The positions `pen stroke` sends, in order (the tool interpolates linearly at --hz).
    static func strokePoints(from a: (Double, Double), to b: (Double, Double), ms: Int, hz: Int = 100) -> [(
        Double, Double
    )] {
        let steps = max(2, Int((Double(ms) * Double(hz) / 1000).rounded()))
        return (0...steps).map { i in
            let u = Double(i) / Double(steps)
            return (a.0 + (b.0 - a.0) * u, a.1 + (b.1 - a.1) * u)
        }
    }

    /// Presses keys by X keysym name on this display.
    func key(_ names: String...) throws {
        guard let xdotool = Subprocess.which("xdotool") else { throw HarnessError("xdotool is not installed") }
        let result = try Subprocess.run(xdotool, ["key", "--delay", "60"] + names, environment: environment)
        guard result.status == 0 else { throw HarnessError("xdotool key \(names): \(result.output)") }
    }

    /// Gives the keyboard focus to the window whose name matches `pattern` (once it exists), as a user
    /// coming to it from another does.
    func focusWindow(named pattern: String) throws {
        guard let xdotool = Subprocess.which("xdotool") else { throw HarnessError("xdotool is not installed") }
        let result = try Subprocess.run(
            xdotool, ["search", "--sync", "--name", pattern, "windowfocus", "--sync"], environment: environment,
            timeout: 15)
        guard result.status == 0 else { throw HarnessError("xdotool cannot focus \(pattern): \(result.output)") }
    }

    static func point(_ x: Double, _ y: Double) -> String { "\(x),\(y)" }

    private func emulateWithXTest(_ arguments: [String]) throws {
        guard let xdotool = Subprocess.which("xdotool") else { throw HarnessError("xdotool is not installed") }
        func xdo(_ args: [String]) throws {
            let result = try Subprocess.run(xdotool, args, environment: environment)
            guard result.status == 0 else { throw HarnessError("xdotool \(args): \(result.output)") }
        }
        func parse(_ text: String) -> (Double, Double) {
            let parts = text.split(separator: ",").compactMap { Double($0) }
            return (parts[0], parts[1])
        }
        func moveTo(_ p: (Double, Double)) throws {
            let whole = effective(p.0, p.1)
            try xdo(["mousemove", String(Int(whole.x)), String(Int(whole.y))])
        }
        func value(after flag: String, default fallback: Int) -> Int {
            arguments.firstIndex(of: flag).flatMap { Int(arguments[$0 + 1]) } ?? fallback
        }
        switch arguments[0] {
        case "down": try moveTo(parse(arguments[1])); try xdo(["mousedown", "1"])
        case "move", "hover": try moveTo(parse(arguments[1]))
        case "up": try xdo(["mouseup", "1"])
        case "tap":
            try moveTo(parse(arguments[1]))
            try xdo(["mousedown", "1"])
            usleep(UInt32(value(after: "--ms", default: 50) * 1000))
            try xdo(["mouseup", "1"])
        case "stroke":
            let a = parse(arguments[arguments.firstIndex(of: "--from")! + 1])
            let b = parse(arguments[arguments.firstIndex(of: "--to")! + 1])
            let ms = value(after: "--ms", default: 500), hz = value(after: "--hz", default: 100)
            try moveTo(a)
            try xdo(["mousedown", "1"])
            let start = Date()
            for (i, p) in Self.strokePoints(from: a, to: b, ms: ms, hz: hz).enumerated() {
                let due = Double(i) / Double(hz) - Date().timeIntervalSince(start)
                if due > 0 { usleep(UInt32(due * 1_000_000)) }
                try moveTo(p)
            }
            try xdo(["mouseup", "1"])
        case "button":
            // Barrel button N arrives as X button N + 1, as from the tablet.
            if let at = arguments.firstIndex(of: "--at") { try moveTo(parse(arguments[at + 1])) }
            let button = String(Int(arguments[1])! + 1)
            if arguments.contains("--press") {
                try xdo(["mousedown", button])
            } else if arguments.contains("--release") {
                try xdo(["mouseup", button])
            } else {
                try xdo(["click", "--repeat", arguments.contains("--double") ? "2" : "1", "--delay", "80", button])
            }
        default:
            throw HarnessError("`pen \(arguments[0])` needs the real pen (pen-tablet); XTest cannot emulate it")
        }
    }
}

/// Polls `condition` until it holds, or fails with a message naming `what`.
func waitFor(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw HarnessError("timed out after \(timeout) s waiting for \(what)") }
        usleep(10_000)
    }
}
