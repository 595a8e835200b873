import RealModule

/// SplitMix64: a small, fast generator whose sequence depends only on its seed,
/// so generated images are identical on every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1]: never 0, so it is safe under a logarithm.
    public mutating func unitInterval() -> Double {
        Double((next() >> 11) + 1) / Double(1 << 53)
    }

    /// Standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u = unitInterval(), v = unitInterval()
        return (-2 * Double.log(u)).squareRoot() * Double.cos(2 * Double.pi * v)
    }

    /// Poisson deviate with mean `lambda`: exact for small means, normal approximation for large ones.
    public mutating func poisson(_ lambda: Double) -> Double {
        guard lambda > 0 else { return 0 }
        if lambda > 64 { return max(0, (lambda + lambda.squareRoot() * gaussian()).rounded()) }
        let limit = Double.exp(-lambda)
        var k = 0.0, p = unitInterval()
        while p > limit { k += 1; p *= unitInterval() }
        return k
    }
}
