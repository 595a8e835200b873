import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

/// Runs `body` with a fresh X display (the pen tablet, or with `plainMouse` a plain pointer), a sound
/// server of the given kind and a scratch folder, then tears down. Every session the program logged
/// in the folder is then checked for dropouts (`dropoutsExpected` is for the tests that starve the
/// sound on purpose or share the server with another program's stream): a dropout fails the test
/// unless the machine itself was measured to pause just then (see `MachinePauseWatch`), which nothing
/// in the program can prevent; those are reported and let pass. The folder is kept when a test fails.
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
        let pauses = sound.machinePauses.pauses(), waits = sound.machinePauses.waits()
        let runs = sound.machinePauses.realTimeRuns()
        for (log, start, dropouts) in try sessionDropouts(under: folder) {
            for dropout in dropouts {
                let when =
                    String(format: "%.2f s after its start", (dropout.noticed ?? dropout.logged) - start)
                    + (dropout.buffer.map { String(format: " (its buffer %.0f ms)", $0 * 1000) } ?? "")
                // Where it came from: the server's relaying thread kept from running just before, and by what.
                let moment = dropout.noticed ?? dropout.logged
                let waited =
                    waits.filter { MachinePauseWatch.noticedDelay.contains(moment - $0.end) }.map {
                        String(
                            format: "; the server's relaying thread waited %.0f ms to run in the 20 ms before %.2f s",
                            $0.seconds * 1000, $0.end - start)
                    }.joined()
                    + runs.filter { MachinePauseWatch.noticedDelay.contains(moment - $0.end) }.map {
                        "; a real-time thread, \($0.name), ran "
                            + String(format: "%.0f ms in the 20 ms before %.2f s", $0.seconds * 1000, $0.end - start)
                    }.joined()
                if let pause = MachinePauseWatch.pause(
                    explaining: (dropout.logged, dropout.noticed), among: pauses)
                {
                    print(
                        "note: in test \(name) (on \(kind.rawValue)) the sound ran dry at \(when), "
                            + "while the machine itself paused (\(pause.evidence))\(waited)")
                    continue
                }
                Issue.record(
                    "the sound ran dry at \(when) in \(folder)/\(log) (on \(kind.rawValue)), and the machine did not pause then\(waited)"
                )
                clean = false
            }
        }
    }
    if clean { try? FileManager.default.removeItem(atPath: folder) }
}

/// Every session log under `folder`: when the session started, and when it logged each dropout and
/// noticed it, if it says (CLOCK_MONOTONIC seconds), with the buffer the session kept then, if it said.
func sessionDropouts(under folder: String) throws -> [(
    log: String, start: Double, dropouts: [(logged: Double, noticed: Double?, buffer: Double?)]
)] {
    let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return try files.filter { $0.hasSuffix(".jsonl") }.map { file in
        let records = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n").compactMap
        {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let start = records.first { $0["type"] as? String == "start" }?["t"] as? Double ?? 0
        let lengths = records.filter { $0["type"] as? String == "buffer" }.compactMap { record in
            (record["t"] as? Double).flatMap { t in (record["seconds"] as? Double).map { (t: t, seconds: $0) } }
        }
        return (
            file, start,
            records.filter { $0["type"] as? String == "dropout" }.compactMap { record in
                (record["t"] as? Double).map { logged in
                    (
                        logged: logged, noticed: record["at"] as? Double,
                        buffer: lengths.last { $0.t < logged }?.seconds
                    )
                }
            }
        )
    }
}

/// Writes the diffraction pattern as a microscope would, in a DigitalMicrograph file calibrated in reciprocal
/// nanometres (`spots.dm4` in `folder`), and returns its path.
func writeDiffractionPattern(_ spots: DiffractionSample, in folder: String) throws -> String {
    let path = folder + "/spots.dm4"
    let axis = SampleDM.Axis(scale: spots.reciprocalPerPixel, units: "1/nm")
    try writeDigitalMicrograph([.calibrated(spots.render(), title: "diffraction", axis: axis)], to: path)
    return path
}

/// Writes `images` as a DigitalMicrograph file at `path`.
func writeDigitalMicrograph(_ images: [SampleDM.Image], to path: String) throws {
    try Data(SampleDM(images: images).bytes).write(to: URL(fileURLWithPath: path))
}

extension SampleDM.Image {
    /// A 16-bit image as a microscope keeps it, each pixel `axis` across and down.
    static func calibrated(_ image: GrayImage, title: String, axis: SampleDM.Axis) -> Self {
        .init(
            title: title, dimensions: [image.width, image.height], dataType: .uint16,
            values: image.samples.map(Double.init), axes: [axis, axis])
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
        try waitFor("sound after sample \(mark)", timeout: 15) {
            guard let x = try? recording(), x.count > mark, let first = x[mark...].firstIndex(where: { abs($0) > 0.01 })
            else { return false }
            start = first
            return true
        }
        return start..<(try waitForSilence(timeout: timeout))
    }
}
