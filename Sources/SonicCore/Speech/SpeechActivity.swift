import Synchronization

/// Whether a voice outside the program's own sound — speech-dispatcher's — is speaking one of our
/// messages, for the audio thread to duck under. The voice's thread reports each message's start and
/// end; the audio thread only reads. Lock-free on both sides.
public final class SpeechActivity: Sendable {
    /// The message being spoken, or 0 for none.
    private let current = Atomic<Int>(0)

    public init() {}

    /// Message `id` (above 0) started playing.
    public func began(message id: Int) {
        current.store(id, ordering: .releasing)
    }

    /// Message `id` finished or was cut off. A late report for a message that another has already
    /// replaced changes nothing.
    public func ended(message id: Int) {
        _ = current.compareExchange(expected: id, desired: 0, ordering: .releasing)
    }

    /// Whether a message is playing (the audio thread's view).
    public var isSpeaking: Bool { current.load(ordering: .acquiring) != 0 }
}
