/// Something the audio thread can call to fill interleaved float frames. It must not allocate,
/// lock or do I/O.
public protocol AudioRenderer: AnyObject {
    func render(into buffer: UnsafeMutablePointer<Float>, frames: Int, channels: Int)
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
