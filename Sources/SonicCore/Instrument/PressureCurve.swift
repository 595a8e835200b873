/// A pressure response curve like xsetwacom's PressureCurve: a cubic Bézier from (0, 0) to (1, 1)
/// with two control points. (x1, y1) = (0, 0) and (x2, y2) = (1, 1) is linear; control points above
/// the diagonal make a light touch louder, below it softer.
public struct PressureCurve: Sendable, Equatable {
    public let x1: Double, y1: Double, x2: Double, y2: Double

    /// Control-point coordinates are clamped to 0...1, which keeps the curve a function of x.
    public init(x1: Double, y1: Double, x2: Double, y2: Double) {
        func unit(_ v: Double) -> Double { min(max(v, 0), 1) }
        self.x1 = unit(x1); self.y1 = unit(y1); self.x2 = unit(x2); self.y2 = unit(y2)
    }

    public static let linear = PressureCurve(x1: 0, y1: 0, x2: 1, y2: 1)

    /// The curve's height at `x` (0...1).
    public func callAsFunction(_ x: Double) -> Double {
        // The ends exactly: silence at the threshold means silence.
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        // x(t) rises monotonically for control x's in 0...1: bisection finds t to 1e-12 in 40 steps.
        var low = 0.0, high = 1.0
        for _ in 0..<40 {
            let t = (low + high) / 2
            if Self.bezier(t, x1, x2) < x { low = t } else { high = t }
        }
        return Self.bezier((low + high) / 2, y1, y2)
    }

    /// One coordinate of the Bézier with end points 0 and 1 and control values a, b.
    static func bezier(_ t: Double, _ a: Double, _ b: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
    }
}
