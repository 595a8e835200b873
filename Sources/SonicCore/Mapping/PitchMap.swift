import RealModule

/// Level 0...1 (or the raw sample) to frequency.
public struct PitchMap: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        /// base · 2^(octaves · level): equal steps of level are equal musical intervals.
        case exponential
        /// base + (top − base) · level, top = base · 2^octaves: equal steps are equal hertz.
        case linear
        /// raw sample / divisor hertz, ignoring the level (the prototype's mapping).
        case sample(divisor: Double)
    }

    /// Notes to snap to, as semitones above the base frequency within an octave.
    public enum Scale: String, Sendable, CaseIterable {
        case continuous, chromatic, major, pentatonic

        var degrees: [Int]? {
            switch self {
            case .continuous: nil
            case .chromatic: Array(0..<12)
            case .major: [0, 2, 4, 5, 7, 9, 11]
            case .pentatonic: [0, 2, 4, 7, 9]
            }
        }
    }

    public static let lowestAudible = 20.0

    public let baseFrequency: Double
    public let octaves: Double
    public let shape: Shape
    public let scale: Scale

    public init(baseFrequency: Double, octaves: Double, shape: Shape = .exponential, scale: Scale = .continuous) {
        self.baseFrequency = baseFrequency
        self.octaves = octaves
        self.shape = shape
        self.scale = scale
    }

    public func frequency(level: Double, sample: Double = 0) -> Double {
        let raw =
            switch shape {
            case .exponential: baseFrequency * Double.exp2(octaves * level)
            case .linear: baseFrequency + (baseFrequency * Double.exp2(octaves) - baseFrequency) * level
            case .sample(let divisor): max(Self.lowestAudible, sample / divisor)
            }
        return quantized(raw)
    }

    /// The nearest note of the scale, counted from the base frequency (as the tonic) in equal temperament.
    public func quantized(_ frequency: Double) -> Double {
        guard let degrees = scale.degrees else { return frequency }
        let semitones = 12 * Double.log2(frequency / baseFrequency)
        let octave = (semitones / 12).rounded(.down)
        let within = semitones - 12 * octave
        // The candidates include the next octave's tonic, so 11.6 semitones can round up to 12.
        let nearest = (degrees + [12]).min { abs(Double($0) - within) < abs(Double($1) - within) }!
        return baseFrequency * Double.exp2(octave + Double(nearest) / 12)
    }
}
