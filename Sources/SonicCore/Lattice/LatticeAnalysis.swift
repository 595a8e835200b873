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

/// The atom columns of an image read as a crystal: the lattice they repeat on, the sublattices (columns at the same
/// place in every cell), each column's site, how bright it is for its sublattice, and how far it sits from its ideal
/// site.
///
/// - Lattice: the two shortest steps between columns that most columns take to a column of about the same integrated
///   intensity (a step to a column of another kind, or one only half the columns take, is no translation of the
///   crystal).
/// - Sublattices: the columns' positions within the cell, grouped; numbered brightest first (by median integrated
///   intensity).
/// - Ideal sites: a lattice (origin and both vectors) fitted to the brightest sublattice by iteratively reweighted
///   least squares (Tukey's biweight), so vacancies leave no hole in it and displaced or misplaced columns do not pull
///   it; each other sublattice's sites are that lattice moved by the sublattice's own offset, fitted the same robust
///   way. So a displaced sublattice (a polar domain) is measured against the lattice of the undisplaced one, and a
///   strained region against the lattice of the whole image.
public struct LatticeAnalysis: Sendable {
    public let columns: [AnalysedColumn]
    /// The fitted lattice vectors, in pixels; nil when the columns show no lattice.
    public let a: PixelVector?
    public let b: PixelVector?
    public let sublatticeCount: Int

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

    public init(columns found: [AtomColumn], spacing: Double) {
        let plain = found.map { AnalysedColumn(column: $0) }
        guard found.count >= 4, spacing > 0,
            let (a, b) = Self.translations(found, spacing: spacing)
        else {
            self.columns = plain; self.a = nil; self.b = nil; sublatticeCount = 0
            return
        }
        let positions = found.map { PixelVector(x: $0.x, y: $0.y) }
        let centroid = (1 / Double(found.count)) * positions.reduce(PixelVector(x: 0, y: 0), +)
        let origin = positions.min { ($0 - centroid).length < ($1 - centroid).length }!
        let basis = Basis(a: a, b: b)
        let fractional = positions.map { basis.fractional($0 - origin) }
        let groups = Self.sublattices(fractional, basis: basis, spacing: spacing, intensities: found)
        var analysed = plain
        guard let reference = groups.first(where: { $0.members.count >= 6 }) else {
            self.columns = plain; self.a = nil; self.b = nil; sublatticeCount = 0
            return
        }
        func site(_ k: Int, offset: (u: Double, v: Double)) -> LatticeSite {
            LatticeSite(
                n: Int((fractional[k].u - offset.u).rounded()), m: Int((fractional[k].v - offset.v).rounded()))
        }
        let referenceSites = reference.members.map { site($0, offset: reference.offset) }
        let lattice = RobustLattice.fit(
            positions: reference.members.map { positions[$0] }, sites: referenceSites, spacing: spacing)
        for (number, group) in groups.enumerated() {
            let sites = group.members.map { site($0, offset: group.offset) }
            let ideal = sites.map { lattice.position($0) }
            let shift = RobustLattice.offset(
                zip(group.members, ideal).map { positions[$0] - $1 }, spacing: spacing)
            let median = Self.median(group.members.map { found[$0].integratedIntensity })
            for (k, member) in group.members.enumerated() {
                analysed[member].sublattice = number + 1
                analysed[member].site = sites[k]
                analysed[member].relativeIntensity = median > 0 ? found[member].integratedIntensity / median : nil
                analysed[member].displacement = positions[member] - ideal[k] - shift
            }
        }
        self.columns = analysed
        self.a = lattice.a; self.b = lattice.b
        sublatticeCount = groups.count
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

    /// A sublattice: its columns and their position in the cell (fractions of a and b, each within ±½).
    struct Sublattice {
        var members: [Int]
        var offset: (u: Double, v: Double)
    }

    /// The columns grouped by their position in the cell, brightest group first; groups too small to be a sublattice
    /// are left out.
    static func sublattices(
        _ fractional: [(u: Double, v: Double)], basis: Basis, spacing: Double, intensities: [AtomColumn]
    ) -> [Sublattice] {
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
        var groups = seeds.map { Sublattice(members: [], offset: $0) }
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
