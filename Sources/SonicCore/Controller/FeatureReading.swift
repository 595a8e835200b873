/// What "where am I" says of the overview's feature at a point: the one the nib is on, by the radius the guide says
/// "Here." within, so the two agree.
enum FeatureReading {
    /// ", bright column 2 of 5, 1.36 times as bright", ", vacancy 1 of 3", ", on domain wall 1 of 2", ", off the
    /// crystal, amorphous"; empty where the nib is on no feature, or before the overview is read.
    static func said(at point: ImagePoint, in state: SessionState) -> String {
        guard let overview = state.overview, let spacing = state.lattice?.spacing else { return "" }
        if let crystal = overview.crystal, !crystal.contains(point) {
            return ", " + Phrases.offTheCrystal(overview.surroundings)
        }
        let reach = Guidance.arrival * spacing
        func distance(_ feature: OverviewFeature) -> Double {
            guard feature.points.count >= 2 else { return hypot(feature.position, point) }
            return zip(feature.points, feature.points.dropFirst()).map { segmentDistance(point, $0, $1) }.min()!
        }
        // A line (a wall, a boundary) is met as the nib crosses it: within half a spacing.
        // A particle is met within its own radius.
        let near = overview.features.indices.filter {
            let feature = overview.features[$0]
            return distance(feature) <= (feature.points.count >= 2 ? spacing / 2 : feature.radius ?? reach)
        }
        guard let k = near.min(by: { distance(overview.features[$0]) < distance(overview.features[$1]) }) else {
            return ""
        }
        let feature = overview.features[k]
        let sameKind = overview.features.indices.filter { overview.features[$0].kind == feature.kind }
        let number = (sameKind.firstIndex(of: k) ?? 0) + 1
        return ", " + Phrases.featureUnderNib(feature, number: number, of: sameKind.count)
    }

    private static func hypot(_ p: ImagePoint, _ q: ImagePoint) -> Double {
        ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
    }

    /// How far `p` lies from the segment from `a` to `b`.
    private static func segmentDistance(_ p: ImagePoint, _ a: ImagePoint, _ b: ImagePoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length = dx * dx + dy * dy
        let t = length > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length)) : 0
        return hypot(p, ImagePoint(x: a.x + t * dx, y: a.y + t * dy))
    }
}
