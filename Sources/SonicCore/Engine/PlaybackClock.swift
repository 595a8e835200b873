/// When the frames written to a sound server's buffer will be played, and so which changes are due
/// at each, for an output that writes as the server asks rather than in a graph's cycles (PulseAudio).
/// Each write reports how long until its first frame is played (the stream's timing information,
/// interpolated between the server's reports and so each a little off); frames follow one another at
/// the sample rate, so the clock keeps one origin — when the stream's first frame was played —
/// smoothed over the reports, and starts afresh when the stream ran dry and started again later.
public struct PlaybackClock: Sendable {
    public let sampleRate: Double
    /// A change asked for at t sounds when the frames of t + delay are played: long enough that every
    /// change is in hand when those frames are written. Set to the server's buffer and
    /// `ChangeTiming.margin` as the stream opens, it grows to cover the furthest ahead of its playing
    /// a frame has been written (the buffer, and whatever latency the sink adds) and the margin.
    public var delay = 0.0
    /// Frames written so far.
    public var framesWritten = 0
    private var origin: Double?
    /// A report further than this from the origin means the stream restarted.
    static let restartThreshold = 0.002
    /// Each report moves the origin this share of the way to it.
    static let smoothing = 1.0 / 64

    public init(sampleRate: Double) { self.sampleRate = sampleRate }

    /// The moment whose changes are due at the next frame written, given the time now, how long
    /// until that frame is played, and how many frames are to be written now.
    public mutating func nextFrameTime(now: Double, lead: Double, frames: Int) -> Double {
        let written = Double(framesWritten) / sampleRate
        let measured = now + lead - written
        if let origin, abs(measured - origin) < Self.restartThreshold {
            self.origin = origin + (measured - origin) * Self.smoothing
        } else {
            origin = measured
        }
        // The last of these frames plays this long from now: a change asked for now must be due later.
        let ahead = origin! + written + Double(frames) / sampleRate - now
        delay = max(delay, ahead + ChangeTiming.margin)
        return origin! + written - delay
    }
}
