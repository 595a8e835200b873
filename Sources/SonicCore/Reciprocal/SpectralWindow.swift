import RealModule

/// The four-term Blackman–Harris window, which tapers an image smoothly to zero at its edges before its Fourier
/// transform, so the edges make no streaks. Its side lobes lie 92 dB below its main lobe: a reflection of a large,
/// clean image stands up to about 100 dB above the noise, and a Hann window's side lobes (31 dB down) would stand
/// out as reflections of their own.
struct SpectralWindow: Sendable {
    /// The weights of 1, cos(2π(n − c)/N), cos(4π(n − c)/N) and cos(6π(n − c)/N) about the window's middle c.
    static let coefficients = [0.358_75, 0.488_29, 0.141_28, 0.011_68]
    /// How far the main lobe reaches either side of its peak, in frequency steps of the window's own length.
    static let mainLobeHalfWidth = 4.0

    let count: Int
    /// The window's value at each of its `count` pixels.
    let values: [Double]

    init(count: Int) {
        self.count = count
        let middle = Double(count - 1) / 2
        values = (0..<count).map { n in
            Self.coefficients.enumerated().reduce(0) { sum, term in
                sum + term.element
                    * Double.cos(2 * Double.pi * Double(term.offset) * (Double(n) - middle) / Double(count))
            }
        }
    }

    /// The window's Fourier transform at `frequency` cycles per pixel, its phase taken about its middle (so real, the
    /// window being symmetric): a sum of Dirichlet kernels shifted by the cosines' frequencies.
    func response(_ frequency: Double) -> Double {
        var sum = 0.0
        for (j, weight) in Self.coefficients.enumerated() {
            let shift = Double(j) / Double(count)
            sum +=
                j == 0
                ? weight * dirichlet(frequency)
                : weight / 2 * (dirichlet(frequency - shift) + dirichlet(frequency + shift))
        }
        return sum
    }

    /// Σ exp(−2πiν(n − c)) over the window's pixels: sin(πνN) / sin(πν), N at ν = 0.
    private func dirichlet(_ frequency: Double) -> Double {
        let denominator = Double.sin(Double.pi * frequency)
        guard abs(denominator) > 1e-12 else { return Double(count) }
        return Double.sin(Double.pi * frequency * Double(count)) / denominator
    }
}
