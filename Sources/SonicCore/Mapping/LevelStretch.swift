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

    /// low and high are nearest-rank percentiles of all the image's samples, high raised by `headroom` times the span
    /// between them: what is brighter than the image's usual brightest (a heavier column among a lattice's) is then
    /// still told apart.
    public init(
        statistics: SampleStatistics, lowPercentile: Double, highPercentile: Double, headroom: Double = 0,
        curve: Curve = .linear, inverted: Bool = false
    ) {
        let low = statistics.percentile(lowPercentile), high = statistics.percentile(highPercentile)
        self.init(low: low, high: high + max(0, headroom) * (high - low), curve: curve, inverted: inverted)
    }

    /// The level of a (possibly interpolated) sample value.
    public func level(value: Double) -> Double {
        // A flat image (high == low) has nothing to tell apart: everything is level 0 (1 inverted).
        let t = high > low ? min(max((value - low) / (high - low), 0), 1) : 0
        let shaped =
            switch curve {
            case .linear: t
            // As in astronomical display tools: log(1 + 1000 t) / log(1001), asinh(10 t) / asinh(10).
            case .log: Double.log(onePlus: 1000 * t) / Double.log(1001)
            case .sqrt: t.squareRoot()
            case .asinh: Double.asinh(10 * t) / Double.asinh(10)
            }
        return inverted ? 1 - shaped : shaped
    }
}
