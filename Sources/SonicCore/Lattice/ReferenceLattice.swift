/// The lattice strain and rotation are measured against: the mean cell of a region's columns on their grain's
/// brightest sublattice.
///
/// By default the region is the largest where the lattice is the same throughout within its own noise: each column's
/// cell is read as a deformation of its grain's (strain and rotation, four numbers), the noise of each number from how
/// much it differs between neighbours, and the deformation most columns share — within three standard deviations of
/// the noise in each number, or a thousandth where the columns agree better — picks its columns; the largest patch of
/// them joined as neighbours is the region. So a uniform crystal is its own reference, one side of an interface or
/// the far field of a dislocation is the reference there, and a bent crystal's is the part of it least turned
/// against the most common turn. Or the region is a rectangle given (`--reference`): the columns in it of the grain
/// most of them are in.
public struct ReferenceLattice: Sendable {
    /// The lattice vectors a and b (the matrix's columns), in pixels.
    public let cell: Matrix2
    /// How many columns it was read from.
    public let columnCount: Int
    /// The columns' bounding box.
    public let bounds: ImageRectangle
    /// Whether the region was given rather than found.
    public let given: Bool
    /// Which of the reading's grains it lies in.
    let grain: Int

    /// The smallest difference told apart, where the columns agree better than that: a thousandth.
    static let smallestTolerance = 1e-3
    /// At most this many columns are tried as the centre of the most common deformation.
    static let candidates = 300

    init?(
        _ reading: LocalReading, cells: [Matrix2?], positions: [PixelVector], region: ImageRectangle?, spacing: Double
    ) {
        let members: [Int], grain: Int
        if let region {
            let inside = positions.indices.filter {
                reading.sublattice[$0] == 0 && cells[$0] != nil && region.contains(positions[$0])
            }
            let counts = Dictionary(grouping: inside) { reading.grain[$0]! }
            guard let most = counts.max(by: { $0.value.count < $1.value.count }) else { return nil }
            (members, grain) = (most.value, most.key)
        } else {
            var best: (members: [Int], grain: Int)?
            for g in reading.grains.indices {
                let found = Self.undisturbed(reading, grain: g, cells: cells)
                if found.count > (best?.members.count ?? 0) { best = (found, g) }
            }
            guard let best else { return nil }
            (members, grain) = (best.members, best.grain)
        }
        guard !members.isEmpty else { return nil }
        let sum = members.reduce(Matrix2(xx: 0, xy: 0, yx: 0, yy: 0)) { $0 + cells[$1]! }
        cell = (1 / Double(members.count)) * sum
        columnCount = members.count
        let xs = members.map { positions[$0].x }, ys = members.map { positions[$0].y }
        bounds = ImageRectangle(x0: xs.min()!, y0: ys.min()!, x1: xs.max()!, y1: ys.max()!)
        given = region != nil
        self.grain = grain
    }

    /// The largest patch of grain `g`'s brightest sublattice whose deformation is the most common one, within its
    /// noise.
    private static func undisturbed(_ reading: LocalReading, grain g: Int, cells: [Matrix2?]) -> [Int] {
        let seed = reading.grains[g].cell
        guard let inverse = seed.inverse else { return [] }
        let columns = reading.grains[g].members.filter { reading.sublattice[$0] == 0 && cells[$0] != nil }
        guard !columns.isEmpty else { return [] }
        let vectors = columns.map { k -> [Double] in
            let d = Deformation(gradient: cells[k]! * inverse)
            return [d.exx, d.eyy, d.exy, d.rotation]
        }
        let row = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        // The noise of each number, from the differences between neighbours along +a and +b.
        var differences: [[Double]] = [[], [], [], []]
        for (r, k) in columns.enumerated() {
            for next in [reading.neighbours[k][0], reading.neighbours[k][2]].compactMap({ $0 }) {
                guard let q = row[next] else { continue }
                for c in 0..<4 { differences[c].append(vectors[r][c] - vectors[q][c]) }
            }
        }
        let tolerances = differences.map {
            max(3 * Significance.robustScale($0) / 2.0.squareRoot(), smallestTolerance)
        }
        func near(_ v: [Double], _ centre: [Double]) -> Bool {
            (0..<4).allSatisfy { abs(v[$0] - centre[$0]) <= tolerances[$0] }
        }
        func around(_ centre: [Double]) -> [Int] { vectors.indices.filter { near(vectors[$0], centre) } }
        var best: [Int] = []
        for r in stride(from: 0, to: vectors.count, by: max(1, vectors.count / candidates)) {
            let first = around(vectors[r])
            // One step of the mean shift: centred on those it took.
            let centre = (0..<4).map { c in first.map { vectors[$0][c] }.reduce(0, +) / Double(first.count) }
            let taken = around(centre)
            if taken.count > best.count { best = taken }
        }
        // The largest patch of them joined as neighbours.
        let chosen = Set(best.map { columns[$0] })
        var patchOf: [Int: Int] = [:]
        var largest: [Int] = []
        for start in chosen.sorted() where patchOf[start] == nil {
            var patch = [start]
            patchOf[start] = start
            var k = 0
            while k < patch.count {
                for q in reading.neighbours[patch[k]].compactMap({ $0 }) where chosen.contains(q) && patchOf[q] == nil {
                    patchOf[q] = start
                    patch.append(q)
                }
                k += 1
            }
            if patch.count > largest.count { largest = patch }
        }
        return largest
    }
}
