import RealModule

/// What a real crystal's lattice says of it beyond its cell: its grains and the boundaries between them, interfaces,
/// dislocations, and how it is bent — and so where single columns cannot be judged against their neighbours.
public struct CrystalPhysics: Sendable {
    /// A grain as said: how far its lattice vector a is turned from the image's x axis (within the lattice's own
    /// symmetry, degrees, clockwise on screen), its share of the image, and where it lies in words.
    public struct Grain: Sendable, Equatable {
        public var rotationDegrees: Double
        public var fraction: Double
        public var side: String
    }

    /// How the main grain's lattice turns across it.
    public struct Bending: Sendable, Equatable {
        /// The turn at either end of the grain, along the way it turns most, in degrees clockwise on screen against the
        /// reference lattice.
        public var from: Double, to: Double
        /// Which way the turn grows clockwise, a unit vector.
        public var towards: PixelVector
        /// How far the turn's gradient stands out from the noise, in standard errors.
        public var significance: Double
    }

    public var dislocations: [Dislocation] = []
    public var interfaces: [Interface] = []
    /// The boundaries between grains, each a course end to end.
    public var boundaries: [[ImagePoint]] = []
    /// The grains, the reference lattice's first; one for a single crystal.
    public var grains: [Grain] = []
    public var bending: Bending?

    /// Single columns this close to a dislocation's core, or to a boundary between grains, are not judged against
    /// their neighbours (in spacings): the lattice there is not their neighbours'.
    static let coreReach = 2.0
    static let boundaryReach = 1.5
    /// A bend smaller than this across the grain is not said (degrees): less than a scan's own distortions turn it.
    static let smallestBend = 0.5
    /// A boundary runs through the points halfway between columns of different grains this many spacings apart or
    /// less: far enough to bridge the columns a boundary leaves unread.
    static let boundaryPairs = 2.5
    /// A turn whose gradient is matched by the shear's, or its negative, to within this share is a scan's drift.
    static let driftShare = 0.3

    private let spacing: Double

    public init(_ analysis: LatticeAnalysis, spacing: Double, width: Int, height: Int) {
        self.spacing = spacing
        guard let crystal = analysis.crystal, !analysis.grains.isEmpty else { return }
        dislocations = DislocationSearch.find(in: analysis, spacing: spacing)
        interfaces = InterfaceSearch.find(
            in: analysis, spacing: spacing, width: width, height: height, avoiding: dislocations.map(\.core))
        let baseline = LatticeDescription(analysis)?.rotation ?? 0
        grains = analysis.grains.enumerated().map { number, grain in
            Grain(
                rotationDegrees: baseline + grain.rotation * 180 / Double.pi, fraction: grain.fraction,
                side: Places.extent(fraction: grain.fraction, width: width, height: height) {
                    crystal.grain(at: $0) == number
                })
        }
        boundaries = Self.boundaries(analysis, crystal: crystal, spacing: spacing, width: width, height: height)
        bending = Self.bending(analysis, spacing: spacing, dislocations: dislocations)
    }

    /// Whether a single column at `p` sits where its neighbours' lattice is not its own: near a dislocation's core or
    /// a grain boundary.
    func disturbs(_ p: PixelVector) -> Bool {
        dislocations.contains { ($0.core - p).length < Self.coreReach * spacing }
            || boundaries.contains { Self.distance(p, toCourse: $0) < Self.boundaryReach * spacing }
    }

    /// The shortest distance from `p` to a course.
    static func distance(_ p: PixelVector, toCourse course: [ImagePoint]) -> Double {
        guard course.count >= 2 else {
            return course.first.map { (PixelVector(x: $0.x, y: $0.y) - p).length } ?? .infinity
        }
        return zip(course, course.dropFirst()).map { a, b in
            let start = PixelVector(x: a.x, y: a.y), end = PixelVector(x: b.x, y: b.y)
            let d = end - start
            let t = d.length > 0 ? max(0, min(1, LatticeAnalysis.dot(p - start, d) / (d.length * d.length))) : 0
            return (p - (start + t * d)).length
        }.min()!
    }

    /// The boundaries between grains: through the points halfway between nearby columns of different grains, grouped
    /// and drawn along their course to the crystal's edge.
    private static func boundaries(
        _ analysis: LatticeAnalysis, crystal: CrystalRegion, spacing: Double, width: Int, height: Int
    ) -> [[ImagePoint]] {
        guard analysis.grains.count >= 2 else { return [] }
        let members = analysis.columns.indices.filter { analysis.columns[$0].grain != nil }
        let index = PointGrid(members.map { analysis.position($0) }, reach: spacing)
        var points: [ImagePoint] = []
        for (row, k) in members.enumerated() {
            let p = analysis.position(k)
            for other in index.within(Self.boundaryPairs * spacing, of: p) where other > row {
                let q = members[other]
                guard analysis.columns[q].grain != analysis.columns[k].grain else { continue }
                let middle = 0.5 * (p + analysis.position(q))
                points.append(ImagePoint(x: middle.x, y: middle.y))
            }
        }
        let inImage = { (p: PixelVector) in
            p.x >= -0.5 && p.y >= -0.5 && p.x <= Double(width) - 0.5 && p.y <= Double(height) - 0.5
                && crystal.contains(ImagePoint(x: p.x, y: p.y))
        }
        return Courses.connected(points, within: 3 * spacing).filter { $0.count >= 3 }.map {
            Courses.course($0, bin: 2 * spacing, inCrystal: inImage)
        }.sorted { Courses.order(of: $0) < Courses.order(of: $1) }
    }

    /// The main grain's turn fitted as a plane over its brightest sublattice's columns, once each dislocation's own
    /// turn is taken away (away from their cores): said when its gradient stands out from the noise (each column's turn
    /// as noisy as its neighbours say, `InterfaceSearch.inflation` times that for the columns' shared neighbours), it
    /// turns the grain by at least `smallestBend`, and no shear goes with it as a scan's drift's does.
    private static func bending(_ analysis: LatticeAnalysis, spacing: Double, dislocations: [Dislocation])
        -> Bending?
    {
        let points = analysis.columns.indices.compactMap { k -> (p: PixelVector, turn: Double, shear: Double)? in
            let c = analysis.columns[k]
            guard c.grain == 0, c.sublattice == 1, let d = c.deformation else { return nil }
            let p = analysis.position(k)
            guard dislocations.allSatisfy({ ($0.core - p).length > InterfaceSearch.coreClearance * spacing }) else {
                return nil
            }
            return (p, d.rotation - dislocations.map { Self.turn(of: $0, at: p) }.reduce(0, +), d.exy)
        }
        guard points.count >= 20 else { return nil }
        let noise = DeformationNoise(analysis, grain: 0).deviations[3] * InterfaceSearch.inflation
        guard noise > 0 else { return nil }
        let n = Double(points.count)
        let centre = (1 / n) * points.reduce(PixelVector.zero) { $0 + $1.p }
        let mean = points.map(\.turn).reduce(0, +) / n, meanShear = points.map(\.shear).reduce(0, +) / n
        var scatter = Matrix2(xx: 0, xy: 0, yx: 0, yy: 0)
        var covariance = PixelVector.zero, shearCovariance = PixelVector.zero
        for (p, turn, shear) in points {
            let d = p - centre
            scatter = scatter + Matrix2(xx: d.x * d.x, xy: d.x * d.y, yx: d.x * d.y, yy: d.y * d.y)
            covariance = covariance + (turn - mean) * d
            shearCovariance = shearCovariance + (shear - meanShear) * d
        }
        guard let inverse = scatter.inverse else { return nil }
        let gradient = inverse * covariance
        guard gradient.length > 0 else { return nil }
        // A scan's drift shears each line along itself: its turn comes with a shear as large, of one sign or the
        // other — which a bent crystal's does not.
        let shearGradient = inverse * shearCovariance
        guard (shearGradient - gradient).length > driftShare * gradient.length,
            (shearGradient + gradient).length > driftShare * gradient.length
        else { return nil }
        let towards = (1 / gradient.length) * gradient
        // The gradient's standard error along itself.
        let error = noise * LatticeAnalysis.dot(towards, inverse * towards).squareRoot()
        let significance = gradient.length / error
        let along = points.map { LatticeAnalysis.dot($0.p - centre, towards) }
        let from = mean + gradient.length * along.min()!, to = mean + gradient.length * along.max()!
        guard significance > Significance.threshold(tests: 1), (to - from) * 180 / Double.pi >= smallestBend else {
            return nil
        }
        return Bending(
            from: from * 180 / Double.pi, to: to * 180 / Double.pi, towards: towards, significance: significance)
    }

    /// An edge dislocation's turn of the lattice at `p`: −(b/2π)·x'/r², x' along its Burgers vector from its core, r the
    /// distance — the rotation of the textbook field, the same whatever the crystal's Poisson ratio.
    static func turn(of dislocation: Dislocation, at p: PixelVector) -> Double {
        let d = p - dislocation.core
        let b = dislocation.burgers.length
        guard b > 0, d.length > 0 else { return 0 }
        let along = LatticeAnalysis.dot(d, (1 / b) * dislocation.burgers)
        return -b / (2 * Double.pi) * along / (d.length * d.length)
    }
}
