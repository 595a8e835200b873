/// The part of an image a lattice covers: the cells of the lattice that hold its columns.
///
/// Each cell is the parallelogram of the lattice vectors centred on a site of the brightest sublattice. A cell is
/// crystal when a column on the lattice lies in it; an empty cell most of whose neighbours are crystal is too (a
/// vacancy leaves no hole); a patch of crystal smaller than `minimumCells` is not (amorphous material puts a spot
/// on a lattice site now and then). Empty cells whose centre lies outside the image or less than half a spacing
/// inside it, where a column is cut off too much to be found for sure, take what most of their neighbours are.
public struct CrystalRegion: Sendable {
    public let width: Int, height: Int
    /// The share of the image the crystal covers, 0–1.
    public let fraction: Double
    /// The crystal's outline: the boundary of its largest part, simplified to within a column spacing (the scale the
    /// crystal's edge is known to).
    public let outline: ImagePolygon

    private let cells: CellMap

    /// The smallest patch of cells taken for a crystal: three by three.
    static let minimumCells = 9

    /// The region covered by the cells (counted from the lattice's origin) that hold columns on the lattice.
    init(occupied: [LatticeSite], lattice: RobustLattice, width: Int, height: Int, spacing: Double) {
        self.width = width
        self.height = height
        let basis = Basis(a: lattice.a, b: lattice.b)
        let corners =
            [(-0.5, -0.5), (Double(width) - 0.5, -0.5), (-0.5, Double(height) - 0.5)]
            .map { PixelVector(x: $0.0, y: $0.1) } + [PixelVector(x: Double(width) - 0.5, y: Double(height) - 0.5)]
        let fractions = corners.map { basis.fractional($0 - lattice.origin) }
        let lowN = Int(fractions.map(\.u).min()!.rounded(.down)) - 1
        let highN = Int(fractions.map(\.u).max()!.rounded(.up)) + 1
        let lowM = Int(fractions.map(\.v).min()!.rounded(.down)) - 1
        let highM = Int(fractions.map(\.v).max()!.rounded(.up)) + 1
        let countN = highN - lowN + 1, countM = highM - lowM + 1
        var grid = CellGrid(countN: countN, countM: countM)
        for site in occupied {
            let n = site.n - lowN, m = site.m - lowM
            if grid.inside(n, m) { grid.crystal[grid.index(n, m)] = true }
        }
        let margin = spacing / 2
        for m in 0..<countM {
            for n in 0..<countN {
                let centre = lattice.position(LatticeSite(n: n + lowN, m: m + lowM))
                // A cell holding a column is seen, though its centre lie near the edge or outside the image.
                grid.observed[grid.index(n, m)] =
                    grid.crystal[grid.index(n, m)]
                    || (centre.x >= margin && centre.x <= Double(width - 1) - margin && centre.y >= margin
                        && centre.y <= Double(height - 1) - margin)
            }
        }
        grid.fillHoles()
        grid.dropSmallPatches(below: Self.minimumCells)
        grid.extendToTheEdges()
        let cells = CellMap(
            origin: lattice.origin, basis: basis, first: LatticeSite(n: lowN, m: lowM), countN: countN,
            crystal: grid.crystal)
        self.cells = cells
        // The share and the outline from samples at the centres of a grid of quarter spacings over the image.
        let step = max(1, spacing / 4)
        let samplesX = max(1, Int((Double(width) / step).rounded())),
            samplesY = max(1, Int((Double(height) / step).rounded()))
        let stepX = Double(width) / Double(samplesX), stepY = Double(height) / Double(samplesY)
        var inside = [Bool](repeating: false, count: samplesX * samplesY)
        var count = 0
        for j in 0..<samplesY {
            for i in 0..<samplesX {
                let p = ImagePoint(x: -0.5 + (Double(i) + 0.5) * stepX, y: -0.5 + (Double(j) + 0.5) * stepY)
                if cells.contains(p) {
                    inside[j * samplesX + i] = true
                    count += 1
                }
            }
        }
        fraction = Double(count) / Double(samplesX * samplesY)
        // The contour cuts the image's corners by half a sample: onto the edge with them.
        func onEdge(_ value: Double, step: Double, size: Int) -> Double {
            value < -0.5 + 0.6 * step ? -0.5 : value > Double(size) - 0.5 - 0.6 * step ? Double(size) - 0.5 : value
        }
        let loops = Contours.loops(inside, width: samplesX, height: samplesY).map { loop in
            ImagePolygon(
                loop.map {
                    ImagePoint(
                        x: onEdge(-0.5 + $0.x * stepX, step: stepX, size: width),
                        y: onEdge(-0.5 + $0.y * stepY, step: stepY, size: height))
                })
        }
        let largest = loops.max { $0.area < $1.area }
        outline = ImagePolygon(Contours.simplified(largest?.points ?? [], tolerance: spacing))
    }

    /// Whether `point` lies in the crystal.
    public func contains(_ point: ImagePoint) -> Bool { cells.contains(point) }
}

/// Which of the lattice's cells are crystal, and the cell a point lies in: the one whose site (origin + n·a + m·b)
/// is nearest in cell coordinates.
private struct CellMap {
    let origin: PixelVector
    let basis: Basis
    /// The grid's first cell, and how many it holds along a; along b, as many as there are rows.
    let first: LatticeSite
    let countN: Int
    let crystal: [Bool]

    func contains(_ point: ImagePoint) -> Bool {
        guard point.x.isFinite && point.y.isFinite else { return false }
        let f = basis.fractional(PixelVector(x: point.x, y: point.y) - origin)
        guard abs(f.u) < 1e9 && abs(f.v) < 1e9 else { return false }
        let n = Int(f.u.rounded()) - first.n, m = Int(f.v.rounded()) - first.m
        guard n >= 0 && n < countN && m >= 0 && m < crystal.count / countN else { return false }
        return crystal[m * countN + n]
    }
}

/// The lattice's cells over the image: which are crystal, and which can be seen (their centre in the image).
private struct CellGrid {
    let countN: Int, countM: Int
    var crystal: [Bool]
    var observed: [Bool]

    init(countN: Int, countM: Int) {
        self.countN = countN
        self.countM = countM
        crystal = [Bool](repeating: false, count: countN * countM)
        observed = crystal
    }

    func index(_ n: Int, _ m: Int) -> Int { m * countN + n }
    func inside(_ n: Int, _ m: Int) -> Bool { n >= 0 && n < countN && m >= 0 && m < countM }

    /// The eight cells around (n, m) that lie in the grid.
    func neighbours(_ n: Int, _ m: Int) -> [Int] {
        var found: [Int] = []
        for dm in -1...1 {
            for dn in -1...1 where (dn != 0 || dm != 0) && inside(n + dn, m + dm) {
                found.append(index(n + dn, m + dm))
            }
        }
        return found
    }

    /// An empty cell seen in the image most of whose neighbours seen are crystal is crystal too: a vacancy, or a
    /// column the search missed.
    mutating func fillHoles() {
        var filled = crystal
        for m in 0..<countM {
            for n in 0..<countN where observed[index(n, m)] && !crystal[index(n, m)] {
                let seen = neighbours(n, m).filter { observed[$0] }
                if 2 * seen.filter({ crystal[$0] }).count > seen.count { filled[index(n, m)] = true }
            }
        }
        crystal = filled
    }

    /// Patches of crystal (cells joined at sides or corners) smaller than `minimum` cells are not crystal.
    mutating func dropSmallPatches(below minimum: Int) {
        var patch = [Int](repeating: -1, count: crystal.count)
        var patches = 0
        for start in crystal.indices where crystal[start] && patch[start] < 0 {
            var members = [start]
            patch[start] = patches
            var k = 0
            while k < members.count {
                let cell = members[k]
                k += 1
                for next in neighbours(cell % countN, cell / countN) where crystal[next] && patch[next] < 0 {
                    patch[next] = patches
                    members.append(next)
                }
            }
            if members.count < minimum { for cell in members { crystal[cell] = false } }
            patches += 1
        }
    }

    /// Cells not seen take what most of their neighbours seen are, outwards one ring at a time.
    mutating func extendToTheEdges() {
        var decided = observed
        while decided.contains(false) {
            var next = decided
            for m in 0..<countM {
                for n in 0..<countN where !decided[index(n, m)] {
                    let known = neighbours(n, m).filter { decided[$0] }
                    guard !known.isEmpty else { continue }
                    crystal[index(n, m)] = 2 * known.filter { crystal[$0] }.count > known.count
                    next[index(n, m)] = true
                }
            }
            guard next != decided else { return }
            decided = next
        }
    }
}
