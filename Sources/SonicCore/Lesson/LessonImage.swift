import RealModule

/// The images the lesson plays, made by `Synthetic/` at low noise, all of one size so that each takes the place of
/// the one before in the same session; and what each holds, for checking the answers.
public enum LessonImage: String, Sendable, CaseIterable {
    /// A square lattice with five bright columns, three dim ones, three vacancies and two interstitials.
    case defects
    /// A hexagonal crystal with one bright column and one vacancy, beside amorphous material.
    case crystal
    /// A perovskite-like crystal in two polar domains: its middle band displaced up, the rest down.
    case domains

    var sample: OverviewSample {
        switch self {
        case .defects: OverviewSamples.defects(.low)
        case .crystal: OverviewSamples.crystalBesideAmorphous(.low)
        case .domains: OverviewSamples.polarDomains(.low)
        }
    }

    public func render() -> GrayImage { sample.render() }

    /// Where its columns, bright columns, vacancies and domain walls are, as made.
    public var facts: LessonFacts {
        let sample = sample
        let scene = sample.scene
        let sites = scene.sitePositions(margin: 0)
        func places(_ kind: OverviewFeature.Kind) -> [ImagePoint] {
            sample.truth.features.filter { $0.kind == kind }.map(\.position)
        }
        return LessonFacts(
            spacing: min(Double.hypot(scene.a.x, scene.a.y), Double.hypot(scene.b.x, scene.b.y)),
            columns: sites.filter { !$0.isVacant }.map { ImagePoint(x: $0.x, y: $0.y) },
            bright: places(.brightColumn), vacancies: places(.vacancy),
            walls: sample.truth.features.filter { $0.kind == .domainWall }.map(\.points))
    }
}

/// What a lesson image holds, in image pixels: the answers' truth.
public struct LessonFacts: Sendable {
    /// The shortest lattice vector's length.
    public var spacing: Double
    /// Every column's centre.
    public var columns: [ImagePoint]
    public var bright: [ImagePoint]
    public var vacancies: [ImagePoint]
    /// Each domain wall's ends, from the image's left edge to its right, the uppermost first.
    public var walls: [[ImagePoint]]

    /// Of `points`, the nearest to `point`, and how far it is.
    static func nearest(of points: [ImagePoint], to point: ImagePoint) -> (point: ImagePoint, distance: Double)? {
        points.map { (point: $0, distance: Double.hypot($0.x - point.x, $0.y - point.y)) }.min {
            $0.distance < $1.distance
        }
    }

    /// Where a wall crosses the vertical through `x`: its height there.
    static func height(of wall: [ImagePoint], at x: Double) -> Double? {
        guard let start = wall.first, let end = wall.last, end.x != start.x else { return nil }
        return start.y + (x - start.x) / (end.x - start.x) * (end.y - start.y)
    }
}
