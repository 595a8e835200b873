/// Cheap, accurate-enough math for the per-sample loops, where libm calls would cost the budget.
enum FastMath {
    /// sin(2π·phase) for any finite phase (in cycles). Error below 6e-8 (−144 dB).
    @inline(__always)
    static func sine(cycles phase: Double) -> Float {
        // Fold the cycle into a triangle x in −1...1 with sin(2π·phase) = sin(π/2·x).
        let shifted = 4 * phase + 1
        let folded = shifted - 4 * (shifted * 0.25).rounded(.down)
        let x = 1 - abs(folded - 2)
        let x2 = x * x
        // Taylor series of sin(π/2·x) to x¹¹.
        let p = 1.5707963267948966 + x2 * (-0.6459640975062462 + x2 * (0.07969262624616703
            + x2 * (-0.004681754135318687 + x2 * (1.6044118478735982e-4 + x2 * -3.598843235212085e-6))))
        return Float(x * p)
    }

    /// A smooth saturator close to tanh: exact slope 1 at 0, reaches ±1 at ±3 and stays there.
    @inline(__always)
    static func saturate(_ x: Float) -> Float {
        let c = min(max(x, -3), 3)
        let c2 = c * c
        return c * (27 + c2) / (27 + 9 * c2)
    }

    /// Below this a value in a decaying feedback loop is inaudible; zeroing it keeps the FPU away
    /// from subnormal numbers, which are up to a hundred times slower.
    static let silenceFloor: Float = 1e-20

    @inline(__always)
    static func flushed(_ x: Float) -> Float { abs(x) < silenceFloor ? 0 : x }
}
