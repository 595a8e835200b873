import Synchronization

/// Speech samples on their way from the speech thread to the audio thread: a lock-free ring with one
/// writer and one reader. The writer can mark everything queued so far as stale (a new announcement
/// interrupts the old); the reader skips it. Neither side ever waits for the other.
public final class SpeechBuffer: Sendable {
    public let capacity: Int
    /// Written only at slots the reader has finished with; read only at slots the writer has published.
    nonisolated(unsafe) private let storage: UnsafeMutablePointer<Float>
    /// Running totals; a slot is total % capacity.
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    /// Samples before this total are stale.
    private let staleBefore = Atomic<Int>(0)

    public init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    // MARK: Writer (the speech thread)

    /// Appends as many samples as fit; returns how many did.
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let w = written.load(ordering: .relaxed)
        let free = capacity - (w - consumed.load(ordering: .acquiring))
        let n = min(free, samples.count)
        for i in 0..<n { storage[(w + i) % capacity] = samples[i] }
        written.store(w + n, ordering: .releasing)
        return n
    }

    /// Everything queued so far will be skipped.
    public func discardQueued() {
        staleBefore.store(written.load(ordering: .relaxed), ordering: .releasing)
    }

    /// Whether the reader has taken everything (the writer's view).
    public var isDrained: Bool { consumed.load(ordering: .acquiring) >= written.load(ordering: .relaxed) }

    // MARK: Reader (the audio thread)

    /// Whether fresh (not stale) samples wait to be played.
    public var hasQueuedSamples: Bool {
        written.load(ordering: .acquiring)
            > max(consumed.load(ordering: .relaxed), staleBefore.load(ordering: .acquiring))
    }

    /// Adds up to `frames` samples × `gain` into every channel of `output`; returns how many it had.
    public func mix(into output: UnsafeMutablePointer<Float>, frames: Int, channels: Int, gain: Float) -> Int {
        let w = written.load(ordering: .acquiring)
        var r = max(consumed.load(ordering: .relaxed), staleBefore.load(ordering: .acquiring))
        let n = min(frames, w - r)
        for i in 0..<n {
            let s = storage[r % capacity] * gain
            for c in 0..<channels { output[i * channels + c] += s }
            r += 1
        }
        consumed.store(r, ordering: .releasing)
        return max(n, 0)
    }
}
