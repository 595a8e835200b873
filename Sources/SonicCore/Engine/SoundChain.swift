/// What the instrument is made of: oscillators mixed into one voice, then effects in order,
/// then a soft limiter. Read from a profile; the default is one plain sine.
public struct SoundChain: Sendable, Equatable {
    public struct Oscillator: Sendable, Equatable {
        public enum Waveform: String, Sendable, CaseIterable { case sine, square }
        /// The carrier's frequency as a multiple of the pitch the controller asks for.
        public static let ratioDef = ParameterDef("ratio", default: 1, range: 0.01...16)

        public var waveform: Waveform
        /// `ratioDef`.
        public var ratio: Double
        /// `FMOscillator.modulatorRatioDef`.
        public var modulatorRatio: Double
        /// `FMOscillator.indexDef`.
        public var index: Double
        /// `OscillatorParameters.levelDef`.
        public var level: Double

        /// `modulatorRatio` and `index` are for the sine (FM) waveform.
        public init(
            waveform: Waveform = .sine, ratio: Double = SoundChain.Oscillator.ratioDef.defaultValue,
            modulatorRatio: Double = FMOscillator.modulatorRatioDef.defaultValue,
            index: Double = FMOscillator.indexDef.defaultValue,
            level: Double = OscillatorParameters.levelDef.defaultValue
        ) {
            self.waveform = waveform
            self.ratio = ratio; self.modulatorRatio = modulatorRatio; self.index = index; self.level = level
        }
    }

    public enum Effect: Sendable, Equatable {
        /// Echoes `time` seconds apart, each `feedback` times the last; `mix` 0 dry … 1 echoes only.
        case delay(time: Double, feedback: Double, mix: Double)
        /// Costello reverb; `mix` crossfades from its input (0) to the reverberation (1).
        case reverb(feedback: Double, cutoff: Double, mix: Double)
        /// Moog ladder low-pass: −3 dB point in Hz and resonance 0…1.
        case ladder(cutoff: Double, resonance: Double)

        public var name: String {
            switch self {
            case .delay: "delay"
            case .reverb: "reverb"
            case .ladder: "ladder"
            }
        }
    }

    public var oscillators: [Oscillator]
    public var effects: [Effect]
    /// Whether the voice goes through an equal-power panner (centred unless the controller pans it).
    public var panned = false
    /// Whether the controller's cutoff and resonance drive a ladder: the last of the effects, or, with none among
    /// them, one after them.
    public var filtered = false
    /// Seconds each note lasts when the controller plays notes rather than a continuous tone.
    public var noteLength: Double?
    public var limiterThreshold: Double
    /// Peak level of the soft tick heard where the pen crosses a unit cell's boundary (0: none).
    public var tickLevel = Tick.levelDef.defaultValue
    /// Seconds every parameter change glides over.
    public var glideTime: Double
    /// Seconds a sweep of the image, or of a row or column of it, takes.
    public var sweepLength = ImageSweep.lengthDef.defaultValue
    /// Peak level of the soft pulse heard during a long wait (0: none).
    public var waitingLevel = WaitingPulse.levelDef.defaultValue

    public init(
        oscillators: [Oscillator] = [Oscillator()], effects: [Effect] = [],
        limiterThreshold: Double = SoftLimiter.thresholdDef.defaultValue, glideTime: Double = 0.005
    ) {
        self.oscillators = oscillators; self.effects = effects
        self.limiterThreshold = limiterThreshold; self.glideTime = glideTime
    }

    public static let plainTone = SoundChain()
}
