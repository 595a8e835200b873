import Synchronization

/// What the controller asks of the sound engine at one moment.
public struct SynthTargets: Sendable, Equatable {
    /// Pitch in Hz; 0 keeps the last pitch (e.g. while fading out).
    public var frequency: Double
    /// Loudness 0...1.
    public var amplitude: Double
    /// The (last) ladder's cutoff in Hz and resonance 0...1; nil leaves the profile's.
    public var cutoff: Double?
    public var resonance: Double?
    /// Stereo position −1...1 (for chains with a panner).
    public var pan: Double
    /// FM index for every oscillator; nil leaves each its own.
    public var timbre: Double?
    /// For chains that play notes: a new number starts a new note.
    public var note: Int

    public init(
        frequency: Double = 0, amplitude: Double = 0, cutoff: Double? = nil, resonance: Double? = nil,
        pan: Double = 0, timbre: Double? = nil, note: Int = 0
    ) {
        self.frequency = frequency; self.amplitude = amplitude; self.cutoff = cutoff
        self.resonance = resonance; self.pan = pan; self.timbre = timbre; self.note = note
    }

    public static let silent = SynthTargets()
}

/// The synth's targets, written by the controller and read by the audio thread without locks.
/// Each field is its own atomic; a reader may see one update's pitch with the previous update's
/// loudness for one block, which the ramps smooth over.
public final class SynthControls: Sendable {
    private let frequency = Atomic<UInt64>(0)
    private let amplitude = Atomic<UInt64>(0)
    private let cutoff = Atomic<UInt64>(Double.nan.bitPattern)
    private let resonance = Atomic<UInt64>(Double.nan.bitPattern)
    private let pan = Atomic<UInt64>(0)
    private let timbre = Atomic<UInt64>(Double.nan.bitPattern)
    private let note = Atomic<Int>(0)
    private let ticks = Atomic<Int>(0)

    public init() {}

    /// Asks for one soft tick (a cell boundary crossed); the engine sounds each one asked for.
    public func tick() { ticks.add(1, ordering: .relaxed) }

    /// How many ticks have been asked for so far.
    public var tickCount: Int { ticks.load(ordering: .relaxed) }

    public func set(_ targets: SynthTargets) {
        frequency.store(targets.frequency.bitPattern, ordering: .relaxed)
        amplitude.store(targets.amplitude.bitPattern, ordering: .relaxed)
        // nil travels as NaN.
        cutoff.store((targets.cutoff ?? .nan).bitPattern, ordering: .relaxed)
        resonance.store((targets.resonance ?? .nan).bitPattern, ordering: .relaxed)
        pan.store(targets.pan.bitPattern, ordering: .relaxed)
        timbre.store((targets.timbre ?? .nan).bitPattern, ordering: .relaxed)
        note.store(targets.note, ordering: .relaxed)
    }

    public var targets: SynthTargets {
        func load(_ a: borrowing Atomic<UInt64>) -> Double { Double(bitPattern: a.load(ordering: .relaxed)) }
        func optional(_ v: Double) -> Double? { v.isNaN ? nil : v }
        return SynthTargets(
            frequency: load(frequency), amplitude: load(amplitude), cutoff: optional(load(cutoff)),
            resonance: optional(load(resonance)), pan: load(pan), timbre: optional(load(timbre)),
            note: note.load(ordering: .relaxed))
    }
}
