import RealModule

/// Turns a raw sample into a level in 0...1: `clamp((v − lo) / (hi − lo), 0, 1)`.
public struct LevelStretch: Sendable, Equatable {
    public let low: Double
    public let high: Double

    public init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    /// lo and hi are nearest-rank percentiles of all the image's samples.
    public init(statistics: SampleStatistics, lowPercentile: Double, highPercentile: Double) {
        self.init(low: Double(statistics.percentile(lowPercentile)),
                  high: Double(statistics.percentile(highPercentile)))
    }

    public func level(_ sample: UInt16) -> Double {
        // A flat image (hi == lo) has nothing to tell apart: everything is level 0.
        guard high > low else { return 0 }
        return min(max((Double(sample) - low) / (high - low), 0), 1)
    }
}

/// Level 0...1 to frequency: `base · 2^(octaves · level)`, continuous.
public struct PitchMap: Sendable, Equatable {
    public let baseFrequency: Double
    public let octaves: Double

    public init(baseFrequency: Double, octaves: Double) {
        self.baseFrequency = baseFrequency
        self.octaves = octaves
    }

    public func frequency(level: Double) -> Double {
        baseFrequency * Double.exp2(octaves * level)
    }
}
