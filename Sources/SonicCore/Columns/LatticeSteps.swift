/// The steps between neighbouring columns of a region (q − p for columns within 1.3 spacings), each averaged over
/// every pair that takes it.
///
/// A column p with a neighbour q implies a site on p's other side. Placed at 2p − q, that site carries p's error twice
/// and q's once; placed a mean step from p, little more than p's — which matters most for the sites held fixed (the
/// ghost columns beyond a region's edge), whose errors pass straight into the columns beside them.
struct LatticeSteps {
    private var means: [(x: Double, y: Double)] = []
    /// How far a step may be from a mean to count as that step: far more than the columns' errors, far less than the
    /// difference between two steps of a lattice.
    private let tolerance: Double
    /// Steps seen fewer times than this are not averaged: they are a misfit column's, or the region's too small.
    private static let commonCount = 3

    init(_ columns: [ColumnGaussian], spacing: Double) {
        tolerance = 0.1 * spacing
        var grid = SiteGrid(cellSize: spacing)
        for k in columns.indices { grid.insert(k, x: columns[k].x, y: columns[k].y) }
        var steps: [(x: Double, y: Double)] = []
        for p in columns.indices {
            for q in grid.indices(nearX: columns[p].x, y: columns[p].y, within: 1.3 * spacing, in: columns) where q != p
            {
                steps.append((columns[q].x - columns[p].x, columns[q].y - columns[p].y))
            }
        }
        // Seeds from a first pass (a step near no seed starts one), then every step is given to its nearest seed and
        // each seed's steps averaged: a mean does not hang on the one step that started it.
        var seeds: [(x: Double, y: Double)] = []
        for step in steps where nearest(step, in: seeds) == nil { seeds.append(step) }
        var sums = [(x: Double, y: Double, count: Int)](repeating: (0, 0, 0), count: seeds.count)
        for step in steps {
            guard let s = nearest(step, in: seeds) else { continue }
            sums[s].x += step.x; sums[s].y += step.y; sums[s].count += 1
        }
        means = sums.filter { $0.count >= Self.commonCount }.map { ($0.x / Double($0.count), $0.y / Double($0.count)) }
    }

    /// The mean of the common step nearest (dx, dy); (dx, dy) itself where no common step is near it.
    private func step(_ dx: Double, _ dy: Double) -> (x: Double, y: Double) {
        nearest((dx, dy), in: means).map { means[$0] } ?? (dx, dy)
    }

    /// The site a column at p implies on the far side from its neighbour q.
    func site(beyond p: ColumnGaussian, from q: ColumnGaussian) -> (x: Double, y: Double) {
        let s = step(p.x - q.x, p.y - q.y)
        return (p.x + s.x, p.y + s.y)
    }

    private func nearest(_ step: (x: Double, y: Double), in list: [(x: Double, y: Double)]) -> Int? {
        var best: Int?, bestDistance = tolerance * tolerance
        for (k, m) in list.enumerated() {
            let dx = m.x - step.x, dy = m.y - step.y, distance = dx * dx + dy * dy
            if distance < bestDistance { best = k; bestDistance = distance }
        }
        return best
    }
}
