/// A dislocation: where its core is and its Burgers vector.
public struct Dislocation: Sendable, Equatable {
    /// The core, in image pixels.
    public var core: PixelVector
    /// The displacement's jump once round the core clockwise on screen, in pixels of the reference lattice: the
    /// closure failure of a Burgers circuit taken clockwise.
    public var burgers: PixelVector
    /// The same in lattice vectors of the grain: (1, 0) for a, (0, −1) for −b.
    public var burgersCells: LatticeSite
    /// The grain it is in.
    public var grain: Int
    /// How many circuits round it agree.
    public var circuits: Int
}

/// Dislocations found by Burgers circuits on each grain's brightest sublattice.
///
/// A circuit starts at a column and steps a whole number of cells along +a, then +b, −a and −b (clockwise on screen),
/// each step to the column of the grain's brightest sublattice nearest where the current column's own cell puts it.
/// In a perfect crystal, strained or not, it comes back to its start; round a dislocation it ends a Burgers vector
/// away. Circuits three cells a side are taken from every column, so each core is enclosed by up to nine of them; the
/// core is then placed in the cells that lie inside every circuit round it, of three, two and one cells a side, and
/// do not close themselves. Noise cannot close a circuit wrongly — a step goes astray only where a column is more than
/// `LocalReading.tolerance` off where its neighbour's cell puts it — so a dislocation needs no significance test, only
/// that several circuits agree; a circuit with a step that finds no column (a vacancy, the crystal's edge, another
/// grain) counts for nothing.
enum DislocationSearch {
    /// Circuits' sides, in cells: the larger finds cores, the smaller places them.
    static let findingSide = 3
    static let placingSides = [2, 1]
    /// A dislocation needs at least this many circuits of the larger side round it to agree (of the nine that
    /// enclose a core; those passing next to it may find no column where they step).
    static let agreeing = 3
    /// A step finds the column within this share of a spacing of where it is put: wider than the reading's, since a
    /// circuit passes within a cell of a core.
    static let stepTolerance = 0.3

    static func find(in analysis: LatticeAnalysis, spacing: Double) -> [Dislocation] {
        guard let referenceCell = analysis.reference?.cell else { return [] }
        var found: [Dislocation] = []
        for (number, grain) in analysis.grains.enumerated() {
            let members = analysis.columns.indices.filter {
                analysis.columns[$0].grain == number && analysis.columns[$0].sublattice == 1
                    && analysis.columns[$0].cell != nil
            }
            guard members.count >= 16 else { continue }
            let walker = CircuitWalker(analysis: analysis, members: members, spacing: spacing)
            // The grain's lattice vectors as the reference lattice's, for the Burgers vector in pixels.
            let symmetry = LatticeAnalysis.matching(grain.cell, to: referenceCell)
            let inReference = { (cells: PixelVector) -> PixelVector in
                guard let back = symmetry.inverse else { return .zero }
                return referenceCell * (back * cells)
            }
            var closures: [Closure] = []
            for k in members {
                if let closure = walker.closure(from: k, side: findingSide), closure.cells != LatticeSite(n: 0, m: 0) {
                    closures.append(closure)
                }
            }
            // Circuits round one core: their middles within a circuit's side of one another, the same vector.
            for group in Self.groups(closures, within: Double(findingSide + 1) * spacing) {
                let counts = Dictionary(grouping: group, by: \.cells)
                guard let (cells, agreeing) = counts.max(by: { $0.value.count < $1.value.count }),
                    agreeing.count >= Self.agreeing
                else { continue }
                var core = (1 / Double(agreeing.count)) * agreeing.reduce(PixelVector.zero) { $0 + $1.centre }
                // Placed in the cells inside every circuit round it, of every side, that do not close themselves.
                let near = members.filter { (analysis.position($0) - core).length < 3.5 * spacing }
                let enclosing = (placingSides + [findingSide]).flatMap { side in
                    near.compactMap { walker.closure(from: $0, side: side) }.filter { $0.cells == cells }
                }
                let inside = near.compactMap { k -> PixelVector? in
                    guard let cell = analysis.columns[k].cell else { return nil }
                    let middle = analysis.position(k) + cell * PixelVector(x: 0.5, y: 0.5)
                    let own = walker.closure(from: k, side: 1)
                    guard own.map({ $0.cells != LatticeSite(n: 0, m: 0) }) ?? true,
                        enclosing.allSatisfy({ $0.outline.contains(ImagePoint(x: middle.x, y: middle.y)) })
                    else { return nil }
                    return middle
                }
                if !inside.isEmpty { core = (1 / Double(inside.count)) * inside.reduce(PixelVector.zero, +) }
                found.append(
                    Dislocation(
                        core: core, burgers: inReference(PixelVector(x: Double(cells.n), y: Double(cells.m))),
                        burgersCells: cells, grain: number, circuits: agreeing.count))
            }
        }
        return found
    }

    /// Closures whose middles lie within `reach` of another of their group.
    private static func groups(_ closures: [Closure], within reach: Double) -> [[Closure]] {
        let index = PointGrid(closures.map(\.centre), reach: reach)
        var group = [Int](repeating: -1, count: closures.count)
        var groups: [[Closure]] = []
        for start in closures.indices where group[start] < 0 {
            group[start] = groups.count
            var members = [start], k = 0
            while k < members.count {
                for q in index.within(reach, of: closures[members[k]].centre) where group[q] < 0 {
                    group[q] = groups.count
                    members.append(q)
                }
                k += 1
            }
            groups.append(members.map { closures[$0] })
        }
        return groups
    }
}

/// A Burgers circuit: its middle, where it ends as a whole number of cells from its start (zero where it closes), and
/// the columns it went through.
struct Closure {
    var centre: PixelVector
    var cells: LatticeSite
    var outline: ImagePolygon
}

/// Burgers circuits through one grain's columns of one sublattice.
private struct CircuitWalker {
    let analysis: LatticeAnalysis
    let index: PointGrid
    let tolerance: Double
    /// Row in `analysis.columns` of each point in `index`.
    let rows: [Int]

    init(analysis: LatticeAnalysis, members: [Int], spacing: Double) {
        self.analysis = analysis
        rows = members
        index = PointGrid(members.map { analysis.position($0) }, reach: spacing)
        tolerance = DislocationSearch.stepTolerance * spacing
    }

    /// The circuit `side` cells a side starting at column `start`; nil where a step finds no column.
    func closure(from start: Int, side: Int) -> Closure? {
        guard let first = analysis.columns[start].cell else { return nil }
        // Clockwise on screen whichever way round the cell's vectors are.
        let (along, then) =
            first.determinant > 0
            ? (PixelVector(x: 1, y: 0), PixelVector(x: 0, y: 1)) : (PixelVector(x: 0, y: 1), PixelVector(x: 1, y: 0))
        let legs = [along, then, -1 * along, -1 * then]
        var current = start
        var visited: [PixelVector] = [analysis.position(start)]
        for leg in legs {
            for _ in 0..<side {
                guard let cell = analysis.columns[current].cell else { return nil }
                let target = analysis.position(current) + cell * leg
                guard let next = index.nearest(to: target, within: tolerance) else { return nil }
                current = rows[next]
                visited.append(analysis.position(current))
            }
        }
        guard let inverse = first.inverse else { return nil }
        let gap = inverse * (analysis.position(current) - analysis.position(start))
        let corners = visited.dropLast()
        let centre = (1 / Double(corners.count)) * corners.reduce(PixelVector.zero, +)
        return Closure(
            centre: centre, cells: LatticeSite(n: Int(gap.x.rounded()), m: Int(gap.y.rounded())),
            outline: ImagePolygon(corners.map { ImagePoint(x: $0.x, y: $0.y) }))
    }
}

extension LatticeAnalysis {
    /// The centre of column `row`, as a vector.
    func position(_ row: Int) -> PixelVector { PixelVector(x: columns[row].column.x, y: columns[row].column.y) }
}
