/// Two polar domains: where a sublattice sits displaced one way and where it sits displaced another, and the walls
/// between them.
///
/// Each column's displacement is averaged with its four neighbours' on the sublattice (along ±a and ±b), and the
/// averages are split in two (2-means, started from the two ends of their widest spread); a column most of whose
/// neighbours fell in the other domain joins them. The split is taken for domains when both hold at least
/// `minimumShare` of the columns and half the gap between the two domains' displacements stands out from the
/// scatter within each, by as many standard deviations as `Significance` asks of that many columns: then hardly a
/// column is put in the wrong domain by noise. A wall runs through the midpoints between neighbouring columns in
/// different domains.
struct PolarDomains {
    /// The sublattice whose displacements differ (2, 3, …).
    var sublattice: Int
    /// Each domain's mean displacement of that sublattice, in pixels.
    var displacements: [PixelVector]
    /// Each wall's course, end to end (left to right, or top to bottom where it runs down the image).
    var walls: [[ImagePoint]]
    /// Half the gap between the domains' displacements, in standard deviations of the scatter within them.
    var significance: Double
    /// Each domain's columns of that sublattice: where they are.
    var members: [[PixelVector]]

    /// A domain holds at least this share of its sublattice's columns (and at least 10).
    static let minimumShare = 0.05

    /// The split of the sublattice that stands out most, if any does; nil for an image of one sublattice.
    static func find(in analysis: LatticeAnalysis, width: Int, height: Int, spacing: Double) -> PolarDomains? {
        guard analysis.sublatticeCount >= 2, let a = analysis.a, let b = analysis.b else { return nil }
        let candidates = (2...analysis.sublatticeCount).compactMap { number -> PolarDomains? in
            let members = analysis.columns.indices.filter {
                analysis.columns[$0].sublattice == number && analysis.columns[$0].displacement != nil
                    && ColumnBrightness.isTestable(
                        analysis.columns[$0], at: $0, in: analysis, width: width, height: height, spacing: spacing)
            }
            let row = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1, $0) })
            let links = members.map { k in analysis.neighbours[k].map { $0.flatMap { row[$0] } } }
            return split(
                members.map { analysis.columns[$0] }, links: links, sublattice: number, cell: max(a.length, b.length)
            ) {
                p in
                p.x >= 0 && p.y >= 0 && p.x <= Double(width - 1) && p.y <= Double(height - 1)
                    && analysis.crystal?.contains(ImagePoint(x: p.x, y: p.y)) ?? false
            }
        }
        return candidates.max { $0.significance < $1.significance }
    }

    /// The split of one sublattice's columns; `inCrystal` says how far the walls run.
    private static func split(
        _ columns: [AnalysedColumn], links: [[Int?]], sublattice: Int, cell: Double, inCrystal: (PixelVector) -> Bool
    ) -> PolarDomains? {
        guard columns.count >= 20 else { return nil }
        let neighbours = links.map { $0.compactMap { $0 } }
        let raw = columns.map { $0.displacement! }
        let smoothed = columns.indices.map { k in
            (1 / Double(neighbours[k].count + 1)) * neighbours[k].reduce(raw[k]) { $0 + raw[$1] }
        }
        guard var labels = twoMeans(smoothed) else { return nil }
        // A column most of whose neighbours are in the other domain joins them.
        labels = columns.indices.map { k in
            let others = neighbours[k].filter { labels[$0] != labels[k] }.count
            return neighbours[k].count >= 2 && 2 * others > neighbours[k].count ? !labels[k] : labels[k]
        }
        let groups = [columns.indices.filter { !labels[$0] }, columns.indices.filter { labels[$0] }]
        let smallest = max(10, Int((minimumShare * Double(columns.count)).rounded(.up)))
        guard groups.allSatisfy({ $0.count >= smallest }) else { return nil }
        let means = groups.map { g in (1 / Double(g.count)) * g.reduce(PixelVector.zero) { $0 + smoothed[$1] } }
        let gap = means[1] - means[0]
        guard gap.length > 0 else { return nil }
        let along = (1 / gap.length) * gap
        let spreads = groups.map { g in Significance.robustScale(g.map { LatticeAnalysis.dot(smoothed[$0], along) }) }
        let scatter = ((spreads[0] * spreads[0] + spreads[1] * spreads[1]) / 2).squareRoot()
        let significance = scatter > 0 ? gap.length / (2 * scatter) : .infinity
        guard significance > Significance.threshold(tests: columns.count) else { return nil }
        // Wall points: halfway between neighbours (along +a and +b) in different domains.
        var points: [ImagePoint] = []
        for (k, c) in columns.enumerated() {
            // Along +a and +b.
            for direction in [0, 2] {
                guard let q = links[k][direction], labels[q] != labels[k] else { continue }
                points.append(
                    ImagePoint(x: (c.column.x + columns[q].column.x) / 2, y: (c.column.y + columns[q].column.y) / 2))
            }
        }
        // Walls in order down and across the image.
        let walls = Courses.connected(points, within: 1.5 * cell).filter { $0.count >= 3 }.map {
            Courses.course($0, bin: 2 * cell, inCrystal: inCrystal)
        }.sorted { Courses.order(of: $0) < Courses.order(of: $1) }
        guard !walls.isEmpty else { return nil }
        let displacements = groups.map { g in (1 / Double(g.count)) * g.reduce(PixelVector.zero) { $0 + raw[$1] } }
        return PolarDomains(
            sublattice: sublattice, displacements: displacements, walls: walls, significance: significance,
            members: groups.map { g in g.map { PixelVector(x: columns[$0].column.x, y: columns[$0].column.y) } })
    }

    /// The points split in two groups by 2-means, started from the points at the tenth and ninetieth percentiles
    /// along the direction they spread most; nil when one group comes out empty.
    private static func twoMeans(_ points: [PixelVector]) -> [Bool]? {
        let axis = Courses.principalAxis(points)
        let order = points.indices.sorted {
            LatticeAnalysis.dot(points[$0], axis) < LatticeAnalysis.dot(points[$1], axis)
        }
        var centres = [points[order[order.count / 10]], points[order[order.count - 1 - order.count / 10]]]
        var labels = [Bool](repeating: false, count: points.count)
        for _ in 0..<20 {
            labels = points.map { ($0 - centres[1]).length < ($0 - centres[0]).length }
            let groups = [points.indices.filter { !labels[$0] }, points.indices.filter { labels[$0] }]
            guard groups.allSatisfy({ !$0.isEmpty }) else { return nil }
            let next = groups.map { g in (1 / Double(g.count)) * g.reduce(PixelVector.zero) { $0 + points[$1] } }
            if next == centres { break }
            centres = next
        }
        return labels
    }
}
