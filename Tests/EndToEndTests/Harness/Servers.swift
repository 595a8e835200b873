import Foundation
import TestSupport
import Testing

/// Runs `body` with a fresh X display (the pen tablet, or with `plainMouse` a plain pointer), a sound
/// server of the given kind and a scratch folder, then tears down. Every session the program logged
/// in the folder is then checked for dropouts (`dropoutsExpected` is for the tests that starve the
/// sound on purpose or share the server with another program's stream): the sound must not run dry
/// twice in a session. One dropout is reported and let pass: on a virtual machine the host can take
/// the processors away for longer than a period (steal time), which nothing in the program can
/// prevent. The folder is kept when a test fails.
func withServers(
    _ name: String, sound kind: SoundServer.Kind = .pulseaudio, plainMouse: Bool = false,
    dropoutsExpected: Bool = false, _ body: (TestDisplay, SoundServer, String) throws -> Void
) throws {
    let folder = try Fixtures.scratch(name + "-" + kind.rawValue)
    let sound = try SoundServer(folder: folder, kind: kind)
    defer { sound.stop() }
    let display = try TestDisplay(folder: folder, plainMouse: plainMouse)
    defer { display.stop() }
    defer { if let stopped = sound.stoppedServer { Issue.record("\(stopped)") } }
    try body(display, sound, folder)
    var clean = true
    if !dropoutsExpected {
        for (log, dropouts) in try sessionDropouts(under: folder) where !dropouts.isEmpty {
            let when = dropouts.map { String(format: "%.2f s", $0) }.joined(separator: ", ")
            if burstCount(dropouts) == 1 {
                print("note: in test \(name) (on \(kind.rawValue)) the sound ran dry once, at \(when) after its start")
                continue
            }
            Issue.record(
                "the sound ran dry \(dropouts.count) time(s) in \(folder)/\(log) (on \(kind.rawValue)), at \(when) after its start"
            )
            clean = false
        }
    }
    if clean { try? FileManager.default.removeItem(atPath: folder) }
}

/// How many pauses of the machine `dropouts` (seconds) come from: those within 0.5 s of a burst's
/// first are one, the stream running dry again while it catches up.
func burstCount(_ dropouts: [Double]) -> Int {
    var count = 0
    var first = -Double.infinity
    for time in dropouts.sorted() where time - first > 0.5 {
        count += 1
        first = time
    }
    return count
}

/// The dropouts of every session log under `folder`: seconds after the session started.
func sessionDropouts(under folder: String) throws -> [(log: String, dropouts: [Double])] {
    let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return try files.filter { $0.hasSuffix(".jsonl") }.map { file in
        let records = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n").compactMap
        {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let start = records.first { $0["type"] as? String == "start" }?["t"] as? Double ?? 0
        return (
            file,
            records.filter { $0["type"] as? String == "dropout" }.compactMap { ($0["t"] as? Double).map { $0 - start } }
        )
    }
}

/// Writes a 16-bit gray test image built by `value(x, y)` and returns its path.
func writeImage(_ folder: String, _ name: String, width: Int, height: Int, _ value: (Int, Int) -> UInt16) throws
    -> String
{
    let samples = (0..<width * height).map { value($0 % width, $0 / width) }
    let path = folder + "/" + name
    try Data(TestPNG(width: width, height: height, bitDepth: 16, colourType: .gray, samples: samples).bytes)
        .write(to: URL(fileURLWithPath: path))
    return path
}

extension SoundServer {
    /// Waits until the sink has been silent for `seconds` (the voice has finished), and returns the
    /// sample count at that moment: a mark for "from now on".
    @discardableResult
    func waitForSilence(lasting seconds: Double = 0.4, timeout: Double = 20) throws -> Int {
        let window = Int(seconds * SoundServer.sampleRate)
        try waitFor("\(seconds) s of silence", timeout: timeout) {
            guard let x = try? recording(), x.count > window else { return false }
            return SignalAnalysis.peak(x[(x.count - window)...]) < 0.001
        }
        return recordedSampleCount()
    }

    /// Waits for sound to start after sample `mark` and then to stop (an announcement, start to end);
    /// returns where it started and ended.
    @discardableResult
    func waitForUtterance(after mark: Int, timeout: Double = 20) throws -> Range<Int> {
        var start = 0
        try waitFor("sound after sample \(mark)", timeout: 5) {
            guard let x = try? recording(), x.count > mark, let first = x[mark...].firstIndex(where: { abs($0) > 0.01 })
            else { return false }
            start = first
            return true
        }
        return start..<(try waitForSilence(timeout: timeout))
    }
}
