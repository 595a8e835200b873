/// The columns read as crystal grain by grain, each column against its own neighbourhood rather than one grid for the
/// whole image: so a strained, bent or dislocated crystal, or one scanned with drift, reads as one crystal, and two
/// grains as two.
///
/// A grain is seeded where a patch of columns (five spacings round) repeats on a lattice (`LatticeAnalysis`'s
/// translations and sublattices, read on the patch alone). It grows out from there a column at a time: each column
/// read predicts where its neighbours are — one lattice step along ±a and ±b on its own sublattice, the diagonal
/// steps, and the nearby sites of the others — through its own cell, fitted to the neighbours already read round it. A
/// column is read once a prediction finds it within `tolerance` of where it is put; so the cell follows the crystal as
/// it bends and stretches. Columns with fewer than three of their four neighbours (±a, ±b on their sublattice) in the
/// grain, unless two of those have three, are then let go — amorphous spots taken by chance: one lies within the
/// tolerance of a given site about one time in eight, so chains of them die out — and so are patches smaller than
/// three cells by three. What no
/// grain takes may seed another grain; what seeds none is off every lattice.
struct LocalReading {
    struct Grain {
        /// The lattice vectors a and b (as columns): where the grain is seeded, then the median of its columns'.
        var cell: Matrix2
        /// Each sublattice's place in the cell, as fractions of a and b: sublattice 0, the brightest, at (0, 0).
        var offsets: [PixelVector]
        /// Its columns.
        var members: [Int]
    }

    var grains: [Grain] = []
    /// For each column found: its grain, its sublattice in the grain (0 the brightest), its cell counted along a and
    /// b from the seed's, and the lattice vectors round it; nil off every grain.
    var grain: [Int?]
    var sublattice: [Int?]
    var site: [LatticeSite?]
    var cell: [Matrix2?]
    /// For each column: the columns one lattice step away on its own sublattice along +a, −a, +b and −b.
    var neighbours: [[Int?]]

    /// A prediction finds a column this close to where it puts it, in spacings.
    static let tolerance = 0.2
    /// A seed's patch reaches this far, in spacings.
    static let patchRadius = 5.0
    /// A column's cell is fitted, and it predicts its neighbours, only where at least this many steps to its
    /// neighbours agree: near a dislocation's core, where they do not, the reading goes round.
    static let agreeingSteps = 4
    /// A column predicts its neighbours only where its cell differs from the one that found it by at most this share
    /// of the spacing in any component: 10 %, four times what a dislocation changes from cell to cell two cells from
    /// its core, where the reading goes round it.
    static let continuity = 0.1
    /// A sublattice holds at least this percentage of the brightest one's columns, in a seed's patch and in a grain.
    static let smallestSublattice = 15
    /// At most this many seeds are tried.
    static let attempts = 30
    /// The smallest patch read as crystal: three cells by three.
    static let minimumColumns = 9

    /// A step from a column to a nearby site: the site's sublattice, the cells it moves by, and the step in
    /// fractions of a and b.
    struct Move {
        var sublattice: Int, dn: Int, dm: Int
        var f: PixelVector
    }

    static let steps = [
        PixelVector(x: 1, y: 0), PixelVector(x: -1, y: 0), PixelVector(x: 0, y: 1), PixelVector(x: 0, y: -1)
    ]

    init(columns found: [AtomColumn], spacing: Double, width: Int, height: Int) {
        let count = found.count
        grain = Array(repeating: nil, count: count)
        sublattice = grain
        site = Array(repeating: nil, count: count)
        cell = Array(repeating: nil, count: count)
        neighbours = Array(repeating: [nil, nil, nil, nil], count: count)
        guard count >= 4, spacing > 0 else { return }
        let positions = found.map { PixelVector(x: $0.x, y: $0.y) }
        let index = PointGrid(positions, reach: spacing)
        var tried: [PixelVector] = []
        for _ in 0..<Self.attempts {
            let seeds = candidateSeeds(positions, index: index, spacing: spacing, tried: tried)
            guard !seeds.isEmpty else { break }
            tried += seeds.map { positions[$0] }
            let starts = seeds.compactMap {
                Self.seedLattice(at: $0, found: found, index: index, spacing: spacing, free: grain)
            }
            guard let start = starts.max(by: { $0.regularity < $1.regularity }) else { continue }
            grow(start.grain, found: found, positions: positions, index: index, spacing: spacing) { p in
                min(p.x, p.y, Double(width - 1) - p.x, Double(height - 1) - p.y) < spacing
            }
        }
    }

    /// Free columns to seed a grain at, away from every seed tried: for the first grain, those nearest nine points
    /// spread over the columns (the middle first); then the free columns round which most free columns lie. None when
    /// no free column has enough free columns round it to seed a grain.
    private func candidateSeeds(_ positions: [PixelVector], index: PointGrid, spacing: Double, tried: [PixelVector])
        -> [Int]
    {
        let free = positions.indices.filter { grain[$0] == nil }
        let away = free.filter { k in tried.allSatisfy { (positions[k] - $0).length > 3 * spacing } }
        guard !away.isEmpty else { return [] }
        if grains.isEmpty && tried.isEmpty {
            let xs = away.map { positions[$0].x }, ys = away.map { positions[$0].y }
            let (x0, x1, y0, y1) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
            let points = [0.5, 0.3, 0.7].flatMap { v in
                [0.5, 0.3, 0.7].map { u in PixelVector(x: x0 + u * (x1 - x0), y: y0 + v * (y1 - y0)) }
            }
            var seeds: [Int] = []
            for p in points {
                let nearest = away.min { (positions[$0] - p).length < (positions[$1] - p).length }!
                if !seeds.contains(nearest) { seeds.append(nearest) }
            }
            return seeds
        }
        // Crowding: free columns within three spacings, counted on a sample of candidates for speed.
        let stride = max(1, away.count / 400)
        var best: (index: Int, crowd: Int)?
        for k in Swift.stride(from: 0, to: away.count, by: stride) {
            let candidate = away[k]
            let crowd = index.within(3 * spacing, of: positions[candidate]).filter { grain[$0] == nil }.count
            if crowd > (best?.crowd ?? Self.minimumColumns) { best = (candidate, crowd) }
        }
        return best.map { [$0.index] } ?? []
    }

    /// Where a grain starts: its lattice, sublattices and the reference column, read on the free columns of a patch
    /// round `seed`, and how regular the patch is: how many of its brightest sublattice's columns lie within a tenth
    /// of a spacing of the lattice fitted to them (a patch round a dislocation's core or across a boundary has
    /// fewer). Nil when they repeat on no lattice.
    private static func seedLattice(
        at seed: Int, found: [AtomColumn], index: PointGrid, spacing: Double, free: [Int?]
    ) -> (grain: Grain, regularity: Int)? {
        let centre = index.points[seed]
        let patch = index.within(patchRadius * spacing, of: centre).filter { free[$0] == nil }
        guard patch.count >= minimumColumns,
            let (a, b) = LatticeAnalysis.translations(patch.map { found[$0] }, spacing: spacing)
        else { return nil }
        let basis = Basis(a: a, b: b)
        let fractional = patch.map { basis.fractional(index.points[$0] - centre) }
        let groups = LatticeAnalysis.sublattices(
            fractional, basis: basis, spacing: spacing, intensities: patch.map { found[$0] })
        guard let brightest = groups.first(where: { $0.members.count >= 6 }) else { return nil }
        // A group a few columns strong in a patch is no sublattice: a defect's columns, or noise.
        let kept = groups.filter { $0.members.count * 100 >= Self.smallestSublattice * brightest.members.count }
        let reference = kept[0]
        guard reference.members.count >= 6 else { return nil }
        func wrapped(_ u: Double) -> Double { u - u.rounded() }
        // The reference sublattice's columns refine the cell.
        let sites = reference.members.map {
            LatticeSite(
                n: Int((fractional[$0].u - reference.offset.u).rounded()),
                m: Int((fractional[$0].v - reference.offset.v).rounded()))
        }
        let fitted = RobustLattice.fit(
            positions: reference.members.map { index.points[patch[$0]] }, sites: sites, spacing: spacing)
        let cell = Matrix2(columns: fitted.a, fitted.b)
        guard abs(cell.determinant) > 0.25 * spacing * spacing else { return nil }
        let offsets = kept.map {
            PixelVector(x: wrapped($0.offset.u - reference.offset.u), y: wrapped($0.offset.v - reference.offset.v))
        }
        let regularity = zip(reference.members, sites).filter {
            (index.points[patch[$0]] - fitted.position($1)).length < 0.1 * spacing
        }.count
        // The reference column nearest the seed starts the grain.
        let first = reference.members.min {
            (index.points[patch[$0]] - centre).length < (index.points[patch[$1]] - centre).length
        }!
        return (Grain(cell: cell, offsets: offsets, members: [patch[first]]), regularity)
    }

    /// Grows a grain from its first column, then keeps it if enough of it is on its lattice.
    private mutating func grow(
        _ start: Grain, found: [AtomColumn], positions: [PixelVector], index: PointGrid, spacing: Double,
        nearEdge: (PixelVector) -> Bool
    ) {
        let number = grains.count
        let tolerance = Self.tolerance * spacing
        let offsets = start.offsets
        let seedColumn = start.members[0]
        var members: [Int] = []
        func take(_ k: Int, site s: LatticeSite, sublattice sub: Int, cell c: Matrix2) {
            grain[k] = number; site[k] = s; sublattice[k] = sub; cell[k] = c
            members.append(k)
        }
        take(seedColumn, site: LatticeSite(n: 0, m: 0), sublattice: 0, cell: start.cell)
        // The steps from a column of one sublattice to each nearby site: (sublattice, cell step, fractions).
        var moves: [[Move]] = []
        for from in offsets.indices {
            var list: [Move] = []
            for to in offsets.indices {
                for dm in -1...1 {
                    for dn in -1...1 where to != from || dn != 0 || dm != 0 {
                        let f = PixelVector(
                            x: Double(dn) + offsets[to].x - offsets[from].x,
                            y: Double(dm) + offsets[to].y - offsets[from].y)
                        list.append(Move(sublattice: to, dn: dn, dm: dm, f: f))
                    }
                }
            }
            moves.append(list)
        }
        var next = 0
        while next < members.count {
            let i = members[next]
            next += 1
            let from = sublattice[i]!
            let here = site[i]!
            // The cell round i, from the neighbours already read; the first column's is the seed's.
            // (Where too few neighbours are read yet, the cell that found it.)
            if let refitted = refit(
                i, guess: cell[i]!, positions: positions, index: index, tolerance: tolerance, number: number,
                minimumSteps: 2)
            {
                // A cell far from the one that found it: a defect's core, whose steps are not to be followed.
                let smooth = (refitted - cell[i]!).size <= Self.continuity * spacing
                cell[i] = refitted
                guard smooth else { continue }
            }
            let current = cell[i]!
            for move in moves[from] {
                let predicted = positions[i] + current * move.f
                guard let j = index.nearest(to: predicted, within: tolerance), grain[j] == nil else { continue }
                take(
                    j, site: LatticeSite(n: here.n + move.dn, m: here.m + move.dm), sublattice: move.sublattice,
                    cell: current)
            }
        }
        // Every cell again, now that all its neighbours are read.
        for _ in 0..<2 {
            let refitted = members.map {
                refit($0, guess: cell[$0]!, positions: positions, index: index, tolerance: tolerance, number: number)
            }
            for (k, c) in zip(members, refitted) where c != nil { cell[k] = c }
        }
        var kept = pruned(
            members, positions: positions, index: index, tolerance: tolerance, number: number,
            nearEdge: nearEdge)
        for k in members where !kept.contains(k) { release(k) }
        // Sublattices too small to be one are let go, the rest numbered on.
        let counts = offsets.indices.map { s in kept.filter { sublattice[$0] == s }.count }
        guard counts[0] >= Self.minimumColumns else {
            for k in kept { release(k) }
            return
        }
        let lasting = offsets.indices.filter { counts[$0] * 100 >= Self.smallestSublattice * counts[0] }
        let renumbered = Dictionary(uniqueKeysWithValues: lasting.enumerated().map { ($1, $0) })
        for k in kept {
            if let number = renumbered[sublattice[k]!] { sublattice[k] = number } else { release(k) }
        }
        kept = kept.filter { grain[$0] != nil }
        if lasting.count < offsets.count {
            for k in kept { neighbours[k] = neighbours[k].map { $0.flatMap { grain[$0] != nil ? $0 : nil } } }
        }
        let cells = kept.filter { sublattice[$0] == 0 }.map { cell[$0]! }
        func median(_ part: (Matrix2) -> Double) -> Double { LatticeAnalysis.median(cells.map(part)) }
        let typical = Matrix2(xx: median(\.xx), xy: median(\.xy), yx: median(\.yx), yy: median(\.yy))
        grains.append(Grain(cell: typical, offsets: lasting.map { offsets[$0] }, members: kept.sorted()))
    }

    private mutating func release(_ k: Int) {
        grain[k] = nil; sublattice[k] = nil; site[k] = nil; cell[k] = nil; neighbours[k] = [nil, nil, nil, nil]
    }

    /// The lattice vectors round column i, by least squares on the steps to the columns of its sublattice in this
    /// grain one cell away (along ±a, ±b or a diagonal), each step read as the whole number of cells `guess` makes of
    /// it; then again on the steps the first fit puts within `tolerance`, the steps read through it. Reading the
    /// steps, rather than the sites the columns were given, keeps a wrong cell from spreading: `guess` need only be
    /// right to a quarter of a cell. Nil where fewer than `agreeingSteps` steps agree, or they do not span the plane.
    private func refit(
        _ i: Int, guess: Matrix2, positions: [PixelVector], index: PointGrid, tolerance: Double, number: Int,
        minimumSteps: Int = agreeingSteps
    ) -> Matrix2? {
        let reach =
            1.6
            * max(
                guess.columnA.length, guess.columnB.length, (guess.columnA + guess.columnB).length,
                (guess.columnA - guess.columnB).length)
        let around = index.within(reach, of: positions[i]).filter {
            $0 != i && grain[$0] == number && sublattice[$0] == sublattice[i]
        }
        func steps(through cell: Matrix2) -> [(f: PixelVector, d: PixelVector)] {
            guard let inverse = cell.inverse else { return [] }
            return around.compactMap { j in
                let d = positions[j] - positions[i]
                let f = inverse * d
                let n = PixelVector(x: f.x.rounded(), y: f.y.rounded())
                guard max(abs(n.x), abs(n.y)) == 1, (cell * (f - n)).length < tolerance else { return nil }
                return (n, d)
            }
        }
        func fit(_ pairs: [(f: PixelVector, d: PixelVector)]) -> Matrix2? {
            guard pairs.count >= minimumSteps else { return nil }
            var ff = Matrix2(xx: 0, xy: 0, yx: 0, yy: 0), df = ff
            for (f, d) in pairs {
                ff = ff + Matrix2(xx: f.x * f.x, xy: f.x * f.y, yx: f.y * f.x, yy: f.y * f.y)
                df = df + Matrix2(xx: d.x * f.x, xy: d.x * f.y, yx: d.y * f.x, yy: d.y * f.y)
            }
            return ff.inverse.map { df * $0 }
        }
        guard let first = fit(steps(through: guess)) else { return nil }
        return fit(steps(through: first))
    }

    /// The members with at least three of their four neighbours (±a, ±b on their sublattice) in the grain, or two
    /// that have — and, within a spacing of the image's edge, where neighbours are cut off, those with one neighbour
    /// in the grain; then without patches smaller than `minimumColumns`. Fills in the neighbours.
    private mutating func pruned(
        _ members: [Int], positions: [PixelVector], index: PointGrid, tolerance: Double, number: Int,
        nearEdge: (PixelVector) -> Bool
    ) -> [Int] {
        var inGrain = Set(members)
        func link() {
            for k in inGrain {
                let c = cell[k]!
                neighbours[k] = Self.steps.map { step in
                    index.nearest(to: positions[k] + c * step, within: tolerance) {
                        inGrain.contains($0) && sublattice[$0] == sublattice[k]
                    }
                }
            }
        }
        for _ in 0..<2 {
            link()
            let counts = Dictionary(uniqueKeysWithValues: inGrain.map { ($0, neighbours[$0].compactMap { $0 }.count) })
            inGrain = inGrain.filter { k in
                let good = neighbours[k].compactMap { $0 }.filter { counts[$0]! >= 3 }.count
                return counts[k]! >= 3 || good >= 2
            }
        }
        // At the image's edge, where a column's neighbours are cut off, one neighbour in the grain is enough.
        for _ in 0..<2 {
            let joining = members.filter { k in
                !inGrain.contains(k) && nearEdge(positions[k])
                    && Self.steps.contains { step in
                        index.nearest(to: positions[k] + cell[k]! * step, within: tolerance) {
                            inGrain.contains($0) && sublattice[$0] == sublattice[k]
                        } != nil
                    }
            }
            inGrain.formUnion(joining)
        }
        link()
        // Patches joined through neighbours on a sublattice.
        var patchOf: [Int: Int] = [:]
        var keep: [Int] = []
        for start in inGrain.sorted() where patchOf[start] == nil {
            var patch = [start]
            patchOf[start] = start
            var k = 0
            while k < patch.count {
                for q in neighbours[patch[k]].compactMap({ $0 }) where patchOf[q] == nil && inGrain.contains(q) {
                    patchOf[q] = start
                    patch.append(q)
                }
                k += 1
            }
            if patch.count >= Self.minimumColumns { keep += patch }
        }
        let kept = Set(keep)
        for k in kept {
            neighbours[k] = neighbours[k].map { $0.flatMap { kept.contains($0) ? $0 : nil } }
        }
        return keep.sorted()
    }
}
