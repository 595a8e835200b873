/// A lattice fitted to columns at known sites, robustly: position(n, m) = origin + n·a + m·b.
///
/// Iteratively reweighted least squares with Tukey's biweight on each column's distance from its site: a column far
/// off its site (a defect, a misfit) gets no weight, so it neither pulls the lattice nor hides behind it. The scale is
/// the median distance, as a standard deviation per axis.
struct RobustLattice: Sendable {
    var origin: PixelVector, a: PixelVector, b: PixelVector

    /// Tukey's biweight's cut-off, in standard deviations: 95 % efficient for Gaussian errors.
    static let cutoff = 4.685
    /// The median of the distance of a 2-D Gaussian error from zero, in its per-axis standard deviation.
    static let medianDistance = 1.1774
    static let rounds = 20

    func position(_ site: LatticeSite) -> PixelVector { origin + Double(site.n) * a + Double(site.m) * b }

    /// The lattice through `positions` at `sites`; the scale never falls below a thousandth of the spacing, so exact
    /// positions (synthetic ones) keep their weights.
    static func fit(positions: [PixelVector], sites: [LatticeSite], spacing: Double) -> RobustLattice {
        var weights = [Double](repeating: 1, count: positions.count)
        var lattice = solve(positions, sites, weights) ?? RobustLattice(origin: positions[0], a: .zero, b: .zero)
        for _ in 0..<rounds {
            let distances = zip(positions, sites).map { ($0 - lattice.position($1)).length }
            weights = biweights(distances, floor: 1e-3 * spacing)
            guard let next = solve(positions, sites, weights) else { break }
            lattice = next
        }
        return lattice
    }

    /// The robust centre of a cloud of vectors: from the mean, reweighted by the biweight. Not from the median: a
    /// cloud in two clumps (two polar domains) would then settle on one clump, and the mean settles between them.
    static func offset(_ vectors: [PixelVector], spacing: Double) -> PixelVector {
        guard !vectors.isEmpty else { return .zero }
        var centre = (1 / Double(vectors.count)) * vectors.reduce(PixelVector.zero, +)
        for _ in 0..<rounds {
            let weights = biweights(vectors.map { ($0 - centre).length }, floor: 1e-3 * spacing)
            let total = weights.reduce(0, +)
            guard total > 0 else { break }
            centre = (1 / total) * zip(vectors, weights).reduce(PixelVector.zero) { $0 + $1.1 * $1.0 }
        }
        return centre
    }

    private static func biweights(_ distances: [Double], floor: Double) -> [Double] {
        let sigma = max(LatticeAnalysis.median(distances) / medianDistance, floor)
        let c = cutoff * sigma
        return distances.map { r in
            guard r < c else { return 0 }
            let t = 1 - (r / c) * (r / c)
            return t * t
        }
    }

    /// Weighted least squares for x and y alike on (1, n, m); nil when the sites do not span a lattice.
    private static func solve(_ positions: [PixelVector], _ sites: [LatticeSite], _ weights: [Double])
        -> RobustLattice?
    {
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var rx = [0.0, 0, 0], ry = [0.0, 0, 0]
        for (k, site) in sites.enumerated() where weights[k] > 0 {
            let row = [1, Double(site.n), Double(site.m)], w = weights[k]
            for i in 0..<3 {
                for j in 0..<3 { m[i][j] += w * row[i] * row[j] }
                rx[i] += w * row[i] * positions[k].x
                ry[i] += w * row[i] * positions[k].y
            }
        }
        guard let x = solve3(m, rx), let y = solve3(m, ry) else { return nil }
        return RobustLattice(
            origin: PixelVector(x: x[0], y: y[0]), a: PixelVector(x: x[1], y: y[1]), b: PixelVector(x: x[2], y: y[2]))
    }

    /// Cramer's rule for a 3 × 3 system; nil when it is (nearly) singular.
    private static func solve3(_ m: [[Double]], _ r: [Double]) -> [Double]? {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(m)
        let scale = m.flatMap { $0 }.map(abs).max() ?? 0
        guard d.isFinite, abs(d) > 1e-12 * scale * scale * scale else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row][column] = r[row] }
            return det(replaced) / d
        }
    }
}

extension PixelVector {
    static let zero = PixelVector(x: 0, y: 0)
}
