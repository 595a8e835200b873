import RealModule

/// A phase-continuous sine: changing the frequency never breaks the waveform.
public struct SineOscillator: Sendable {
    public let sampleRate: Double
    /// Position in the cycle, 0..<1.
    private var phase = 0.0

    public init(sampleRate: Double) { self.sampleRate = sampleRate }

    @inline(__always)
    public mutating func next(frequency: Double) -> Double {
        let out = Double.sin(2 * Double.pi * phase)
        phase += frequency / sampleRate
        phase -= phase.rounded(.down)
        return out
    }
}
