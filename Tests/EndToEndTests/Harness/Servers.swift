import Foundation
import TestSupport

/// Runs `body` with a fresh X display (pen-tablet), sound server and scratch folder, then tears down.
func withServers(_ name: String, _ body: (TestDisplay, SoundServer, String) throws -> Void) throws {
    let folder = try Fixtures.scratch(name)
    // Sound first: its sink warms up while the X server starts.
    let sound = try SoundServer(folder: folder)
    defer { sound.stop() }
    let display = try TestDisplay(folder: folder)
    defer { display.stop() }
    try body(display, sound, folder)
    try? FileManager.default.removeItem(atPath: folder)
}

/// Writes a 16-bit gray test image built by `value(x, y)` and returns its path.
func writeImage(_ folder: String, _ name: String, width: Int, height: Int, _ value: (Int, Int) -> UInt16) throws -> String {
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
