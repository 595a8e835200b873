import RealModule

/// One XInput2 valuator as the device describes it.
public struct Valuator: Sendable, Equatable {
    public var number: Int
    public var label: String
    public var minimum: Double
    public var maximum: Double
    /// Units per radian for tilt axes (the kernel's convention); 0 when the device reports none.
    public var resolution: Double

    public init(number: Int, label: String, minimum: Double, maximum: Double, resolution: Double) {
        self.number = number; self.label = label
        self.minimum = minimum; self.maximum = maximum; self.resolution = resolution
    }
}

/// The buttons held, as a bit set: bit n−1 is button n.
public struct PenButtons: Sendable, Equatable, Hashable {
    public var bits: UInt32
    public init(bits: UInt32 = 0) { self.bits = bits }

    public static let tip = 1
    public static let lowerBarrel = 2
    public static let upperBarrel = 3

    public func contains(_ button: Int) -> Bool { button >= 1 && button <= 32 && bits & (1 << (button - 1)) != 0 }
    public mutating func insert(_ button: Int) { if button >= 1 && button <= 32 { bits |= 1 << (button - 1) } }
    public mutating func remove(_ button: Int) { if button >= 1 && button <= 32 { bits &= ~(1 << (button - 1)) } }
    public var list: [Int] { (1...32).filter(contains) }
}

/// A pointing device's pressure and tilt axes, found by label and scaled by the reported range,
/// and the last value seen on each (drivers send only the axes that changed).
public struct PenDevice: Sendable {
    public static let pressureLabel = "Abs Pressure"
    public static let tiltXLabel = "Abs Tilt X"
    public static let tiltYLabel = "Abs Tilt Y"

    public let pressureAxis: Valuator?
    public let tiltXAxis: Valuator?
    public let tiltYAxis: Valuator?
    private var rawPressure: Double?
    private var rawTiltX: Double?
    private var rawTiltY: Double?

    public init(valuators: [Valuator]) {
        func axis(_ label: String) -> Valuator? {
            valuators.first { $0.label == label && $0.maximum > $0.minimum }
        }
        pressureAxis = axis(Self.pressureLabel)
        tiltXAxis = axis(Self.tiltXLabel)
        tiltYAxis = axis(Self.tiltYLabel)
    }

    public var hasPressure: Bool { pressureAxis != nil }

    /// Takes the valuator values an event carries (valuator number → raw value).
    public mutating func update(number: Int, value: Double) {
        if number == pressureAxis?.number { rawPressure = value }
        if number == tiltXAxis?.number { rawTiltX = value }
        if number == tiltYAxis?.number { rawTiltY = value }
    }

    /// Pressure 0...1. A device without a pressure axis (a mouse) presses fully while the tip button is held.
    public func pressure(buttons: PenButtons) -> Double {
        guard let axis = pressureAxis else { return buttons.contains(PenButtons.tip) ? 1 : 0 }
        guard let raw = rawPressure else { return 0 }
        return min(max((raw - axis.minimum) / (axis.maximum - axis.minimum), 0), 1)
    }

    public var tiltXDegrees: Double { Self.degrees(rawTiltX, axis: tiltXAxis) }
    public var tiltYDegrees: Double { Self.degrees(rawTiltY, axis: tiltYAxis) }

    /// Tilt in degrees: raw units over the reported units-per-radian when the device gives a
    /// resolution; otherwise the raw value is already in degrees. Clamped to the reported range.
    private static func degrees(_ raw: Double?, axis: Valuator?) -> Double {
        guard let raw, let axis else { return 0 }
        let clamped = min(max(raw, axis.minimum), axis.maximum)
        return axis.resolution > 0 ? clamped / axis.resolution * 180 / Double.pi : clamped
    }
}
