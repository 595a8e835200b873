import RealModule

/// What a strain sample holds, as made: every column's true place, sublattice, grain and deformation, and the
/// interfaces, dislocations, grains and bending in it.
public struct StrainTruth: Sendable {
    public struct Column: Sendable {
        public var position: ImagePoint
        /// 1 for the heavy (or only) sublattice, 2 for the light one.
        public var sublattice: Int
        /// 0 for the first grain, 1 for the second.
        public var grain: Int
        /// Against the first grain's undeformed lattice.
        public var deformation: Deformation
    }

    public struct Interface: Sendable {
        /// Its line's two ends, on the image's edges.
        public var ends: [ImagePoint]
        /// The deformation beyond it less that before it.
        public var step: Deformation
    }

    public struct Dislocation: Sendable {
        public var core: ImagePoint
        /// The displacement's jump once round the core clockwise on screen, in pixels.
        public var burgers: PixelVector
    }

    public struct Grain: Sendable {
        /// How far its lattice vector a is turned from the image's x axis, radians, clockwise on screen.
        public var orientation: Double
        /// Its share of the image.
        public var fraction: Double
    }

    public var columns: [Column]
    public var sublattices: Int
    /// The undeformed lattice's nearest-neighbour spacing, in pixels.
    public var spacing: Double
    public var interfaces: [Interface] = []
    public var dislocations: [Dislocation] = []
    public var grains: [Grain]
    /// The boundary between two grains, end to end.
    public var boundary: [ImagePoint] = []
    /// The rotation's least and greatest over the columns, where the crystal is bent.
    public var bending: ClosedRange<Double>?
    /// Where the crystal is (amorphous material beside it): nil for the whole image.
    public var crystal: ImagePolygon?
}

/// An image made for testing the local lattice, strain and what the overview says of real crystals, and its truth.
public struct StrainSample: Sendable {
    public var name: String
    public var noise: OverviewSamples.Noise
    public var scene: LatticeImage
    public var truth: StrainTruth

    public func render() -> GrayImage { scene.render() }
}

/// Crystals as real specimens are: strained, cut by a coherent interface, dislocated, bent, in two grains, scanned
/// with drift, beside amorphous material — each with its displacement field known exactly (`DisplacementField`), at
/// low or high counting noise (`OverviewSamples.Noise`). A square lattice of 20 px (SrTiO₃'s 390.5 pm at 19.525 pm
/// a pixel), σ 3 px, unless said otherwise. Variant 0 of each is the one the documentation quotes; every other
/// variant draws the lattice's turn and origin, and where its feature lies, from its number, for trying the analysis
/// on images it was not tuned on.
public enum StrainSamples {
    public static let size = 512
    public static let spacing = 20.0
    public static let pixelPicometres = 19.525
    static let sigma = 3.0

    public enum Kind: String, Sendable, CaseIterable {
        case uniform, interface, dislocation, bent
        case twoGrains = "two grains"
        case scanDistortion = "scan distortion"
        case besideAmorphous = "beside amorphous"
    }

    public static func sample(_ kind: Kind, _ noise: OverviewSamples.Noise, variant: Int = 0) -> StrainSample {
        var draw = Draw(kind: kind, noise: noise, variant: variant)
        switch kind {
        case .uniform: return uniform(&draw)
        case .interface: return interface(&draw)
        case .dislocation: return dislocation(&draw)
        case .bent: return bent(&draw)
        case .twoGrains: return twoGrains(&draw)
        case .scanDistortion: return scanDistortion(&draw)
        case .besideAmorphous: return besideAmorphous(&draw)
        }
    }

    /// The choices a variant draws: variant 0 takes the quoted values.
    struct Draw {
        let kind: Kind, noise: OverviewSamples.Noise, variant: Int
        var random: SeededRandom

        init(kind: Kind, noise: OverviewSamples.Noise, variant: Int) {
            self.kind = kind; self.noise = noise; self.variant = variant
            let kindNumber = UInt64(Kind.allCases.firstIndex(of: kind)!)
            random = SeededRandom(seed: 20_261_128 &+ 1000 &* UInt64(variant) &+ 10 &* kindNumber)
        }

        /// `quoted` for variant 0, else uniform in `range`.
        mutating func value(_ quoted: Double, _ range: ClosedRange<Double>) -> Double {
            let u = random.unitInterval()
            return variant == 0 ? quoted : range.lowerBound + u * (range.upperBound - range.lowerBound)
        }

        var seed: UInt64 {
            20_261_300 &+ 100 &* UInt64(variant) &+ UInt64(Kind.allCases.firstIndex(of: kind)!) &* 7 &+ noise.seed
        }

        /// A lattice of `arrangement` turned by a drawn angle, its origin drawn.
        mutating func lattice(_ arrangement: LatticeImage.Arrangement, quotedAngle: Double = 4, spacing: Double = 20)
            -> LatticeImage
        {
            let angle = value(quotedAngle, -25...25) * Double.pi / 180
            let origin = (value(7.3, 0...20), value(5.9, 0...20))
            return LatticeImage(
                arrangement, width: StrainSamples.size, height: StrainSamples.size, spacing: spacing, angle: angle,
                origin: origin, sigma: StrainSamples.sigma, peak: OverviewSamples.peak,
                background: OverviewSamples.background, backgroundSlope: (2.1, -1.7), doseScale: noise.dose,
                readNoise: noise.readNoise, seed: seed)
        }
    }

    static var centre: PixelVector { PixelVector(x: Double(size - 1) / 2, y: Double(size - 1) / 2) }

    /// The scene's columns moved by `field`, and the truth of each.
    static func displaced(_ scene: inout LatticeImage, by field: DisplacementField, grain: Int = 0)
        -> [StrainTruth.Column]
    {
        for site in scene.sitePositions(margin: 40) {
            let u = field.displacement(PixelVector(x: site.x, y: site.y))
            scene.shifts[site.index] = (u.x, u.y)
        }
        return truthColumns(scene, field: field, grain: grain)
    }

    static func truthColumns(_ scene: LatticeImage, field: DisplacementField, grain: Int) -> [StrainTruth.Column] {
        scene.sitePositions(margin: 0).filter { !$0.isVacant }.map { site in
            let shift = scene.shifts[site.index] ?? (0, 0)
            let ideal = PixelVector(x: site.x - shift.x, y: site.y - shift.y)
            return StrainTruth.Column(
                position: ImagePoint(x: site.x, y: site.y), sublattice: site.index.site + 1, grain: grain,
                deformation: field.deformation(at: ideal))
        }
    }

    static func orientation(_ scene: LatticeImage) -> Double { Double.atan2(y: scene.a.y, x: scene.a.x) }

    /// The whole crystal strained alike: exx 1 %, eyy −0.5 %, exy 0.4 %, turned 0.5°.
    static func uniform(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.square)
        let strain = Matrix2(xx: 0.01, xy: 0.004, yx: 0.004, yy: -0.005)
        let gradient = Matrix2.rotation(0.5 * Double.pi / 180) * (Matrix2.identity + strain) - Matrix2.identity
        let columns = displaced(&scene, by: .uniform(gradient, about: centre))
        let truth = StrainTruth(
            columns: columns, sublattices: 1, spacing: spacing,
            grains: [.init(orientation: orientation(scene), fraction: 1)])
        return StrainSample(name: "uniform strain", noise: draw.noise, scene: scene, truth: truth)
    }

    /// A coherent interface a little right of the middle, running from top to bottom (tilted up to 20° in the
    /// variants); beyond it the crystal is stretched 3 % across it.
    static func interface(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.square)
        let tilt = draw.value(0, -20...20) * Double.pi / 180
        let step = draw.value(0.03, 0.01...0.04)
        let through = PixelVector(x: draw.value(0.52, 0.35...0.65) * Double(size), y: centre.y)
        let normal = PixelVector(x: Double.cos(tilt), y: Double.sin(tilt))
        let columns = displaced(&scene, by: .interface(through: through, normal: normal, step: step))
        // The line's ends where it meets the top and bottom edges.
        let ends = [-0.5, Double(size) - 0.5].map { y in
            ImagePoint(x: through.x - (y - through.y) * normal.y / normal.x, y: y)
        }
        let gradient = Matrix2(
            xx: step * normal.x * normal.x, xy: step * normal.x * normal.y, yx: step * normal.y * normal.x,
            yy: step * normal.y * normal.y)
        let truth = StrainTruth(
            columns: columns, sublattices: 1, spacing: spacing,
            interfaces: [.init(ends: ends, step: Deformation(gradient: .identity + gradient))],
            grains: [.init(orientation: orientation(scene), fraction: 1)])
        return StrainSample(name: "coherent interface", noise: draw.noise, scene: scene, truth: truth)
    }

    /// An edge dislocation near the middle, its Burgers vector one lattice vector (a, or b in the variants), its
    /// core at the middle of a cell.
    static func dislocation(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.square)
        let useB = draw.value(0, 0...1) >= 0.5
        let burgers = useB ? PixelVector(x: scene.b.x, y: scene.b.y) : PixelVector(x: scene.a.x, y: scene.a.y)
        // A cell's middle near the chosen place.
        let wanted = PixelVector(x: draw.value(0.5, 0.35...0.65), y: draw.value(0.5, 0.35...0.65))
        let basis = Matrix2(columns: PixelVector(x: scene.a.x, y: scene.a.y), PixelVector(x: scene.b.x, y: scene.b.y))
        let target = PixelVector(x: wanted.x * Double(size), y: wanted.y * Double(size))
        let cell = basis.inverse! * (target - PixelVector(x: scene.origin.x, y: scene.origin.y))
        let core =
            PixelVector(x: scene.origin.x, y: scene.origin.y)
            + basis * PixelVector(x: cell.x.rounded(.down) + 0.5, y: cell.y.rounded(.down) + 0.5)
        let columns = displaced(&scene, by: .edgeDislocation(at: core, burgers: burgers))
        let truth = StrainTruth(
            columns: columns, sublattices: 1, spacing: spacing,
            dislocations: [.init(core: ImagePoint(x: core.x, y: core.y), burgers: burgers)],
            grains: [.init(orientation: orientation(scene), fraction: 1)])
        return StrainSample(name: "edge dislocation", noise: draw.noise, scene: scene, truth: truth)
    }

    /// A crystal bent as a beam about the image's middle: its rotation runs from −1.5° at the left edge to +1.5° at
    /// the right (up to ±2.5° in the variants).
    static func bent(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.square)
        let reach = draw.value(1.5, 0.8...2.5) * Double.pi / 180
        let curvature = reach / centre.x
        let field = DisplacementField.bent(curvature: curvature, about: centre)
        let columns = displaced(&scene, by: field)
        let rotations = columns.map(\.deformation.rotation)
        var truth = StrainTruth(
            columns: columns, sublattices: 1, spacing: spacing,
            grains: [.init(orientation: orientation(scene), fraction: 1)])
        truth.bending = rotations.min()!...rotations.max()!
        return StrainSample(name: "bent crystal", noise: draw.noise, scene: scene, truth: truth)
    }

    /// Two grains of one lattice turned 27° to each other (15–40° in the variants), the boundary running from top to
    /// bottom a little left of the middle (tilted up to 15°). Columns of the second grain closer than 0.6 spacings
    /// to one of the first are left out, as a real boundary has no two columns on one spot.
    static func twoGrains(_ draw: inout Draw) -> StrainSample {
        var first = draw.lattice(.square)
        let turn = draw.value(27, 15...40) * Double.pi / 180
        let tilt = draw.value(6, -15...15) * Double.pi / 180
        let crossing = draw.value(0.44, 0.35...0.6) * Double(size)
        let edge = Double(size) - 0.5
        // The boundary's ends on the top and bottom edges, x = crossing + (y − middle)·tan(tilt).
        let ends = [-0.5, edge].map { y in
            ImagePoint(x: crossing + (y - centre.y) * Double.tan(tilt), y: y)
        }
        let left = ImagePolygon([ImagePoint(x: -50, y: -0.5), ends[0], ends[1], ImagePoint(x: -50, y: edge)])
        let right = ImagePolygon([
            ends[0], ImagePoint(x: edge + 50, y: -0.5), ImagePoint(x: edge + 50, y: edge), ends[1]
        ])
        first.crystal = left
        var second = LatticeImage(
            .square, width: size, height: size, spacing: spacing, angle: orientation(first) + turn,
            origin: (draw.value(3.1, 0...20), draw.value(11.7, 0...20)), sigma: sigma, peak: OverviewSamples.peak,
            background: OverviewSamples.background, backgroundSlope: (0, 0), doseScale: 0, readNoise: 0, seed: 0)
        second.crystal = right
        let firstColumns = first.columns(margin: 4 * sigma)
        let secondColumns = second.columns(margin: 4 * sigma).filter { c in
            firstColumns.allSatisfy { Double.hypot($0.x - c.x, $0.y - c.y) >= 0.6 * spacing }
        }
        first.blobs = secondColumns.map { .init(x: $0.x, y: $0.y, height: $0.height, sigma: sigma) }
        let inside = { (c: (x: Double, y: Double, height: Double)) in
            c.x >= -0.5 && c.y >= -0.5 && c.x < edge && c.y < edge
        }
        let columns =
            firstColumns.filter(inside).map {
                StrainTruth.Column(
                    position: ImagePoint(x: $0.x, y: $0.y), sublattice: 1, grain: 0, deformation: .none)
            }
            + secondColumns.filter(inside).map {
                StrainTruth.Column(
                    position: ImagePoint(x: $0.x, y: $0.y), sublattice: 1, grain: 1,
                    deformation: Deformation(exx: 0, eyy: 0, exy: 0, rotation: turn))
            }
        let whole = Double(size * size)
        let leftArea = ImagePolygon([ImagePoint(x: -0.5, y: -0.5), ends[0], ends[1], ImagePoint(x: -0.5, y: edge)])
            .area
        let truth = StrainTruth(
            columns: columns, sublattices: 1, spacing: spacing,
            grains: [
                .init(orientation: orientation(first), fraction: leftArea / whole),
                .init(orientation: orientation(second), fraction: 1 - leftArea / whole)
            ],
            boundary: ends)
        return StrainSample(name: "two grains", noise: draw.noise, scene: first, truth: truth)
    }

    /// A perovskite-like projection (heavy columns at the corners of a 28 px cell, light ones 0.4× as high at its
    /// centre) scanned with a slow sinusoidal drift along x (1 px, a period of 300 lines) and a shear of 1.2 %.
    static func scanDistortion(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.twoSublattice(lightRatio: 0.4), quotedAngle: 3, spacing: 28 / 2.0.squareRoot())
        let field = DisplacementField.scanDistortion(
            amplitude: draw.value(1, 0.5...1.2), period: draw.value(300, 250...500), phase: draw.value(0.4, 0...6.28),
            shear: draw.value(0.012, -0.015...0.015))
        let columns = displaced(&scene, by: field)
        let truth = StrainTruth(
            columns: columns, sublattices: 2, spacing: 28 / 2.0.squareRoot(),
            grains: [.init(orientation: orientation(scene), fraction: 1)])
        return StrainSample(name: "scan distortion", noise: draw.noise, scene: scene, truth: truth)
    }

    /// A perfect crystal in the left three fifths, its edge slanting, and amorphous material beside it: nothing in
    /// the crystal stands out.
    static func besideAmorphous(_ draw: inout Draw) -> StrainSample {
        var scene = draw.lattice(.square)
        let edge = Double(size) - 0.5
        let top = draw.value(0.62, 0.5...0.7) * Double(size), bottom = draw.value(0.56, 0.5...0.7) * Double(size)
        let crystal = ImagePolygon([
            ImagePoint(x: -0.5, y: -0.5), ImagePoint(x: top, y: -0.5), ImagePoint(x: bottom, y: edge),
            ImagePoint(x: -0.5, y: edge)
        ])
        scene.crystal = crystal
        scene.blobs = OverviewSamples.amorphous(outside: crystal, of: scene, spacing: spacing, seed: draw.seed &+ 17)
        let truth = StrainTruth(
            columns: truthColumns(scene, field: .none, grain: 0), sublattices: 1, spacing: spacing,
            grains: [.init(orientation: orientation(scene), fraction: crystal.area / Double(size * size))],
            crystal: crystal)
        return StrainSample(name: "crystal beside amorphous material", noise: draw.noise, scene: scene, truth: truth)
    }
}
