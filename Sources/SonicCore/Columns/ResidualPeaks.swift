import RealModule

/// Where a fitted model of a region leaves a column out: the maxima of its residual (data minus model) under a
/// matched filter, the columns' own Gaussian.
///
/// A column the model lacks need not be a maximum of the image: a weak one on the flanks of strong neighbours is a
/// bump on a slope. With the strong columns fitted and subtracted it stands alone. The filter's value at a pixel is
/// the least-squares height of a column of width σ centred there (on a flat residual), with standard error
/// noise / √Σg², so its maxima can be judged against the noise directly.
enum ResidualPeaks {
    struct Peak: Sendable, Equatable {
        /// Sub-pixel position, in the residual's own pixel coordinates.
        var x: Double, y: Double
        var height: Double
    }

    /// Maxima within `suppression` pixels whose height is at least `minimumHeight` and `significance` standard
    /// errors, in row-major order.
    static func find(
        in residual: [Double], width: Int, height: Int, sigma: Double, noise: Double,
        minimumHeight: Double, significance: Double, suppression: Double
    ) -> [Peak] {
        guard width > 0 && height > 0 && residual.count == width * height && sigma > 0 else { return [] }
        let reach = max(1, Int((3 * sigma).rounded(.up)))
        let kernel = (-reach...reach).map { o in Double.exp(-Double(o * o) / (2 * sigma * sigma)) }
        // Σg² of the kernel's part inside the region, per column and per row: the filter is separable, so its
        // truncated energy is too.
        func energies(_ count: Int) -> [Double] {
            (0..<count).map { i in
                (-reach...reach).reduce(0.0) { sum, o in
                    (0..<count).contains(i + o) ? sum + kernel[o + reach] * kernel[o + reach] : sum
                }
            }
        }
        let energyX = energies(width), energyY = energies(height)
        var rows = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for o in max(-reach, -x)...min(reach, width - 1 - x) {
                    sum += kernel[o + reach] * residual[y * width + x + o]
                }
                rows[y * width + x] = sum
            }
        }
        var filtered = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0.0
                for o in max(-reach, -y)...min(reach, height - 1 - y) {
                    sum += kernel[o + reach] * rows[(y + o) * width + x]
                }
                filtered[y * width + x] = sum / (energyX[x] * energyY[y])
            }
        }
        let disc = SuppressionDisc(radius: suppression)
        var peaks: [Peak] = []
        filtered.withUnsafeBufferPointer { f in
            for y in 0..<height {
                for x in 0..<width {
                    let index = y * width + x
                    let error = noise / (energyX[x] * energyY[y]).squareRoot()
                    guard f[index] >= minimumHeight && f[index] >= significance * error,
                        disc.isMaximum(f, index: index, x: x, y: y, width: width, xs: 0..<width, ys: 0..<height)
                    else { continue }
                    let at = SuppressionDisc.vertex(
                        f, index: index, x: x, y: y, width: width, xs: 0..<width, ys: 0..<height)
                    peaks.append(Peak(x: at.x, y: at.y, height: f[index]))
                }
            }
        }
        return peaks
    }
}
