import Synchronization

/// The synth's targets, written by the controller and read by the audio thread without locks.
public final class SynthControls: Sendable {
    private let frequencyBits = Atomic<UInt64>(0)
    private let amplitudeBits = Atomic<UInt64>(0)

    public init() {}

    public func set(frequency: Double, amplitude: Double) {
        frequencyBits.store(frequency.bitPattern, ordering: .relaxed)
        amplitudeBits.store(amplitude.bitPattern, ordering: .relaxed)
    }

    public var frequency: Double { Double(bitPattern: frequencyBits.load(ordering: .relaxed)) }
    public var amplitude: Double { Double(bitPattern: amplitudeBits.load(ordering: .relaxed)) }
}
