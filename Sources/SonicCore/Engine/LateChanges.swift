import Synchronization

/// How often a change was made later than it was due live — queued only after the frames of its
/// moment were rendered, so heard later than the constant delay promises (`ChangeTiming`) — and by
/// how much the last time: noted on the audio thread, read by the main loop. Lock-free.
public final class LateChanges: Sendable {
    private let count = Atomic<Int>(0)
    /// A `Double`'s bits, stored before the count goes up, so a reader who sees the count sees it.
    private let lastLateness = Atomic<UInt64>(0)
    /// Made this much after its moment, a change is late: ten frames, above the frame a change
    /// waits for at most on time.
    public static let threshold = 10.0 / Double(AudioFormat.sampleRate)

    public init() {}

    public func note(seconds: Double) {
        lastLateness.store(seconds.bitPattern, ordering: .relaxed)
        count.add(1, ordering: .releasing)
    }

    public var total: Int { count.load(ordering: .acquiring) }

    /// How late the last late change was made, in seconds; 0 before any.
    public var lastSeconds: Double { Double(bitPattern: lastLateness.load(ordering: .relaxed)) }
}
