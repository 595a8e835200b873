import Synchronization

/// The synth's targets, written by the controller and read by the audio thread without locks.
public final class SynthControls: Sendable {
    private let frequencyBits = Atomic<UInt64>(0)
    private let amplitudeBits = Atomic<UInt64>(0)
    private let cutoffBits = Atomic<UInt64>(0)

    public init() {}

    /// Pitch in Hz (0 keeps the last pitch, e.g. while fading out) and loudness 0...1.
    public func set(frequency: Double, amplitude: Double) {
        frequencyBits.store(frequency.bitPattern, ordering: .relaxed)
        amplitudeBits.store(amplitude.bitPattern, ordering: .relaxed)
    }

    /// The ladder filter's cutoff in Hz; 0 leaves the profile's own.
    public func set(cutoff: Double) {
        cutoffBits.store(cutoff.bitPattern, ordering: .relaxed)
    }

    public var frequency: Double { Double(bitPattern: frequencyBits.load(ordering: .relaxed)) }
    public var amplitude: Double { Double(bitPattern: amplitudeBits.load(ordering: .relaxed)) }
    public var cutoff: Double { Double(bitPattern: cutoffBits.load(ordering: .relaxed)) }
}
