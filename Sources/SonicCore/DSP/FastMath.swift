/// Cheap, accurate-enough math for the per-sample loops, where libm calls would cost the budget.
enum FastMath {
    /// sin(2π·phase) for phases within ±10¹⁴ cycles. Error below 6e-8 (−144 dB).
    @inline(__always)
    static func sine(cycles phase: Double) -> Float {
        // Fold the cycle into a triangle x in −1...1 with sin(2π·phase) = sin(π/2·x):
        // with s = 4·phase + 1 and m = s − 4·round(s/4) in −2...2, x = |m| − 1.
        let shifted = 4 * phase + 1
        let x = abs(shifted - 4 * nearestInteger(shifted * 0.25)) - 1
        let x2 = x * x
        // Taylor series of sin(π/2·x) to x¹¹.
        let p =
            1.5707963267948966 + x2
            * (-0.6459640975062462 + x2
                * (0.07969262624616703
                    + x2 * (-0.004681754135318687 + x2 * (1.6044118478735982e-4 + x2 * -3.598843235212085e-6))))
        return Float(x * p)
    }

    /// The nearest whole number (ties to even) for |v| < 2⁵¹: adding and subtracting 1.5·2⁵² rounds
    /// in the FPU's default mode — two additions, where rounded() is a library call on baseline x86-64.
    @inline(__always)
    static func nearestInteger(_ v: Double) -> Double {
        let magic = 6_755_399_441_055_744.0
        return (v + magic) - magic
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
