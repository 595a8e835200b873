import Foundation

/// `sonic-atomic play` (or `learn`, which runs the same session) against a test display and sound server, with its
/// session log.
final class RunningPlay {
    let process: Subprocess
    let logPath: String
    private let display: TestDisplay
    private let sound: SoundServer
    /// Where the recording stood when the program started.
    private let startMark: Int

    /// `launcher`: a command that runs the program (its arguments up to the program's path), to
    /// change its limits.
    init(
        image: String?, display: TestDisplay, sound: SoundServer, folder: String, arguments: [String] = [],
        environment: [String: String] = [:], launcher: [String] = [], command: String = "play"
    ) throws {
        self.display = display
        self.sound = sound
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        sound.waitUntilLive()
        logPath = folder + "/session.jsonl"
        startMark = sound.recordedSampleCount()
        var args = [command]
        if let image { args.append(image) }
        // The kind's way to play, and a voice at 450 words a minute (the fastest, as many screen-reader users
        // set theirs: the greeting then takes two seconds, not five), unless the test chooses.
        args += ["--events", logPath] + (arguments.contains("--audio") ? [] : sound.kind.audioArguments)
        args += (arguments.contains("--rate") ? [] : ["--rate", "450"]) + arguments
        let command = launcher + [Fixtures.binary] + args
        process = try Subprocess(
            command[0], Array(command.dropFirst()),
            environment: display.environment.merging(sound.clientEnvironment) { $1 }
                .merging(environment) { $1 },
            folder: folder, label: "sonic-atomic")
    }

    /// Every record of the session log so far.
    func records() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("not a JSON object in the session log: \(line)")
            }
            return object
        }
    }

    func records(ofType type: String) throws -> [[String: Any]] {
        try records().filter { $0["type"] as? String == type }
    }

    /// Everything the program has said so far, in order.
    func spokenTexts() throws -> [String] {
        try records(ofType: "speech").map { $0["text"] as! String }
    }

    /// The last thing said in answer to the user: the overview's first sentence, which follows the greeting
    /// whenever the columns have been read (late on a busy machine), is not an answer.
    func lastAnswer() throws -> String? {
        try records(ofType: "speech").last { $0["after"] as? Bool != true }?["text"] as? String
    }

    /// Waits until the window is placed and drawn (its viewport is logged) and returns the viewport.
    @discardableResult
    func waitUntilShown(timeout: Double = 20) throws -> Viewport {
        try waitFor("the window to be placed (a viewport record)", timeout: timeout) {
            !process.isRunning || ((try? records(ofType: "viewport"))?.isEmpty == false)
        }
        guard process.isRunning, let v = try records(ofType: "viewport").last else {
            throw HarnessError("sonic-atomic exited early (\(process.terminationStatus ?? -1)): \(process.stderr)")
        }
        // Give the first frame a moment to reach the screen before the pen arrives.
        usleep(200_000)
        return Viewport(
            originX: v["originX"] as! Double, originY: v["originY"] as! Double, scale: v["scale"] as! Double)
    }

    /// Waits until the greeting has been heard to its end and returns where it ended. Waiting for
    /// silence alone is not enough: it passes when the first word has not reached the sink yet.
    @discardableResult
    func waitForGreeting() throws -> Int {
        try sound.waitForUtterance(after: startMark).upperBound
    }

    /// Waits for the window and the greeting, then switches to tagging mode (key 4) and waits until
    /// that has been announced; returns the viewport.
    @discardableResult
    func startTagging() throws -> Viewport {
        let viewport = try waitUntilShown()
        try waitForGreeting()
        let mark = sound.recordedSampleCount()
        try display.key("4")
        try sound.waitForUtterance(after: mark)
        return viewport
    }

    /// Quits with the q key, as a user would, and returns the exit status.
    func quitWithKey() throws -> Int32 {
        try display.key("q")
        guard let status = process.wait(timeout: 20) else {
            process.stop()
            throw HarnessError("sonic-atomic did not quit on the q key")
        }
        return status
    }

    func stop() { process.stop() }
}

/// Where the window shows the image: the screen point of the image's top-left corner, and screen
/// pixels per image pixel.
struct Viewport {
    var originX: Double, originY: Double, scale: Double

    /// The screen point over image point (x, y), where pixel (0, 0) covers 0 to 1: `screen(0, 0)` is the
    /// first pixel's centre.
    func screen(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (originX + (x + 0.5) * scale, originY + (y + 0.5) * scale)
    }

    /// `screen(x, y)` as the pen tool takes it.
    func point(_ x: Double, _ y: Double) -> String { TestDisplay.point(screen(x, y).x, screen(x, y).y) }
}
