import Synchronization

/// How far the long work under way has got, for whoever tells the user: a line on the terminal, a
/// word in play. Work that can take seconds says what it is doing and advances as it goes; where no
/// one follows it (`current` is nil) that costs nothing.
public final class WorkProgress: Sendable {
    private struct Stage {
        var what: String
        var steps: Int
        var done = 0
    }

    private let stage = Mutex<Stage?>(nil)
    private let stopAsked = Atomic(false)

    public init() {}

    /// What work stopped at the user's asking throws.
    public static let stopped = ImageFileError("stopped for other work")

    /// The user has asked for something else: work that can stop does at its next step, throwing
    /// `stopped`.
    public func stop() { stopAsked.store(true, ordering: .relaxed) }

    public var isStopped: Bool { stopAsked.load(ordering: .relaxed) }

    /// New work begins for whoever follows it: nothing done yet, nothing asked to stop.
    public func restart() {
        stopAsked.store(false, ordering: .relaxed)
        stage.withLock { $0 = nil }
    }

    /// Who follows the work of this thread (nil: no one).
    @TaskLocal public static var current: WorkProgress?

    /// A stage begins: `what` ("reading the spectra"), in `steps` steps.
    public func begin(_ what: String, steps: Int) {
        stage.withLock { $0 = Stage(what: what, steps: max(1, steps)) }
    }

    /// `count` more steps are done (from any thread).
    public func advance(by count: Int = 1) {
        stage.withLock { stage in
            if let now = stage { stage!.done = min(now.steps, now.done + count) }
        }
    }

    /// The stage under way and its share done, 0 to 1; nil before any.
    public var now: (what: String, fraction: Double)? {
        stage.withLock { $0.map { ($0.what, Double($0.done) / Double($0.steps)) } }
    }
}

/// When a terminal hears of long work: nothing for the first `quietFor` seconds (most waits end
/// sooner), then a line every `every` seconds at most, and only when there is something new to say —
/// a screen reader reads each line, so they come few and short.
public struct ProgressLines: Sendable {
    public static let quietFor = 2.0
    public static let every = 3.0
    private var lastSaid: (time: Double, text: String)?

    public init() {}

    /// The line to write `elapsed` seconds into the work, given how far it is, or nil.
    public mutating func line(elapsed: Double, now: (what: String, fraction: Double)?) -> String? {
        guard elapsed >= Self.quietFor, let now else { return nil }
        if let lastSaid, elapsed - lastSaid.time < Self.every { return nil }
        let percent = Int((100 * now.fraction).rounded(.down))
        let text = "\(now.what.prefix(1).uppercased())\(now.what.dropFirst()), \(percent) percent."
        guard text != lastSaid?.text else { return nil }
        lastSaid = (elapsed, text)
        return text
    }
}
