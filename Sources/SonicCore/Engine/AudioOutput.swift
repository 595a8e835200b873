import Synchronization

/// The rate every sound is made at, live and rendered.
public enum AudioFormat {
    public static let sampleRate = 48_000
}

/// Something the audio thread can call to fill interleaved float frames. It must not allocate,
/// lock or do I/O.
public protocol AudioRenderer: AnyObject {
    /// Fills `frames` interleaved frames. `time` is the moment (CLOCK_MONOTONIC seconds) whose changes
    /// are due at the first frame: a change asked for `k / sampleRate` later is made `k` frames in.
    /// Nil makes every change waiting at once.
    func render(into buffer: UnsafeMutablePointer<Float>, frames: Int, channels: Int, at time: Double?)
}

extension SynthEngine: AudioRenderer {}
extension VoicedRenderer: AudioRenderer {}

/// A live sound output: a sound server's stream that a renderer fills from the server's audio thread.
public protocol AudioOutput: AnyObject {
    /// The sound the server keeps ahead of the speaker, in seconds, as granted (it may round the request).
    var grantedLatency: Double { get }
    /// How many times the sound has run dry so far: each a few milliseconds of silence, heard as a
    /// crackle. The cure is a larger buffer.
    var dropoutCount: Int { get }
    /// When the sound last ran dry (CLOCK_MONOTONIC seconds), as the audio side noticed it: the
    /// session log's record of it comes a little later. Nil before the first time.
    var lastDropoutTime: Double? { get }
    /// How long after it is asked for a change sounds, as the output last timed one (seconds; see
    /// `ChangeTiming`); 0 before the first.
    var changeDelay: Double { get }
    /// Why the sound server can no longer be played to (it went away, or ended the stream); nil
    /// while it plays. Once set, the output plays nothing more: a new one must be opened.
    var lossReason: String? { get }
}

/// A live output whose server's buffer can be lengthened or shortened while it plays (PulseAudio's): the session
/// grows it when the sound runs dry or nearly did (`BufferLength`).
public protocol ResizableAudioOutput: AudioOutput {
    /// The longest the server went without asking for more sound since the last call, as a part of the margin
    /// the buffer holds beyond one request: 0 on time (or when it does not tell), 1 where it ran dry.
    func takeLongestWait() -> Double

    /// Asks the server to keep `seconds` of sound ahead of the speaker from now on; changes are then timed
    /// for the new length as soon as the server grants it.
    func resizeBuffer(to seconds: Double)
}

/// Whether a live output's server has gone, set from the sound library's own threads (the server's
/// connection or the stream failing), read by the main loop. Lock-free.
public final class ServerLoss: Sendable {
    private let lost = Atomic<Bool>(false)

    public init() {}

    public func note() { lost.store(true, ordering: .releasing) }

    public var happened: Bool { lost.load(ordering: .acquiring) }
}

public struct AudioError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// No server answered at all, as opposed to one that answered and could not play.
    public let noServer: Bool

    public init(message: String, noServer: Bool = false) {
        self.message = message
        self.noServer = noServer
    }

    public var description: String { message }
}

/// How a live output times the changes the pen asks for. A change made at the start of whichever
/// block is rendered next would sound anywhere from no time to a whole period after it was asked
/// for; the hand learns a constant delay, not a wandering one. So each output gives the renderer the
/// moment whose changes are due at the first frame (`AudioRenderer.render`'s `time`): a change is
/// made at the frame where its time plus a fixed delay falls, the delay being what the output
/// needs to have every change in hand before it renders that frame — one period plus this margin.
public enum ChangeTiming {
    /// Covers the main loop's way from reading an event to queueing its change, and the audio
    /// thread waking a little late for its cycle.
    public static let margin = 0.001
}
