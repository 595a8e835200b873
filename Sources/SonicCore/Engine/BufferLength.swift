/// How much sound a live output keeps ahead of the speaker: the latency asked for, lengthened a step each
/// time the sound runs dry, and shortened a step back after a quiet minute. A busy desktop can hold up
/// the sound server's own ordinary threads, which pass the program's sound on (PulseAudio's main thread
/// has no real-time priority), for longer than a short buffer lasts; a longer one rides over that, at the
/// cost of the pen's sound coming that much later. PulseAudio's own sinks grow their buffers the same way.
/// It grows too on a near miss: the server, late to ask for more, used most of the buffer's margin (what it
/// holds beyond one request), so the buffer is longer before a wait a little longer is heard.
///
/// A session's first seconds are its busiest: the server sets the new stream up while the program reads
/// and analyses the image and speaks its greeting. A stream that starts longer (twice the asked) rides
/// over them, and comes back to the asked once they pass without the sound running dry; the greeting
/// covers them, so the pen is rarely played then.
public struct BufferLength: Sendable, Equatable {
    /// The latency asked for (`play --latency`): never shorter than this.
    public let asked: Double
    /// The length kept now, in seconds.
    public private(set) var current: Double
    /// When the sound last ran dry or the length last changed.
    private var lastEvent: Double
    /// When the length last grew.
    private var lastGrowth: Double?

    /// How long without the sound running dry before the length is shortened a step.
    public static let quietBeforeShortening = 60.0
    /// Dropouts this soon after the length grew are the same trouble, before the longer buffer has filled.
    public static let settling = 1.0
    /// The longest, as a multiple of the asked latency.
    public static let longestMultiple = 4.0
    /// How long the start lasts, and how much longer the buffer is kept through it.
    public static let startLasts = 5.0
    public static let startMultiple = 2.0
    /// A wait for the server's request that uses more than this part of the buffer's margin is a near miss.
    public static let nearMiss = 2.0 / 3
    /// When the start ends, while the buffer is kept longer for it.
    private var startEnds: Double?

    /// - Parameter longerAtStart: keep the buffer `startMultiple` times the asked for the first `startLasts`
    ///   seconds.
    public init(asked: Double, now: Double, longerAtStart: Bool) {
        self.asked = asked
        current = longerAtStart ? asked * Self.startMultiple : asked
        lastEvent = now
        startEnds = longerAtStart ? now + Self.startLasts : nil
    }

    /// One step: half the asked latency.
    public var step: Double { asked / 2 }
    public var longest: Double { asked * Self.longestMultiple }

    /// The sound ran dry at `now`: the new length, when it grows.
    public mutating func ranDry(at now: Double) -> Double? {
        // Running dry even so: the machine needs the longer buffer, and keeps it as any grown one.
        startEnds = nil
        return grow(at: now)
    }

    /// The server's longest wait to ask for more since the last call used `part` of the buffer's margin
    /// (1: all of it, the sound ran dry): the new length when that was a near miss and it grows. In the start,
    /// one that would be a near miss for the asked (whose margin is about as much shorter as the buffer) keeps
    /// the start's length.
    public mutating func serverWaited(_ part: Double, at now: Double) -> Double? {
        if startEnds != nil, part * Self.startMultiple > Self.nearMiss {
            startEnds = nil
            lastEvent = now
        }
        guard part > Self.nearMiss else { return nil }
        return grow(at: now)
    }

    /// Grows a step at `now`, unless it grew within the settling time or is at its longest.
    private mutating func grow(at now: Double) -> Double? {
        lastEvent = now
        if let lastGrowth, now - lastGrowth < Self.settling { return nil }
        let grown = min(longest, current + step)
        guard grown > current else { return nil }
        current = grown
        lastGrowth = now
        return grown
    }

    /// The new length when the start has passed without the sound running dry (the asked), or a quiet
    /// minute has passed at `now` since the sound last ran dry or the length changed, and it is longer than
    /// asked.
    public mutating func quiet(at now: Double) -> Double? {
        if let startEnds {
            guard now >= startEnds else { return nil }
            self.startEnds = nil
            lastEvent = now
            current = asked
            return asked
        }
        guard current > asked, now - lastEvent >= Self.quietBeforeShortening else { return nil }
        current = max(asked, current - step)
        lastEvent = now
        return current
    }
}
