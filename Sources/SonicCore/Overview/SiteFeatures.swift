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
    /// sublattice (along ±a, ±b) hold columns, and all four of them in the crystal. Each is measured: a column of
    /// its sublattice's width held at the site (moved by its neighbours' mean displacement), fitted with a plane
    /// under it once its neighbours' Gaussians are taken away. It is a vacancy when it holds less than half a column
    /// and its shortfall from a whole one stands out from the noise; a dim column (one the search missed) when it
    /// holds more than half but still stands out as less than a whole one.
    static func emptySites(
        _ analysis: LatticeAnalysis, brightness: ColumnBrightness, noise: CountingNoise, width: Int, height: Int,
        spacing: Double
    ) -> (vacancies: [Found], dimColumns: [Found]) {
        guard let crystal = analysis.crystal else { return ([], []) }
        func inImage(_ p: PixelVector) -> Bool {
            ColumnBrightness.isInside(p, width: width, height: height, spacing: spacing)
        }
        func inCrystal(_ p: PixelVector) -> Bool { crystal.contains(ImagePoint(x: p.x, y: p.y)) }
        // The neighbours whose Gaussians reach into a site's window.
        let reach = ColumnGeometry(spacing: spacing).neighbourReach
        var grid = SiteGrid(cellSize: reach / 2)
        let spots = analysis.columns.map {
            ColumnGaussian(x: $0.column.x, y: $0.column.y, amplitude: $0.column.peak, sigma: $0.column.sigma)
        }
        for k in spots.indices { grid.insert(k, x: spots[k].x, y: spots[k].y) }
        var candidates: [(site: PixelVector, sublattice: Int, sigma: Double)] = []
        for number in analysis.sublattices.indices.map({ $0 + 1 }) {
            var occupied: [LatticeSite: Int] = [:]
            for (k, c) in analysis.columns.enumerated() where c.sublattice == number { occupied[c.site!] = k }
            guard !occupied.isEmpty else { continue }
            let sigma = LatticeAnalysis.median(occupied.values.map { analysis.columns[$0].column.sigma })
            let ns = occupied.keys.map(\.n), ms = occupied.keys.map(\.m)
            for m in ms.min()!...ms.max()! {
                for n in ns.min()!...ns.max()! where occupied[LatticeSite(n: n, m: m)] == nil {
                    guard let ideal = analysis.idealSite(LatticeSite(n: n, m: m), sublattice: number),
                        inImage(ideal), inCrystal(ideal)
                    else { continue }
                    let around = [(1, 0), (-1, 0), (0, 1), (0, -1)].map { LatticeSite(n: n + $0.0, m: m + $0.1) }
                    let held = around.compactMap { occupied[$0] }
                    guard held.count >= 3,
                        around.allSatisfy({ analysis.idealSite($0, sublattice: number).map(inCrystal) ?? false })
                    else { continue }
                    let shift =
                        (1 / Double(held.count))
                        * held.reduce(PixelVector.zero) { $0 + (analysis.columns[$1].displacement ?? .zero) }
                    candidates.append((ideal + shift, number, sigma))
                }
            }
        }
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
            guard shortfall > threshold else { continue }
            let found = Found(
                position: ImagePoint(x: p.x, y: p.y), relative: relative, sublattice: candidate.sublattice,
                significance: -shortfall)
            if relative < 0.5 { vacancies.append(found) } else { dim.append(found) }
        }
        return (vacancies, dim)
    }

    /// Columns on no sublattice with crystal all round them (one lattice step along ±a and ±b), far enough inside
    /// the image that their whole Gaussian is in it: atoms between the sites. How far each stands out is its
    /// intensity in standard errors.
    static func interstitials(
        _ analysis: LatticeAnalysis, noise: CountingNoise, width: Int, height: Int, spacing: Double
    )
        -> [Found]
    {
        guard let crystal = analysis.crystal, let a = analysis.a, let b = analysis.b else { return [] }
        return analysis.columns.compactMap { c in
            let p = PixelVector(x: c.column.x, y: c.column.y)
            guard c.sublattice == nil, ColumnBrightness.isInside(p, width: width, height: height, spacing: spacing),
                [PixelVector.zero, a, -1 * a, b, -1 * b].allSatisfy({
                    crystal.contains(ImagePoint(x: p.x + $0.x, y: p.y + $0.y))
                })
            else { return nil }
            let error = noise.relativeError(of: c.column)
            return Found(
                position: ImagePoint(x: p.x, y: p.y), relative: nil, sublattice: nil,
                significance: error > 0 ? 1 / error : .infinity)
        }
    }
}
