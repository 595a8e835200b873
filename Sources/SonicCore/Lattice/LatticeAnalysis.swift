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
    /// 1, 2, …: the brightest sublattice of its grain first; nil for a column on no sublattice (an interstitial, a
    /// defect's core).
    public var sublattice: Int?
    /// Its cell, counted along a and b from the cell its grain was first read in.
    public var site: LatticeSite?
    /// The integrated intensity over its sublattice's median: 1.3 for a column 30 % brighter than is usual there.
    public var relativeIntensity: Double?
    /// From the column's ideal site — where its neighbours on the brightest sublattice put it — to its centre, in
    /// pixels.
    public var displacement: PixelVector?
    /// 0 for the grain the reference lattice lies in, 1, 2, … for others; nil off every grain.
    public var grain: Int?
    /// The lattice vectors a and b round the column (the matrix's columns), from its neighbours.
    public var cell: Matrix2?
    /// Its strain and rotation against the reference lattice; nil where too few neighbours show them.
    public var deformation: Deformation?

    public init(
        column: AtomColumn, sublattice: Int? = nil, site: LatticeSite? = nil, relativeIntensity: Double? = nil,
        displacement: PixelVector? = nil
    ) {
        self.column = column; self.sublattice = sublattice; self.site = site
        self.relativeIntensity = relativeIntensity; self.displacement = displacement
    }
}

/// The atom columns of an image read as a crystal, each against its own neighbourhood: which columns are crystal and
/// in which grain, their sublattices and sites, the lattice round each column, how far each sits from where its
/// neighbours put it, how bright it is for its sublattice, and its strain and rotation against a reference lattice.
///
/// - Grains (`LocalReading`): each read out from a seed, column by column, through the cell its neighbours give
///   it, so strain, bending, dislocations and a scan's drift leave one crystal and one set of sublattices; a second
///   grain is read on its own lattice.
/// - Lattice and sublattices where a grain is seeded: the two shortest steps between columns that most columns take
///   to a column of about the same integrated intensity (a step to a column of another kind, or one only half the
///   columns take, is no translation); the sublattices are the columns' places in the cell, brightest first.
/// - Each column's cell: the lattice vectors fitted, by least squares with a free origin, to its neighbours on its
///   grain's brightest sublattice (the eight round a column of it; the nearest round a column of another). Its ideal
///   site is where that fit puts it, moved by its sublattice's place in the cell (the mean over the whole grain, so
///   two polar domains each read their own shift); its displacement runs from there to its centre.
/// - The crystal (`CrystalRegion`): the cells of the grains' columns. Columns outside it (amorphous material) are
///   left out: they are no columns of the crystal.
/// - The reference lattice (`ReferenceLattice`): the cells of a region — the largest where the lattice is the same
///   throughout, within its noise, or one given — averaged. Each column's deformation is its cell against it.
public struct LatticeAnalysis: Sendable {
    /// The columns of the crystal (every column found, where there is no lattice).
    public let columns: [AnalysedColumn]
    /// The reference lattice's vectors, in pixels (a pointing right, b down); nil when the columns show no lattice.
    public let a: PixelVector?
    public let b: PixelVector?
    /// The sublattices of the reference grain, brightest first: sublattice k is `sublattices[k - 1]`.
    public let sublattices: [Sublattice]
    /// Where the crystal is; nil when the columns show no lattice.
    public let crystal: CrystalRegion?
    /// The grains, the reference lattice's first.
    public let grains: [Grain]
    /// Where the reference lattice was read; nil without a lattice.
    public let reference: ReferenceLattice?
    /// For each column: its neighbours (indices into `columns`) one lattice step away on its own sublattice, along
    /// +a, −a, +b and −b.
    public let neighbours: [[Int?]]
    /// The columns found off the crystal (spots in amorphous material beside it); none without a lattice.
    public let offCrystal: [ImagePoint]

    public var sublatticeCount: Int { sublattices.count }

    /// The columns at the same place in every cell.
    public struct Sublattice: Sendable, Equatable {
        /// Its place in the cell, as fractions of a and b.
        public var offset: PixelVector
        public var columnCount: Int
        /// Its columns' median integrated intensity.
        public var medianIntensity: Double
    }

    /// A grain: a part of the crystal on one lattice.
    public struct Grain: Sendable, Equatable {
        /// Its lattice vectors where it was first read (the matrix's columns).
        public var cell: Matrix2
        /// Its turn against the reference lattice, radians, clockwise on screen, within the lattice's own symmetry.
        public var rotation: Double
        /// Its share of the image.
        public var fraction: Double
        public var columnCount: Int
        public var sublattices: [Sublattice]
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

    /// The columns found in a `width` × `height` image, whose nearest neighbours are about `spacing` pixels apart;
    /// the reference lattice read in `referenceRegion` where one is given.
    public init(
        columns found: [AtomColumn], spacing: Double, width: Int, height: Int, referenceRegion: ImageRectangle? = nil
    ) {
        let reading = LocalReading(columns: found, spacing: spacing, width: width, height: height)
        guard !reading.grains.isEmpty else {
            columns = found.map { AnalysedColumn(column: $0) }
            a = nil; b = nil; sublattices = []; crystal = nil; grains = []; reference = nil; neighbours = []
            offCrystal = []
            return
        }
        let positions = found.map { PixelVector(x: $0.x, y: $0.y) }
        let fits = LocalCells(reading, positions: positions, spacing: spacing)
        let chosen = ReferenceLattice(
            reading, cells: fits.cell, positions: positions, region: referenceRegion, spacing: spacing)
        let order = Self.grainOrder(reading, first: chosen?.grain)
        let numberOf = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let owners = found.indices.filter { reading.sublattice[$0] == 0 }.compactMap { k in
            (fits.cell[k] ?? reading.cell[k]).map {
                (position: positions[k], cell: $0, grain: numberOf[reading.grain[k]!]!)
            }
        }
        let region = CrystalRegion(
            owners: owners, grainCount: reading.grains.count, width: width, height: height, spacing: spacing)
        let kept = found.indices.filter { region.contains(ImagePoint(x: positions[$0].x, y: positions[$0].y)) }
        offCrystal = found.map { ImagePoint(x: $0.x, y: $0.y) }.filter { !region.contains($0) }
        var analysed = kept.map { AnalysedColumn(column: found[$0]) }
        var grains: [Grain] = []
        for (number, g) in order.enumerated() {
            let grain = reading.grains[g]
            let symmetry = chosen.map { Self.matching(grain.cell, to: $0.cell) } ?? .identity
            var stats: [Sublattice] = []
            for (s, offset) in grain.offsets.enumerated() {
                let members = grain.members.filter { reading.sublattice[$0] == s }
                let median = Self.median(members.map { found[$0].integratedIntensity })
                stats.append(
                    Sublattice(
                        offset: offset + fits.offsetShift[g][s], columnCount: members.count, medianIntensity: median))
            }
            for (row, k) in kept.enumerated() where reading.grain[k] == g {
                let s = reading.sublattice[k]!
                analysed[row].grain = number
                analysed[row].sublattice = s + 1
                analysed[row].site = reading.site[k]
                analysed[row].relativeIntensity =
                    stats[s].medianIntensity > 0 ? found[k].integratedIntensity / stats[s].medianIntensity : nil
                analysed[row].displacement = fits.displacement[k]
                analysed[row].cell = fits.cell[k] ?? reading.cell[k]
                if let local = fits.cell[k], let chosen, let inverse = chosen.cell.inverse {
                    analysed[row].deformation = Deformation(gradient: local * symmetry * inverse)
                }
            }
            let turned = chosen.flatMap { c in c.cell.inverse.map { Deformation(gradient: grain.cell * symmetry * $0) }
            }
            grains.append(
                Grain(
                    cell: grain.cell, rotation: turned?.rotation ?? 0, fraction: region.grainFractions[number],
                    columnCount: grain.members.count, sublattices: stats))
        }
        let rowOf = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        neighbours = kept.map { k in reading.neighbours[k].map { $0.flatMap { rowOf[$0] } } }
        columns = analysed
        let referenceCell = chosen?.cell ?? reading.grains[order[0]].cell
        (a, b) = Self.oriented(referenceCell.columnA, referenceCell.columnB)
        sublattices = grains[0].sublattices
        crystal = region
        self.grains = grains
        reference = chosen
    }

    /// The grains in order: the reference lattice's first, then the others largest first.
    private static func grainOrder(_ reading: LocalReading, first: Int?) -> [Int] {
        let bySize = reading.grains.indices.sorted {
            reading.grains[$0].members.count > reading.grains[$1].members.count
        }
        guard let first else { return bySize }
        return [first] + bySize.filter { $0 != first }
    }

    /// The change of a grain's lattice vectors to those of the same lattice (a unimodular integer matrix of the
    /// same handedness) that turn least against `reference` and are least strained against it: a square grain
    /// turned 27° reads as turned 27°, not −63°.
    static func matching(_ cell: Matrix2, to reference: Matrix2) -> Matrix2 {
        guard let inverse = reference.inverse else { return .identity }
        var best: (matrix: Matrix2, cost: Double) = (.identity, .infinity)
        let entries = [-1.0, 0, 1]
        for xx in entries {
            for xy in entries {
                for yx in entries {
                    for yy in entries {
                        let s = Matrix2(xx: xx, xy: xy, yx: yx, yy: yy)
                        guard abs(s.determinant) == 1, (cell * s).determinant * reference.determinant > 0 else {
                            continue
                        }
                        let d = Deformation(gradient: cell * s * inverse)
                        let cost = abs(d.exx) + abs(d.eyy) + abs(d.exy) + 0.01 * abs(d.rotation)
                        if cost < best.cost - 1e-9 { best = (s, cost) }
                    }
                }
            }
        }
        return best.matrix
    }

    /// Two lattice vectors reduced and turned as the lattice is described: a pointing right, b down.
    static func oriented(_ first: PixelVector, _ second: PixelVector) -> (PixelVector, PixelVector) {
        var (a, b) = abs(first.x) >= abs(second.x) ? (first, second) : (second, first)
        if a.x < 0 { a = -1 * a }
        if b.y < 0 { b = -1 * b }
        return (a, b)
    }

    /// Every column the finder finds, read as a crystal.
    public init(finding finder: ColumnFinder, referenceRegion: ImageRectangle? = nil) {
        self.init(
            columns: finder.findAll(), spacing: finder.spacing ?? 0, width: finder.image.width,
            height: finder.image.height, referenceRegion: referenceRegion)
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
        return oriented(first, second)
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
