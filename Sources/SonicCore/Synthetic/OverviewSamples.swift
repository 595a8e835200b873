import RealModule

/// What an overview sample holds, as made: every notable feature and where, the crystal's extent, and which way the
/// columns grow brighter.
public struct OverviewTruth: Sendable {
    public struct Feature: Sendable {
        public var kind: OverviewFeature.Kind
        /// A column's centre, an empty site; for a wall, its middle.
        public var position: ImagePoint
        /// A wall's course, end to end; empty otherwise.
        public var points: [ImagePoint]
    }

    public var lattice: LatticeDescription.Kind
    public var features: [Feature]
    /// Where the crystal is: its sites outside hold nothing.
    public var crystal: ImagePolygon
    /// The crystal's share of the image.
    public var crystalFraction: Double
    /// Which way the columns grow brighter (a unit vector), where the specimen grows thicker; nil where it does not.
    public var brighterTowards: PixelVector?
}

/// An image made for testing the overview, and its truth.
public struct OverviewSample: Sendable {
    public var name: String
    public var noise: OverviewSamples.Noise
    public var scene: LatticeImage
    public var truth: OverviewTruth

    public func render() -> GrayImage { scene.render() }
}

/// Synthetic images whose notable features are all known, for the overview's tests and benchmarks: columns brighter
/// and dimmer than the rest, vacancies and interstitials; two polar domains; a crystal beside amorphous material; a
/// specimen growing thicker. Each at low or high counting noise, the same on every run.
public enum OverviewSamples {
    /// Counting noise: heavy columns stand 20 000 counts above a background of 5 000. At low noise every count is
    /// an electron (SNR ≈ 125 at a heavy peak); at high noise every 150 counts are (SNR ≈ 10), with read noise.
    public enum Noise: String, Sendable, CaseIterable {
        case low, high
        var dose: Double { self == .low ? 1 : 1.0 / 150 }
        var readNoise: Double { self == .low ? 20 : 500 }
        var seed: UInt64 { self == .low ? 1 : 2 }
    }

    public static let size = 384
    static let peak = 20_000.0
    static let background = 5_000.0
    /// How much brighter a dopant-like column is, and how much dimmer a partly empty one.
    public static let brightFactor = 1.5
    public static let dimFactor = 0.5

    /// Every sample at one noise level.
    public static func all(_ noise: Noise) -> [OverviewSample] {
        [defects(noise), polarDomains(noise), crystalBesideAmorphous(noise), thickerToTheRight(noise)]
    }

    /// A square lattice (24 px turned 7°, σ 3.2 px) with five columns half as bright again as the others (dopants),
    /// three half as bright (partly empty), three vacancies and two interstitials at cells' centres.
    public static func defects(_ noise: Noise) -> OverviewSample {
        typealias Site = LatticeImage.SiteIndex
        let bright = [Site(i: 3, j: 4), Site(i: 10, j: 3), Site(i: 6, j: 11), Site(i: 12, j: 12), Site(i: 9, j: 7)]
        let dim = [Site(i: 4, j: 8), Site(i: 12, j: 7), Site(i: 7, j: 2)]
        let vacancies = [Site(i: 8, j: 10), Site(i: 3, j: 12), Site(i: 14, j: 5)]
        var scene = LatticeImage(
            .square, width: size, height: size, spacing: 24, angle: 7 * Double.pi / 180, origin: (11.3, 9.7),
            sigma: 3.2, peak: peak, background: background, backgroundSlope: (3.1, -2.3), doseScale: noise.dose,
            readNoise: noise.readNoise, seed: 20_261_201 &+ noise.seed, vacancies: Set(vacancies),
            heightFactors: Dictionary(
                uniqueKeysWithValues: bright.map { ($0, brightFactor) } + dim.map { ($0, dimFactor) }))
        let interstitials = [(5.5, 5.5), (11.5, 9.5)].map { cell in
            ImagePoint(
                x: scene.origin.x + cell.0 * scene.a.x + cell.1 * scene.b.x,
                y: scene.origin.y + cell.0 * scene.a.y + cell.1 * scene.b.y)
        }
        scene.blobs = interstitials.map { .init(x: $0.x, y: $0.y, height: 0.6 * peak, sigma: 3.2) }
        let sites = scene.sitePositions(margin: 0)
        func features(_ kind: OverviewFeature.Kind, _ which: [Site]) -> [OverviewTruth.Feature] {
            which.map { index in
                let site = sites.first { $0.index == index }!
                return OverviewTruth.Feature(kind: kind, position: ImagePoint(x: site.x, y: site.y), points: [])
            }
        }
        let truth = OverviewTruth(
            lattice: .square,
            features: features(.brightColumn, bright) + features(.dimColumn, dim) + features(.vacancy, vacancies)
                + interstitials.map { .init(kind: .interstitial, position: $0, points: []) },
            crystal: .image(width: size, height: size), crystalFraction: 1, brighterTowards: nil)
        return OverviewSample(name: "defects", noise: noise, scene: scene, truth: truth)
    }

    /// A perovskite-like projection (SrTiO₃'s 390.5 pm cell at 18 pm a pixel, turned 3°): heavy columns at the
    /// cells' corners, light ones (0.4× as high) at their centres, shifted 15 pm along b — towards the top of the
    /// image in the rows of cells 5 to 10, towards the bottom elsewhere. Two polar domains, with walls across the
    /// image between them, at about a third and two thirds of its height.
    public static func polarDomains(_ noise: Noise) -> OverviewSample {
        let angle = 3.0 * Double.pi / 180, cell = 390.5 / 18
        var scene = LatticeImage(
            width: size, height: size,
            a: (cell * Double.cos(angle), cell * Double.sin(angle)),
            b: (-cell * Double.sin(angle), cell * Double.cos(angle)),
            origin: (6.4, 9.1), sites: [.init(u: 0, v: 0, height: peak), .init(u: 0.5, v: 0.5, height: 0.4 * peak)],
            sigma: 2.6, background: background, backgroundSlope: (2, -1.5), doseScale: noise.dose,
            readNoise: noise.readNoise, seed: 20_261_202 &+ noise.seed)
        let shift = 15.0 / 18
        let down = (x: -Double.sin(angle) * shift, y: Double.cos(angle) * shift)
        let wallRows = [5, 11]
        for site in scene.sitePositions(margin: 10) where site.index.site == 1 {
            let up = site.index.j >= wallRows[0] && site.index.j < wallRows[1]
            scene.shifts[site.index] = up ? (-down.x, -down.y) : down
        }
        // Each wall runs along the row of heavy columns between the last light row of one domain and the first of
        // the other, from the image's left edge to its right.
        let walls = wallRows.map { row -> OverviewTruth.Feature in
            let start = (x: scene.origin.x + Double(row) * scene.b.x, y: scene.origin.y + Double(row) * scene.b.y)
            let ends = [-0.5, Double(size) - 0.5].map { x -> ImagePoint in
                let u = (x - start.x) / scene.a.x
                return ImagePoint(x: x, y: start.y + u * scene.a.y)
            }
            let middle = ImagePoint(x: (ends[0].x + ends[1].x) / 2, y: (ends[0].y + ends[1].y) / 2)
            return OverviewTruth.Feature(kind: .domainWall, position: middle, points: ends)
        }
        let truth = OverviewTruth(
            lattice: .square, features: walls, crystal: .image(width: size, height: size), crystalFraction: 1,
            brighterTowards: nil)
        return OverviewSample(name: "polar domains", noise: noise, scene: scene, truth: truth)
    }

    /// A hexagonal lattice (20 px turned 11°, σ 3 px) in the left three fifths of the image, its edge slanting, and
    /// amorphous material beside it: spots at random places, of random heights and widths. The crystal holds one
    /// column half as bright again as the others and one vacancy.
    public static func crystalBesideAmorphous(_ noise: Noise) -> OverviewSample {
        typealias Site = LatticeImage.SiteIndex
        let edge = Double(size) - 0.5
        let crystal = ImagePolygon([
            ImagePoint(x: -0.5, y: -0.5), ImagePoint(x: 0.62 * Double(size), y: -0.5),
            ImagePoint(x: 0.56 * Double(size), y: edge), ImagePoint(x: -0.5, y: edge)
        ])
        let bright = Site(i: 2, j: 8), vacancy = Site(i: 5, j: 3)
        var scene = LatticeImage(
            .hexagonal, width: size, height: size, spacing: 20, angle: 11 * Double.pi / 180, origin: (7.31, 5.83),
            sigma: 3, peak: peak, background: background, backgroundSlope: (-1.5, 2.5), doseScale: noise.dose,
            readNoise: noise.readNoise, seed: 20_261_203 &+ noise.seed, vacancies: [vacancy],
            heightFactors: [bright: brightFactor])
        scene.crystal = crystal
        scene.blobs = amorphous(outside: crystal, of: scene, spacing: 20, seed: 20_261_213 &+ noise.seed)
        let sites = scene.sitePositions(margin: 0)
        func feature(_ kind: OverviewFeature.Kind, _ index: Site) -> OverviewTruth.Feature {
            let site = sites.first { $0.index == index }!
            return OverviewTruth.Feature(kind: kind, position: ImagePoint(x: site.x, y: site.y), points: [])
        }
        let truth = OverviewTruth(
            lattice: .hexagonal, features: [feature(.brightColumn, bright), feature(.vacancy, vacancy)],
            crystal: crystal,
            crystalFraction: crystal.area / Double(size * size), brighterTowards: nil)
        return OverviewSample(name: "crystal beside amorphous material", noise: noise, scene: scene, truth: truth)
    }

    /// A square lattice (22 px turned −5°, σ 3 px) in a specimen that grows thicker to the right: its columns go
    /// from 0.7 to 1.3 times their height at the centre, and the background rises with them. Its lower right corner
    /// is amorphous.
    public static func thickerToTheRight(_ noise: Noise) -> OverviewSample {
        let edge = Double(size) - 0.5
        let crystal = ImagePolygon([
            ImagePoint(x: -0.5, y: -0.5), ImagePoint(x: edge, y: -0.5), ImagePoint(x: edge, y: 0.55 * Double(size)),
            ImagePoint(x: 0.62 * Double(size), y: edge), ImagePoint(x: -0.5, y: edge)
        ])
        var scene = LatticeImage(
            .square, width: size, height: size, spacing: 22, angle: -5 * Double.pi / 180, origin: (9.2, 12.4),
            sigma: 3, peak: peak, background: background, backgroundSlope: (4, 0), doseScale: noise.dose,
            readNoise: noise.readNoise, seed: 20_261_204 &+ noise.seed)
        scene.thicknessSlope = (0.6 / Double(size - 1), 0)
        scene.crystal = crystal
        scene.blobs = amorphous(outside: crystal, of: scene, spacing: 22, seed: 20_261_214 &+ noise.seed)
        let truth = OverviewTruth(
            lattice: .square, features: [], crystal: crystal, crystalFraction: crystal.area / Double(size * size),
            brighterTowards: PixelVector(x: 1, y: 0))
        return OverviewSample(name: "thicker to the right", noise: noise, scene: scene, truth: truth)
    }

    /// Amorphous material: spots at random places outside `crystal` (none nearer than 0.75 spacings to another, nor
    /// than half a spacing to a column of the crystal), about as many as a lattice would hold there, 0.3 to 1.1
    /// times as high as its columns and 2.5 to 4 px wide.
    static func amorphous(outside crystal: ImagePolygon, of scene: LatticeImage, spacing: Double, seed: UInt64)
        -> [LatticeImage.Blob]
    {
        var random = SeededRandom(seed: seed)
        let columns = scene.columns(margin: spacing)
        var blobs: [LatticeImage.Blob] = []
        let extent = Double(scene.width + 2) * Double(scene.height + 2)
        let wanted = Int(((extent - crystal.area) / (spacing * spacing)).rounded())
        var tries = 0
        while blobs.count < wanted && tries < 50 * wanted {
            tries += 1
            let p = ImagePoint(
                x: -1 + random.unitInterval() * Double(scene.width + 1),
                y: -1 + random.unitInterval() * Double(scene.height + 1))
            guard !crystal.contains(p),
                blobs.allSatisfy({ Double.hypot($0.x - p.x, $0.y - p.y) >= 0.75 * spacing }),
                columns.allSatisfy({ Double.hypot($0.x - p.x, $0.y - p.y) >= 0.5 * spacing })
            else { continue }
            let height = peak * (0.3 + 0.8 * random.unitInterval())
            blobs.append(.init(x: p.x, y: p.y, height: height, sigma: 2.5 + 1.5 * random.unitInterval()))
        }
        return blobs
    }
}
