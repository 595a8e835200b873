import Synchronization

/// How often a live output's sound has run dry, and when it last did, as its audio side notices:
/// written there, read by the main loop. Lock-free and allocation-free, for any thread.
public final class DropoutTally: Sendable {
    private let count = Atomic<Int>(0)
    /// CLOCK_MONOTONIC nanoseconds, 0 before any; stored before the count goes up, so a reader who
    /// sees the count sees its time.
    private let lastNanoseconds = Atomic<Int64>(0)

    public init() {}

    /// One dropout, noticed at `nanoseconds` (CLOCK_MONOTONIC), or at a time not known when 0.
    public func note(atNanoseconds nanoseconds: Int64) {
        if nanoseconds > 0 { lastNanoseconds.store(nanoseconds, ordering: .relaxed) }
        count.add(1, ordering: .releasing)
    }

    public var total: Int { count.load(ordering: .acquiring) }

    /// When the last dropout was noticed, in seconds, if it is known.
    public var lastTime: Double? {
        let nanoseconds = lastNanoseconds.load(ordering: .relaxed)
        return nanoseconds > 0 ? Double(nanoseconds) / 1e9 : nil
    }
}
