import RealModule

/// A spectrum as a timbre: an additive bank of `bands` sines, evenly in octaves from `lowest` to `highest`, each at
/// the amplitude its band of the spectrum is given (`SpectrumTimbre`), added to both channels. A new spectrum
/// crossfades from the last: every band glides in a straight line to its new amplitude over `crossfade`; the whole
/// bank comes in and goes over the pen's glide (`gain`), so nothing clicks.
public final class SpectrumBank: SoundUnit {
    /// Bands of the spectrum the ear tells apart, each a sine.
    public static let bands = 48
    /// The lowest band's sine lies a half band above `lowest`, the highest a half band below `highest`.
    public static let lowestDef = ParameterDef("lowest", default: 100, range: 20...1000, unit: .hertz)
    public static let highestDef = ParameterDef(
        "highest", default: 5000, range: 1000...20000, unit: .hertz, sampleRateShare: 0.5)
    /// How long one spectrum takes to turn into the next.
    public static let crossfadeDef = ParameterDef("crossfade", default: 0.03, range: 0.001...1, unit: .seconds)
    /// The whole bank's level: 1 while the pen plays a spectrum, 0 otherwise.
    public static let gainDef = ParameterDef("gain", default: 0, range: 0...1)
    /// A band's amplitude.
    public static let amplitudeDef = ParameterDef("amplitude", default: 0, range: 0...1)

    public let sampleRate: Double
    public var gain: LinearRamp
    private let crossfadeFrames: Int
    /// Per band: the phase in cycles, its step per frame, the amplitude now, its change per frame and where it goes.
    private let phases: UnsafeMutablePointer<Double>
    private let increments: UnsafeMutablePointer<Double>
    private let levels: UnsafeMutablePointer<Double>
    private let slopes: UnsafeMutablePointer<Double>
    private let targets: UnsafeMutablePointer<Double>
    /// Frames left of the crossfade under way.
    private var crossfadeLeft = 0

    public init(
        sampleRate: Double, rampSamples: Int, crossfade: Double = SpectrumBank.crossfadeDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        gain = LinearRamp(value: Self.gainDef.defaultValue, duration: max(1, rampSamples), range: Self.gainDef.range)
        crossfadeFrames = max(1, Int((Self.crossfadeDef.clamped(crossfade) * sampleRate).rounded()))
        let bands = Self.bands
        phases = .allocate(capacity: bands)
        increments = .allocate(capacity: bands)
        levels = .allocate(capacity: bands)
        slopes = .allocate(capacity: bands)
        targets = .allocate(capacity: bands)
        let highest = Self.highestDef.range(sampleRate: sampleRate).upperBound
        for b in 0..<bands {
            increments[b] = min(Self.frequency(band: b), highest) / sampleRate
            levels[b] = 0
            slopes[b] = 0
            targets[b] = 0
        }
        resetPhases()
    }

    deinit {
        phases.deallocate(); increments.deallocate(); levels.deallocate(); slopes.deallocate()
        targets.deallocate()
    }

    /// Band `band`'s pitch: the middle, in octaves, of its share of `lowest`…`highest`.
    public static func frequency(band: Int) -> Double {
        let lowest = lowestDef.defaultValue, highest = highestDef.defaultValue
        return lowest * Double.pow(highest / lowest, (Double(band) + 0.5) / Double(bands))
    }

    /// Each band glides to its amplitude in `amplitudes` (`bands` values, lowest band first) over the crossfade;
    /// values beyond the amplitude's range are clamped, non-finite ones are silence.
    public func setAmplitudes(_ amplitudes: UnsafePointer<Float>) {
        for b in 0..<Self.bands {
            let value = Double(amplitudes[b])
            targets[b] = value.isFinite ? Self.amplitudeDef.clamped(value) : 0
            slopes[b] = (targets[b] - levels[b]) / Double(crossfadeFrames)
        }
        crossfadeLeft = crossfadeFrames
    }

    /// The amplitude band `band` plays now.
    public func amplitude(band: Int) -> Double { levels[band] }

    public func process(_ audio: StereoBuffer, frames: Int) {
        guard gain.value != 0 || gain.isGliding else {
            // Unheard: the crossfade ends at once, and the next sound starts from the same phases, live or rendered.
            if crossfadeLeft > 0 { finishCrossfade() }
            resetPhases()
            return
        }
        for i in 0..<frames {
            var sum = 0.0
            for b in 0..<Self.bands {
                sum += levels[b] * Double(FastMath.sine(cycles: phases[b]))
                phases[b] += increments[b]
                if phases[b] >= 1 { phases[b] -= 1 }
            }
            if crossfadeLeft > 0 {
                crossfadeLeft -= 1
                if crossfadeLeft == 0 {
                    finishCrossfade()
                } else {
                    for b in 0..<Self.bands { levels[b] += slopes[b] }
                }
            }
            let sample = Float(sum * gain.next())
            audio.left[i] += sample
            audio.right[i] += sample
        }
    }

    /// Every band lands exactly on its amplitude.
    private func finishCrossfade() {
        for b in 0..<Self.bands {
            levels[b] = targets[b]
            slopes[b] = 0
        }
        crossfadeLeft = 0
    }

    /// Phases spread by the golden ratio, so the bands seldom peak together.
    private func resetPhases() {
        for b in 0..<Self.bands {
            let spread = Double(b) * 0.618_033_988_749_895
            phases[b] = spread - spread.rounded(.down)
        }
    }
}
