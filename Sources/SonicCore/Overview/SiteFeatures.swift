/// The lattice's sites read for what the column search left there: vacancies (a site inside the crystal without a
/// column) and interstitials (a column off the sites).
enum SiteFeatures {
    struct Found {
        var position: ImagePoint
        /// What the site holds over what its sublattice holds there: about 0 for a vacancy.
        var relative: Double?
        var sublattice: Int?
        /// How far it stands out from the noise, in standard deviations (negative for a site holding less).
        var significance: Double
    }

    /// Sites of each sublattice with no column, inside the crystal, at least three of whose four neighbours on the
    /// sublattice (along ±a, ±b) hold columns, and all four of them in the crystal and its grain. Each is where those
    /// neighbours put it, each through its own cell, on average. Each is measured: a column of its sublattice's width
    /// held at the site, fitted with a plane under it once its neighbours' Gaussians are taken away. It is a vacancy
    /// when it holds less than half a column and its shortfall from a whole one stands out from the noise; a dim
    /// column (one the search missed) when it holds more than half but still stands out as less than a whole one.
    static func emptySites(
        _ analysis: LatticeAnalysis, brightness: ColumnBrightness, noise: CountingNoise, width: Int, height: Int,
        spacing: Double
    ) -> (vacancies: [Found], dimColumns: [Found]) {
        guard let crystal = analysis.crystal else { return ([], []) }
        // The neighbours whose Gaussians reach into a site's window.
        let reach = ColumnGeometry(spacing: spacing).neighbourReach
        var grid = SiteGrid(cellSize: reach / 2)
        let spots = analysis.columns.map {
            ColumnGaussian(x: $0.column.x, y: $0.column.y, amplitude: $0.column.peak, sigma: $0.column.sigma)
        }
        for k in spots.indices { grid.insert(k, x: spots[k].x, y: spots[k].y) }
        let candidates = emptySiteCandidates(analysis, crystal: crystal, width: width, height: height, spacing: spacing)
        let threshold = Significance.threshold(tests: candidates.count)
        var vacancies: [Found] = [], dim: [Found] = []
        for candidate in candidates {
            let p = candidate.site
            let neighbours = grid.indices(nearX: p.x, y: p.y, within: reach, in: spots).map {
                analysis.columns[$0].column
            }
            guard let held = noise.intensity(at: p, sigma: candidate.sigma, neighbours: neighbours),
                let expected = brightness.localIntensity(sublattice: candidate.sublattice, at: p), expected > 0
            else { continue }
            let relative = held.value / expected
            let error = held.error / expected * (brightness.scatter[candidate.sublattice] ?? 1)
            let shortfall = error > 0 ? (1 - relative) / error : 0
            guard shortfall > threshold, 1 - relative >= ColumnBrightness.smallestContrast else { continue }
            let found = Found(
                position: ImagePoint(x: p.x, y: p.y), relative: relative, sublattice: candidate.sublattice,
                significance: -shortfall)
            if relative < 0.5 { vacancies.append(found) } else { dim.append(found) }
        }
        return (vacancies, dim)
    }

    /// The empty sites: where at least three columns of a sublattice each put a neighbour they lack, within a fifth
    /// of a spacing of one another.
    static func emptySiteCandidates(
        _ analysis: LatticeAnalysis, crystal: CrystalRegion, width: Int, height: Int, spacing: Double
    ) -> [(site: PixelVector, sublattice: Int, sigma: Double)] {
        struct Key: Hashable { var grain: Int, sublattice: Int }
        var widths: [Key: [Double]] = [:]
        var predictions: [Key: [(site: PixelVector, cell: Matrix2)]] = [:]
        for (k, c) in analysis.columns.enumerated() {
            guard let number = c.sublattice, let grain = c.grain, let cell = c.cell else { continue }
            let key = Key(grain: grain, sublattice: number)
            widths[key, default: []].append(c.column.sigma)
            let here = PixelVector(x: c.column.x, y: c.column.y) - (c.displacement ?? .zero)
            for (direction, step) in LocalReading.steps.enumerated() where analysis.neighbours[k][direction] == nil {
                predictions[key, default: []].append((here + cell * step, cell))
            }
        }
        let tolerance = LocalReading.tolerance * spacing
        var candidates: [(site: PixelVector, sublattice: Int, sigma: Double)] = []
        for (key, list) in predictions {
            let index = PointGrid(list.map(\.site), reach: spacing)
            var taken = [Bool](repeating: false, count: list.count)
            let sigma = LatticeAnalysis.median(widths[key] ?? [])
            for k in list.indices where !taken[k] {
                let group = index.within(tolerance, of: list[k].site).filter { !taken[$0] }
                for q in group { taken[q] = true }
                guard group.count >= 3 else { continue }
                let site = (1 / Double(group.count)) * group.reduce(PixelVector.zero) { $0 + list[$1].site }
                let cell = list[k].cell
                let inGrain = { (p: PixelVector) in crystal.grain(at: ImagePoint(x: p.x, y: p.y)) == key.grain }
                guard ColumnBrightness.isInside(site, width: width, height: height, spacing: spacing), inGrain(site),
                    LocalReading.steps.allSatisfy({ inGrain(site + cell * $0) })
                else { continue }
                candidates.append((site, key.sublattice, sigma))
            }
        }
        return candidates
    }

    /// Columns on no sublattice and on no site, with crystal of one grain all round them (one lattice step along ±a
    /// and ±b), far enough inside the image that their whole Gaussian is in it: atoms between the sites. How far each stands out is its
    /// intensity in standard errors.
    static func interstitials(
        _ analysis: LatticeAnalysis, noise: CountingNoise, width: Int, height: Int, spacing: Double
    )
        -> [Found]
    {
        guard let crystal = analysis.crystal, let a = analysis.a, let b = analysis.b else { return [] }
        let cells = PointGrid(analysis.columns.map { PixelVector(x: $0.column.x, y: $0.column.y) }, reach: spacing)
        return analysis.columns.compactMap { c in
            let p = PixelVector(x: c.column.x, y: c.column.y)
            // The lattice round it: that of the nearest column with a cell.
            let near = cells.nearest(to: p, within: 1.5 * spacing) { analysis.columns[$0].cell != nil }
            let cell = near.flatMap { analysis.columns[$0].cell } ?? Matrix2(columns: a, b)
            guard c.sublattice == nil, !Self.onSite(p, analysis: analysis, cells: cells, spacing: spacing),
                ColumnBrightness.isInside(p, width: width, height: height, spacing: spacing),
                let grain = crystal.grain(at: ImagePoint(x: p.x, y: p.y)),
                [PixelVector.zero, cell.columnA, -1 * cell.columnA, cell.columnB, -1 * cell.columnB].allSatisfy({
                    crystal.grain(at: ImagePoint(x: p.x + $0.x, y: p.y + $0.y)) == grain
                })
            else { return nil }
            let error = noise.relativeError(of: c.column)
            return Found(
                position: ImagePoint(x: p.x, y: p.y), relative: nil, sublattice: nil,
                significance: error > 0 ? 1 / error : .infinity)
        }
    }

    /// Whether `p` lies on a site of the lattice, as the grain's columns round it put their neighbours: a column of the
    /// crystal the reading left out (at a corner, in a distorted patch) is no atom between the sites.
    static func onSite(_ p: PixelVector, analysis: LatticeAnalysis, cells: PointGrid, spacing: Double) -> Bool {
        for k in cells.within(1.6 * spacing, of: p) {
            let c = analysis.columns[k]
            guard let grain = c.grain, let number = c.sublattice, let cell = c.cell else { continue }
            let offsets = analysis.grains[grain].sublattices.map(\.offset)
            let ideal = PixelVector(x: c.column.x, y: c.column.y) - (c.displacement ?? .zero)
            for offset in offsets {
                for dn in -1...1 {
                    for dm in -1...1 {
                        let f = PixelVector(x: Double(dn), y: Double(dm)) + offset - offsets[number - 1]
                        if (ideal + cell * f - p).length < LocalReading.tolerance * spacing { return true }
                    }
                }
            }
        }
        return false
    }
}
