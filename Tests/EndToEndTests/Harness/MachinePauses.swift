import Foundation

/// The pauses of the machine itself during one test, measured by the `machine-pauses` program beside
/// the program under test. This machine is a virtual machine whose host now and then runs something
/// else for a few milliseconds — longer than a sound period — and then every program on it stops,
/// the sound servers included. A dropout that falls in such a pause is the machine's; any other is
/// the program's.
final class MachinePauseWatch {
    /// Where a dropout may be noticed after the pause that caused it (the record's `at`): in the
    /// stream's next cycle, or when the server's message comes. The steal counter is read every 20 ms,
    /// so a pause it shows may have ended a little before it was read.
    static let noticedDelay = -0.03...0.06
    /// Where a dropout record without `at` may fall after the pause: the program's loop, which waits at
    /// most a tenth of a second for input, logs it in its next round.
    static let dropoutDelay = -0.03...0.15
    private let watcher: Subprocess
    private let path: String

    /// `threads`: the threads whose waits to run are watched too (`waits()`).
    init(folder: String, threads: [Int32] = []) throws {
        path = folder + "/machine-pauses.txt"
        watcher = try Subprocess(
            Fixtures.machinePauses, threads.map(String.init), stdout: path, folder: folder, label: "machine-pauses")
        try waitFor("the machine-pause watch to start", timeout: 30) {
            (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix("watching") == true
        }
    }

    func stop() { watcher.stop() }

    /// One measured pause: when it ended (CLOCK_MONOTONIC seconds), how long it lasted at least, and
    /// what showed it.
    struct Pause {
        let end: Double
        let seconds: Double
        let evidence: String
    }

    /// The pauses measured so far: late wakes of the watching threads (at real-time priority where
    /// allowed; otherwise at ordinary priority, like the sound servers then) and rises of the host's
    /// steal counter.
    func pauses() -> [Pause] {
        reported().compactMap { fields in
            guard fields.count == 3, let end = Double(fields[1]), let amount = Int(fields[2]) else { return nil }
            switch fields[0] {
            case "pause":
                return Pause(
                    end: end, seconds: Double(amount) / 1000, evidence: "a real-time thread woke \(amount) ms late")
            case "late":
                return Pause(
                    end: end, seconds: Double(amount) / 1000,
                    evidence: "a thread without real-time priority, as here, woke \(amount) ms late")
            case "steal":
                return Pause(
                    end: end, seconds: Double(amount) / 100, evidence: "the host took \(amount * 10) ms (steal counter)"
                )
            default: return nil
            }
        }
    }

    /// The watched threads' waits to run so far: when each look that saw one was taken (CLOCK_MONOTONIC
    /// seconds; it waited within the 20 ms before), and for how long in all. A sound server's thread
    /// that waits while the processors run other work is no pause of the machine: it tells where a
    /// dropout came from, and excuses none.
    func waits() -> [(end: Double, seconds: Double)] {
        reported().compactMap { fields in
            guard fields.count == 4, fields[0] == "waited", let end = Double(fields[1]), let amount = Int(fields[3])
            else { return nil }
            return (end, Double(amount) / 1000)
        }
    }

    /// The other real-time threads' long runs so far: when each look that saw one was taken, how long the
    /// thread ran since the look before, and its name. Below the watch's priority, such a thread delays
    /// no watch, but keeps every ordinary thread, a sound server's included, off its processor.
    func realTimeRuns() -> [(end: Double, seconds: Double, name: String)] {
        reported(fieldsAtMost: 5).compactMap { fields in
            guard fields.count == 5, fields[0] == "busy", let end = Double(fields[1]), let amount = Int(fields[3])
            else { return nil }
            return (end, Double(amount) / 1000, String(fields[4]))
        }
    }

    /// Every line reported so far, split into its fields, the last of `fieldsAtMost` taking the rest
    /// of the line (a thread's name may hold spaces).
    private func reported(fieldsAtMost: Int = .max) -> [[Substring]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map {
            $0.split(separator: " ", maxSplits: fieldsAtMost - 1)
        }
    }

    /// The pause among `pauses` that a dropout falls in, if any: one noticed at `noticed`, or, not
    /// known when, logged at `logged`.
    static func pause(explaining dropout: (logged: Double, noticed: Double?), among pauses: [Pause]) -> Pause? {
        if let noticed = dropout.noticed { return pauses.first { noticedDelay.contains(noticed - $0.end) } }
        return pauses.first { dropoutDelay.contains(dropout.logged - $0.end) }
    }

    /// The pauses among `pauses` that can have broken the sound of what the program did from `span`'s
    /// start to its end (CLOCK_MONOTONIC seconds, as the session log has them): what is heard follows
    /// the pen by the sound's latency, and a pause is noticed up to `dropoutDelay` after it.
    static func pauses(during span: ClosedRange<Double>, among pauses: [Pause]) -> [Pause] {
        pauses.filter {
            (span.lowerBound - dropoutDelay.upperBound...span.upperBound + dropoutDelay.upperBound).contains($0.end)
        }
    }
}

extension Fixtures {
    /// The machine-pause watch, built next to the program under test.
    static var machinePauses: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("machine-pauses").path
    }
}
