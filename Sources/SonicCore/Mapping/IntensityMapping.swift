import RealModule

/// Turns a raw sample into a level in 0...1: first `t = clamp((v − low) / (high − low), 0, 1)`,
/// then a curve that spends more of the range on the dark end (log, sqrt, asinh) or none (linear),
/// then, if inverted, `1 − level` (dark becomes high).
public struct LevelStretch: Sendable, Equatable {
    public enum Curve: String, Sendable, CaseIterable {
        case linear, log, sqrt, asinh
    }

    public let low: Double
    public let high: Double
    public let curve: Curve
    public let inverted: Bool

    public init(low: Double, high: Double, curve: Curve = .linear, inverted: Bool = false) {
        self.low = low
        self.high = high
        self.curve = curve
        self.inverted = inverted
    }

    /// low and high are nearest-rank percentiles of all the image's samples.
    public init(statistics: SampleStatistics, lowPercentile: Double, highPercentile: Double,
                curve: Curve = .linear, inverted: Bool = false) {
        self.init(low: statistics.percentile(lowPercentile), high: statistics.percentile(highPercentile),
                  curve: curve, inverted: inverted)
    }

    /// The level of a (possibly interpolated) sample value.
    public func level(value: Double) -> Double {
        // A flat image (high == low) has nothing to tell apart: everything is level 0 (1 inverted).
        let t = high > low ? min(max((value - low) / (high - low), 0), 1) : 0
        let shaped = switch curve {
        case .linear: t
        // As in astronomical display tools: log(1 + 1000 t) / log(1001), asinh(10 t) / asinh(10).
        case .log: Double.log(onePlus: 1000 * t) / Double.log(1001)
        case .sqrt: t.squareRoot()
        case .asinh: Double.asinh(10 * t) / Double.asinh(10)
        }
        return inverted ? 1 - shaped : shaped
    }
}

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
        let raw = switch shape {
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
