/// One parameter of a sound unit, declared once beside the unit as AudioKit's `NodeParameterDef` declares a node's:
/// its name, the value it has unless told otherwise, the values it takes and what it is measured in. The unit clamps
/// to the range, and a profile key that sets the parameter takes its default, range and unit from here.
public struct ParameterDef: Sendable {
    public let name: String
    public let defaultValue: Double
    /// Values beyond it are clamped to it.
    public let range: ClosedRange<Double>
    public let unit: ParameterUnit
    /// For a frequency: the highest, as a share of the sample rate, that the unit can make or follow at any rate (half
    /// for an oscillator, the Nyquist frequency; less for a filter, whose tuning runs away near it).
    public let sampleRateShare: Double?

    public init(
        _ name: String, default defaultValue: Double, range: ClosedRange<Double>, unit: ParameterUnit = .generic,
        sampleRateShare: Double? = nil
    ) {
        precondition(range.contains(defaultValue), "\(name)'s default is outside its range")
        self.name = name; self.defaultValue = defaultValue; self.range = range; self.unit = unit
        self.sampleRateShare = sampleRateShare
    }

    /// The values it takes at `sampleRate`.
    public func range(sampleRate: Double) -> ClosedRange<Double> {
        guard let sampleRateShare else { return range }
        return range.lowerBound...max(range.lowerBound, min(range.upperBound, sampleRateShare * sampleRate))
    }

    /// `value` held to the range: for a parameter fixed when the unit is made (a ramp clamps its own targets).
    public func clamped(_ value: Double) -> Double { min(max(value, range.lowerBound), range.upperBound) }
}

/// What a parameter is measured in.
public enum ParameterUnit: Sendable {
    /// A plain number: a ratio, a gain, a share.
    case generic
    case hertz
    case seconds

    /// The unit as written after a number; none for a plain number.
    public var symbol: String? {
        switch self {
        case .generic: nil
        case .hertz: "Hz"
        case .seconds: "s"
        }
    }
}
