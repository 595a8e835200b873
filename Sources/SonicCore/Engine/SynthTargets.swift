/// What the controller asks of the sound engine at one moment.
public struct SynthTargets: Sendable, Equatable {
    /// Pitch in Hz; 0 keeps the last pitch (e.g. while fading out).
    public var frequency: Double
    /// Loudness 0...1.
    public var amplitude: Double
    /// The (last) ladder's cutoff in Hz and resonance, each held to the ladder's range; nil leaves the profile's.
    public var cutoff: Double?
    public var resonance: Double?
    /// Stereo position −1...1 (for chains with a panner).
    public var pan: Double
    /// FM index for every oscillator; nil leaves each its own.
    public var timbre: Double?
    /// For chains that play notes: a new number starts a new note.
    public var note: Int
    /// The guide to a chosen place, whatever the pen sounds.
    public var guide: GuideTone
    /// The spectrum bank's level (0...1): 1 while the pen plays a spectrum, which the bank sounds instead of the
    /// oscillators.
    public var spectrum: Double

    public init(
        frequency: Double = 0, amplitude: Double = 0, cutoff: Double? = nil, resonance: Double? = nil,
        pan: Double = 0, timbre: Double? = nil, note: Int = 0, guide: GuideTone = .silent, spectrum: Double = 0
    ) {
        self.frequency = frequency; self.amplitude = amplitude; self.cutoff = cutoff
        self.resonance = resonance; self.pan = pan; self.timbre = timbre; self.note = note; self.guide = guide
        self.spectrum = spectrum
    }

    public static let silent = SynthTargets()
}

/// What the guide's beeps say (`GuideBeeps`): how often (how near), how high (above or below) and where (left or
/// right); on arrival, a quiet cue of its own.
public struct GuideTone: Sendable, Equatable {
    /// Beeps a second; 0: none.
    public var rate: Double
    public var frequency: Double
    /// −1 left … 1 right.
    public var pan: Double
    /// A share of the beeps' level, 0–1.
    public var loudness: Double

    public init(rate: Double, frequency: Double, pan: Double, loudness: Double = 1) {
        self.rate = rate; self.frequency = frequency; self.pan = pan; self.loudness = loudness
    }

    public static let silent = GuideTone(rate: 0, frequency: GuideBeeps.frequencyDef.defaultValue, pan: 0)
    /// While the nib stays on the place: slow, high, in the middle and quiet — unlike any beep that leads there, so
    /// being on the feature and next door to it sound different.
    public static let arrived = GuideTone(rate: 2, frequency: 3000, pan: 0, loudness: 0.35)
}
