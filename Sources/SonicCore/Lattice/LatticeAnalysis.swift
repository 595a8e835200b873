import RealModule

/// A vector in image pixels (x right, y down).
public struct PixelVector: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public var length: Double { (x * x + y * y).squareRoot() }
    static func + (p: PixelVector, q: PixelVector) -> PixelVector { PixelVector(x: p.x + q.x, y: p.y + q.y) }
    static func - (p: PixelVector, q: PixelVector) -> PixelVector { PixelVector(x: p.x - q.x, y: p.y - q.y) }
    static func * (k: Double, p: PixelVector) -> PixelVector { PixelVector(x: k * p.x, y: k * p.y) }
}

/// A lattice site: `n` steps along the lattice vector a and `m` along b from the reference column's cell.
public struct LatticeSite: Sendable, Hashable {
    public var n: Int, m: Int
    public init(n: Int, m: Int) { self.n = n; self.m = m }
}

/// A column with what the lattice says of it.
public struct AnalysedColumn: Sendable, Equatable {
    public var column: AtomColumn
    /// 1, 2, …: the brightest sublattice first; nil for a column on no sublattice (an interstitial, a defect).
    public var sublattice: Int?
    public var site: LatticeSite?
    /// The integrated intensity over its sublattice's median: 1.3 for a column 30 % brighter than is usual there.
    public var relativeIntensity: Double?
    /// From the column's ideal site to its centre, in pixels.
    public var displacement: PixelVector?

    public init(
        column: AtomColumn, sublattice: Int? = nil, site: LatticeSite? = nil, relativeIntensity: Double? = nil,
        displacement: PixelVector? = nil
    ) {
        self.column = column; self.sublattice = sublattice; self.site = site
        self.relativeIntensity = relativeIntensity; self.displacement = displacement
    }
}

/// The atom columns of an image read as a crystal: where in the image the crystal is, the lattice its columns repeat
/// on, the sublattices (columns at the same place in every cell), each column's site, how bright it is for its
/// sublattice, and how far it sits from its ideal site.
///
/// - Lattice: the two shortest steps between columns that most columns take to a column of about the same integrated
///   intensity (a step to a column of another kind, or one only half the columns take, is no translation of the
///   crystal).
/// - Crystal: the lattice's cells that hold columns on the lattice — columns with a column one lattice step away
///   along at least three of ±a, ±b (`CrystalRegion`). Columns outside it (amorphous material) are left out: they are
///   no columns of the crystal.
/// - Sublattices: the columns' positions within the cell, grouped; numbered brightest first (by median integrated
///   intensity).
/// - Ideal sites: a lattice (origin and both vectors) fitted to the brightest sublattice by iteratively reweighted
///   least squares (Tukey's biweight), so vacancies leave no hole in it and displaced or misplaced columns do not pull
///   it; each other sublattice's sites are that lattice moved by the sublattice's own offset, fitted the same robust
///   way. So a displaced sublattice (a polar domain) is measured against the lattice of the undisplaced one, and a
///   strained region against the lattice of the whole image.
public struct LatticeAnalysis: Sendable {
    /// The columns of the crystal (every column found, where there is no lattice).
    public let columns: [AnalysedColumn]
    /// The fitted lattice vectors, in pixels; nil when the columns show no lattice.
    public let a: PixelVector?
    public let b: PixelVector?
    /// The brightest sublattice's site (0, 0), in pixels; nil when the columns show no lattice.
    public let origin: PixelVector?
    /// The sublattices, brightest first: sublattice k is `sublattices[k - 1]`.
    public let sublattices: [Sublattice]
    /// Where the crystal is; nil when the columns show no lattice.
    public let crystal: CrystalRegion?

    public var sublatticeCount: Int { sublattices.count }

    /// The columns at the same place in every cell.
    public struct Sublattice: Sendable, Equatable {
        /// From a site of the lattice (origin + n·a + m·b) to this sublattice's ideal site in the same cell, pixels.
        public var offset: PixelVector
        public var columnCount: Int
        /// Its columns' median integrated intensity.
        public var medianIntensity: Double
    }

    /// Columns whose integrated intensities differ by less than this factor (in the median of a step's pairs) may be
    /// the same kind: far above the noise of a fit, below the contrast of two sublattices.
    static let sameKind = 1.25
    /// A step is a translation when at least this share of the most common step's pairs take it (allowing for the
    /// image's edges): a step between two sublattices of a honeycomb, say, is taken by only half the columns.
    static let commonShare = 0.7
    /// How far apart steps (and positions within the cell) may be and still count as the same, in column spacings.
    static let sameStep = 0.15
    /// A sublattice has at least this share of the largest one's columns (and at least 3).
    static let sublatticeShare = 0.05
    /// Steps are collected from at most this many columns, those nearest the middle: enough for the lattice of any
    /// image, and fast for the largest.
    static let sampledColumns = 2000
    /// A column is on the lattice when there are columns one lattice step from it along at least this many of ±a and
    /// ±b: three, so a column at the crystal's edge counts, and a spot of amorphous material hardly ever does (a
    /// column at a corner of the crystal, with two, is counted in by its neighbours: see `CrystalRegion`).
    static let latticeNeighbours = 3

    /// The columns found in a `width` × `height` image, whose nearest neighbours are about `spacing` pixels apart.
    public init(columns found: [AtomColumn], spacing: Double, width: Int, height: Int) {
        guard let (reading, crystal) = Self.read(found, spacing: spacing, width: width, height: height) else {
            columns = found.map { AnalysedColumn(column: $0) }
            a = nil; b = nil; origin = nil; sublattices = []; crystal = nil
            return
        }
        columns = reading.columns
        a = reading.lattice.a
        b = reading.lattice.b
        origin = reading.lattice.origin
        sublattices = reading.sublattices
        self.crystal = crystal
    }

    /// The crystal, and its columns read on its lattice; nil when the columns show no lattice.
    private static func read(_ found: [AtomColumn], spacing: Double, width: Int, height: Int)
        -> (Reading, CrystalRegion)?
    {
        guard found.count >= 4, spacing > 0, let (a, b) = translations(found, spacing: spacing) else { return nil }
        let onLattice = onLattice(found, a: a, b: b, spacing: spacing)
        guard
            let ordered = Reading(
                found.indices.filter { onLattice[$0] }.map { found[$0] }, a: a, b: b, spacing: spacing)
        else { return nil }
        let basis = Basis(a: ordered.lattice.a, b: ordered.lattice.b)
        let cells = ordered.columns.map { c -> LatticeSite in
            let f = basis.fractional(PixelVector(x: c.column.x, y: c.column.y) - ordered.lattice.origin)
            return LatticeSite(n: Int(f.u.rounded()), m: Int(f.v.rounded()))
        }
        let crystal = CrystalRegion(
            occupied: cells, lattice: ordered.lattice, width: width, height: height, spacing: spacing)
        let kept = found.filter { crystal.contains(ImagePoint(x: $0.x, y: $0.y)) }
        return Reading(kept, a: a, b: b, spacing: spacing).map { ($0, crystal) }
    }

    /// Every column the finder finds, read as a crystal.
    public init(finding finder: ColumnFinder) {
        self.init(
            columns: finder.findAll(), spacing: finder.spacing ?? 0, width: finder.image.width,
            height: finder.image.height)
    }

    /// The ideal site of `sublattice` (1, 2, …) in cell `site`, in pixels; nil without a lattice.
    public func idealSite(_ site: LatticeSite, sublattice: Int) -> PixelVector? {
        guard let origin, let a, let b, sublattices.indices.contains(sublattice - 1) else { return nil }
        return origin + Double(site.n) * a + Double(site.m) * b + sublattices[sublattice - 1].offset
    }

    /// The columns read on given lattice translations: their sublattices, sites and displacements, and the lattice
    /// fitted to the brightest sublattice; nil when no sublattice holds enough columns to fit one.
    private struct Reading {
        var columns: [AnalysedColumn]
        var lattice: RobustLattice
        var sublattices: [Sublattice]

        init?(_ found: [AtomColumn], a: PixelVector, b: PixelVector, spacing: Double) {
            guard !found.isEmpty else { return nil }
            let positions = found.map { PixelVector(x: $0.x, y: $0.y) }
            let centroid = (1 / Double(found.count)) * positions.reduce(PixelVector(x: 0, y: 0), +)
            let origin = positions.min { ($0 - centroid).length < ($1 - centroid).length }!
            let basis = Basis(a: a, b: b)
            let fractional = positions.map { basis.fractional($0 - origin) }
            let groups = LatticeAnalysis.sublattices(fractional, basis: basis, spacing: spacing, intensities: found)
            guard let reference = groups.first(where: { $0.members.count >= 6 }) else { return nil }
            func site(_ k: Int, offset: (u: Double, v: Double)) -> LatticeSite {
                LatticeSite(
                    n: Int((fractional[k].u - offset.u).rounded()), m: Int((fractional[k].v - offset.v).rounded()))
            }
            let referenceSites = reference.members.map { site($0, offset: reference.offset) }
            let lattice = RobustLattice.fit(
                positions: reference.members.map { positions[$0] }, sites: referenceSites, spacing: spacing)
            var analysed = found.map { AnalysedColumn(column: $0) }
            var sublattices: [Sublattice] = []
            for (number, group) in groups.enumerated() {
                let sites = group.members.map { site($0, offset: group.offset) }
                let ideal = sites.map { lattice.position($0) }
                let shift = RobustLattice.offset(
                    zip(group.members, ideal).map { positions[$0] - $1 }, spacing: spacing)
                let median = LatticeAnalysis.median(group.members.map { found[$0].integratedIntensity })
                for (k, member) in group.members.enumerated() {
                    analysed[member].sublattice = number + 1
                    analysed[member].site = sites[k]
                    analysed[member].relativeIntensity = median > 0 ? found[member].integratedIntensity / median : nil
                    analysed[member].displacement = positions[member] - ideal[k] - shift
                }
                sublattices.append(Sublattice(offset: shift, columnCount: group.members.count, medianIntensity: median))
            }
            columns = analysed
            self.lattice = lattice
            self.sublattices = sublattices
        }
    }

    /// Whether each column is on the lattice: it has columns one lattice step away along at least `latticeNeighbours`
    /// of ±a and ±b, or along two of them columns that have (at the crystal's corners and edges, where steps lead out
    /// of it).
    static func onLattice(_ columns: [AtomColumn], a: PixelVector, b: PixelVector, spacing: Double) -> [Bool] {
        let tolerance = sameStep * spacing
        var grid = SiteGrid(cellSize: tolerance)
        let points = columns.map { ColumnGaussian(x: $0.x, y: $0.y, amplitude: $0.peak, sigma: $0.sigma) }
        for k in points.indices { grid.insert(k, x: points[k].x, y: points[k].y) }
        let neighbours = columns.map { c in
            [a, -1 * a, b, -1 * b].compactMap { step -> Int? in
                let q = PixelVector(x: c.x, y: c.y) + step
                return grid.indices(nearX: q.x, y: q.y, within: tolerance, in: points).first
            }
        }
        let ordered = neighbours.map { $0.count >= latticeNeighbours }
        return columns.indices.map { ordered[$0] || neighbours[$0].filter { ordered[$0] }.count >= 2 }
    }

    // MARK: - The lattice

    /// The crystal's two shortest independent translations, reduced and oriented (a pointing right, b down); nil
    /// when the columns repeat on no lattice.
    static func translations(_ columns: [AtomColumn], spacing: Double) -> (PixelVector, PixelVector)? {
        let sample = middle(columns)
        let reach = 2.5 * spacing
        var grid = SiteGrid(cellSize: reach / 2)
        let gaussians = sample.map { ColumnGaussian(x: $0.x, y: $0.y, amplitude: $0.peak, sigma: $0.sigma) }
        for k in gaussians.indices { grid.insert(k, x: gaussians[k].x, y: gaussians[k].y) }
        var clusters: [StepCluster] = []
        let tolerance = sameStep * spacing
        for p in sample.indices {
            for q in grid.indices(nearX: sample[p].x, y: sample[p].y, within: reach, in: gaussians) where q > p {
                var step = PixelVector(x: sample[q].x - sample[p].x, y: sample[q].y - sample[p].y)
                // A step and its reverse are one translation: kept pointing into the lower half-plane.
                if step.y < 0 || (step.y == 0 && step.x < 0) { step = -1 * step }
                let ratio = abs(
                    Double.log(max(sample[q].integratedIntensity, .leastNormalMagnitude))
                        - Double.log(max(sample[p].integratedIntensity, .leastNormalMagnitude)))
                if let c = clusters.firstIndex(where: { ($0.seed - step).length < tolerance }) {
                    clusters[c].add(step, ratio: ratio)
                } else {
                    clusters.append(StepCluster(seed: step, ratio: ratio))
                }
            }
        }
        // How often a step is taken, for the part of the sample it fits in.
        let xs = sample.map(\.x), ys = sample.map(\.y)
        let width = xs.max()! - xs.min()! + spacing, height = ys.max()! - ys.min()! + spacing
        func frequency(_ c: StepCluster) -> Double {
            let area = max(0, width - abs(c.mean.x)) * max(0, height - abs(c.mean.y))
            return area > 0 ? Double(c.count) / area : 0
        }
        guard let most = clusters.map(frequency).max(), most > 0 else { return nil }
        let candidates = clusters.filter {
            $0.mean.length > 0.5 * spacing && frequency($0) >= commonShare * most
                && median($0.ratios) <= Double.log(sameKind)
        }
        .map(\.mean).sorted { $0.length < $1.length }
        guard let first = candidates.first,
            var second = candidates.first(where: { abs(cross(first, $0)) > 0.2 * first.length * $0.length })
        else { return nil }
        // Lagrange–Gauss reduction: the shortest basis of the lattice the two span.
        second = second - (dot(second, first) / dot(first, first)).rounded() * first
        var (a, b) = abs(first.x) >= abs(second.x) ? (first, second) : (second, first)
        if a.x < 0 { a = -1 * a }
        if b.y < 0 { b = -1 * b }
        return (a, b)
    }

    /// The columns nearest the middle of them all, at most `sampledColumns`.
    private static func middle(_ columns: [AtomColumn]) -> [AtomColumn] {
        guard columns.count > sampledColumns else { return columns }
        let cx = columns.map(\.x).reduce(0, +) / Double(columns.count)
        let cy = columns.map(\.y).reduce(0, +) / Double(columns.count)
        func distance(_ c: AtomColumn) -> Double { (c.x - cx) * (c.x - cx) + (c.y - cy) * (c.y - cy) }
        return Array(columns.sorted { distance($0) < distance($1) }.prefix(sampledColumns))
    }

    private struct StepCluster {
        let seed: PixelVector
        var sum: PixelVector
        var count = 1
        var ratios: [Double]
        init(seed: PixelVector, ratio: Double) { self.seed = seed; sum = seed; ratios = [ratio] }
        mutating func add(_ step: PixelVector, ratio: Double) {
            sum = sum + step; count += 1; ratios.append(ratio)
        }
        var mean: PixelVector { (1 / Double(count)) * sum }
    }

    // MARK: - Sublattices

    /// A sublattice as grouped: its columns and their position in the cell (fractions of a and b, each within ±½).
    struct ColumnGroup {
        var members: [Int]
        var offset: (u: Double, v: Double)
    }

    /// The columns grouped by their position in the cell, brightest group first; groups too small to be a sublattice
    /// are left out.
    static func sublattices(
        _ fractional: [(u: Double, v: Double)], basis: Basis, spacing: Double, intensities: [AtomColumn]
    ) -> [ColumnGroup] {
        func wrapped(_ u: Double) -> Double { u - u.rounded() }
        func apart(_ p: (u: Double, v: Double), _ q: (u: Double, v: Double)) -> (u: Double, v: Double) {
            (wrapped(p.u - q.u), wrapped(p.v - q.v))
        }
        let tolerance = sameStep * spacing
        // Seeds from a first pass, then every column given to its nearest seed and each group's position averaged
        // about its seed (so a group straddling the cell's edge averages right).
        var seeds: [(u: Double, v: Double)] = []
        for f in fractional where !seeds.contains(where: { basis.length(apart(f, $0)) < tolerance }) {
            seeds.append((wrapped(f.u), wrapped(f.v)))
        }
        var groups = seeds.map { ColumnGroup(members: [], offset: $0) }
        var sums = [(u: Double, v: Double)](repeating: (0, 0), count: seeds.count)
        for (k, f) in fractional.enumerated() {
            let nearest = seeds.indices.min { basis.length(apart(f, seeds[$0])) < basis.length(apart(f, seeds[$1])) }!
            let d = apart(f, seeds[nearest])
            groups[nearest].members.append(k)
            sums[nearest].u += d.u; sums[nearest].v += d.v
        }
        for g in groups.indices where !groups[g].members.isEmpty {
            let n = Double(groups[g].members.count)
            groups[g].offset = (wrapped(seeds[g].u + sums[g].u / n), wrapped(seeds[g].v + sums[g].v / n))
        }
        let largest = groups.map(\.members.count).max() ?? 0
        let kept = groups.filter { $0.members.count >= max(3, Int((sublatticeShare * Double(largest)).rounded(.up))) }
        let brightness = kept.map { median($0.members.map { intensities[$0].integratedIntensity }) }
        return kept.indices.sorted { brightness[$0] > brightness[$1] }.map { kept[$0] }
    }

    // MARK: - Helpers

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let half = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
    }

    static func dot(_ p: PixelVector, _ q: PixelVector) -> Double { p.x * q.x + p.y * q.y }
    static func cross(_ p: PixelVector, _ q: PixelVector) -> Double { p.x * q.y - p.y * q.x }
}

/// Two lattice vectors, for going between pixels and fractions of them.
struct Basis {
    let a: PixelVector, b: PixelVector
    private let determinant: Double

    init(a: PixelVector, b: PixelVector) {
        self.a = a; self.b = b
        determinant = LatticeAnalysis.cross(a, b)
    }

    /// (u, v) with v = u·a + v·b.
    func fractional(_ p: PixelVector) -> (u: Double, v: Double) {
        ((p.x * b.y - p.y * b.x) / determinant, (a.x * p.y - a.y * p.x) / determinant)
    }

    /// The length in pixels of u·a + v·b.
    func length(_ f: (u: Double, v: Double)) -> Double { (f.u * a + f.v * b).length }
}
