import RealModule

/// Whether an X-ray line below `limit` stands above the continuum under it, where the detector's absorption makes the
/// continuum rise from nothing and bend over within a few line widths, so that a quadratic continuum cannot follow
/// it.
///
/// The line, a Gaussian of its width at its energy, is fitted jointly with the continuum over the channels within
/// 2.5 line widths of it (weighted least squares, the weights the counts' Poisson variances). The continuum there is
/// Kramers' 1/E times the detector's window absorption exp(−(Ea/E)³) times a quadratic in energy; Ea is the one of a
/// grid from none to 1.5 keV that fits best. The line's net counts are significant when they pass 5 standard
/// deviations: the fit's own, widened by its reduced chi-square where it misses (at least 1), with 1 % of the
/// continuum under the line as the continuum's uncertainty. The line is tried at its width and half as wide again
/// (low-energy lines are often wider than the detector's resolution gives them), the more significant kept.
enum LowEnergyLines {
    /// Principal lines below this energy (eV) are tested by the joint fit.
    static let limit = 1100.0
    /// The widths, in the detector's line widths, a line is tried at.
    static let widthScales = [1.0, 1.5]
    /// The window's half width, in line widths.
    static let reach = 2.5
    /// The absorption energies Ea (eV) tried: none, then 40 from 50 eV to 1.5 keV in equal ratios.
    static let absorptionEnergies: [Double] =
        [0] + (0..<40).map { 50 * Double.pow(30, Double($0) / 39) }

    struct Fit: Equatable {
        /// Net counts in the line.
        var net: Double
        var sigma: Double
        /// The width it was found at, in eV (FWHM).
        var width: Double

        var significance: Double { net / sigma }
    }

    /// The line at `energy` (eV) of width `width` (FWHM, eV) fitted over `counts`, leaving out channels below
    /// `first` and within `excluded`; nil where too few channels remain on either side of it.
    static func fit(
        _ counts: [Double], energies: [Double], first: Int, energy: Double, width: Double, channelWidth: Double,
        excluded: [ClosedRange<Double>]
    ) -> Fit? {
        var best: Fit?
        for scale in widthScales {
            let fwhm = width * scale
            let sigma = fwhm / 2.3548
            let half = max(reach * fwhm, 8 * channelWidth)
            let channels = (first..<counts.count).filter { channel in
                let e = energies[channel]
                return Swift.abs(e - energy) <= half && e > 0 && !excluded.contains { $0.contains(e) }
            }
            let below = channels.filter { energies[$0] < energy - fwhm }.count
            let above = channels.filter { energies[$0] > energy + fwhm }.count
            guard channels.count >= 10, below >= 3, above >= 3 else { continue }
            var chosen: (chiSquare: Double, solution: [Double], lineVariance: Double, under: Double)?
            for absorption in absorptionEnergies {
                let rows = channels.map { channel -> [Double] in
                    let e = energies[channel], t = (e - energy) / half
                    let shape = Double.exp(-Double.pow(absorption / e, 3)) * energy / e
                    let line =
                        channelWidth / (sigma * 2.5066) * Double.exp(-(e - energy) * (e - energy) / (2 * sigma * sigma))
                    return [shape, shape * t, shape * t * t, line]
                }
                let y = channels.map { counts[$0] }
                var weights = y.map { 1 / max($0, 1) }
                var solution: [Double]?
                var model = y
                // Weighted by the counts, then by the model where it is higher (few counts say little of their noise).
                for _ in 0..<2 {
                    guard let solved = LinearSystem.weightedLeastSquares(rows, y, weights: weights) else { break }
                    solution = solved.solution
                    model = rows.map { row in zip(row, solved.solution).reduce(0) { $0 + $1.0 * $1.1 } }
                    weights = zip(model, y).map { 1 / max($0, $1, 1) }
                }
                guard let solution, let variances = LinearSystem.weightedLeastSquares(rows, y, weights: weights)
                else { continue }
                var chiSquare = 0.0
                for (index, value) in y.enumerated() {
                    chiSquare += (value - model[index]) * (value - model[index]) * weights[index]
                }
                guard chiSquare.isFinite, chiSquare < chosen?.chiSquare ?? .infinity else { continue }
                var under = 0.0
                for (index, channel) in channels.enumerated() where Swift.abs(energies[channel] - energy) <= 0.6 * fwhm
                {
                    under += max(0, zip(rows[index].prefix(3), solution.prefix(3)).reduce(0) { $0 + $1.0 * $1.1 })
                }
                chosen = (chiSquare, solution, variances.lastVariance, under)
            }
            guard let chosen else { continue }
            let misfit = max(1, chosen.chiSquare / Double(max(1, channels.count - 5)))
            let systematic = SpectrumBackground.continuumShare * chosen.under
            let spread = (max(chosen.lineVariance, 0) * misfit + systematic * systematic).squareRoot()
            guard spread > 0, spread.isFinite, chosen.solution[3].isFinite else { continue }
            let found = Fit(net: chosen.solution[3], sigma: spread, width: fwhm)
            if found.significance > best?.significance ?? -.infinity { best = found }
        }
        return best
    }
}

/// Small dense linear least squares.
enum LinearSystem {
    /// The weighted least-squares solution of `rows · x ≈ y`, and the variance of its last component ((AᵀWA)⁻¹'s
    /// last diagonal element); nil where the normal equations are singular.
    static func weightedLeastSquares(_ rows: [[Double]], _ y: [Double], weights: [Double]) -> (
        solution: [Double], lastVariance: Double
    )? {
        guard let size = rows.first?.count, size > 0 else { return nil }
        var normal = [[Double]](repeating: [Double](repeating: 0, count: size), count: size)
        var right = [Double](repeating: 0, count: size)
        for (index, row) in rows.enumerated() {
            let w = weights[index]
            for i in 0..<size {
                right[i] += w * row[i] * y[index]
                for j in 0..<size { normal[i][j] += w * row[i] * row[j] }
            }
        }
        var unit = [Double](repeating: 0, count: size)
        unit[size - 1] = 1
        guard let solution = solve(normal, right), let column = solve(normal, unit) else { return nil }
        return (solution, column[size - 1])
    }

    /// The solution of the square system `m x = r` by Gaussian elimination with partial pivoting; nil where it is
    /// singular.
    static func solve(_ m: [[Double]], _ r: [Double]) -> [Double]? {
        let n = r.count
        var a = m, b = r
        let scale = m.flatMap { $0 }.map { Swift.abs($0) }.max() ?? 0
        guard scale > 0, scale.isFinite else { return nil }
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { Swift.abs(a[$0][column]) < Swift.abs(a[$1][column]) }),
                Swift.abs(a[pivot][column]) > 1e-12 * scale
            else { return nil }
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = a[row][column] / a[column][column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        let x = (0..<n).map { b[$0] / a[$0][$0] }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
