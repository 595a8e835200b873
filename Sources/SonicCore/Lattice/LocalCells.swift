/// Each column's own cell, fitted to its neighbours on its grain's brightest sublattice, and where they put it.
///
/// The lattice vectors round a column and the place of its ideal site come from a least-squares fit, with a free
/// origin, of the neighbours' centres against their places in the lattice: the eight round a column of the brightest
/// sublattice (not the column itself, so its own displacement does not pull the fit), and those within a cell each
/// way round a column of another. Eight neighbours fix the lattice vectors to about σ/(d·√6) of their length for
/// centres known to σ pixels at a spacing of d. A sublattice's place in the cell is the robust mean over its whole
/// grain of where its columns sit in their fitted cells, so two polar domains each read their own shift against it.
struct LocalCells {
    /// For each column found: its fitted cell (lattice vectors a and b as columns); nil where fewer than three
    /// neighbours, or neighbours all in a line, show it.
    var cell: [Matrix2?]
    /// From its ideal site to its centre, pixels.
    var displacement: [PixelVector?]
    /// For each grain and sublattice: how far the sublattice's mean place lies from the place it was seeded with,
    /// as fractions of a and b.
    var offsetShift: [[PixelVector]]

    init(_ reading: LocalReading, positions: [PixelVector], spacing: Double) {
        let count = positions.count
        cell = Array(repeating: nil, count: count)
        displacement = Array(repeating: nil, count: count)
        offsetShift = reading.grains.map { Array(repeating: .zero, count: $0.offsets.count) }
        let index = PointGrid(positions, reach: spacing)
        let tolerance = LocalReading.tolerance * spacing
        for (g, grain) in reading.grains.enumerated() {
            // Each column's place against its own fit: its displacement for the brightest sublattice, its place in
            // the cell (from where the sublattice was seeded) for the others.
            var places: [Int: PixelVector] = [:]
            var unfitted: [Int] = []
            for k in grain.members {
                guard let s = reading.sublattice[k], let grown = reading.cell[k] else { continue }
                var points: [(f: PixelVector, p: PixelVector)] = []
                for f in Self.neighbourSteps(offset: grain.offsets[s]) {
                    if let j = index.nearest(
                        to: positions[k] + grown * f, within: tolerance,
                        where: { reading.grain[$0] == g && reading.sublattice[$0] == 0 && $0 != k })
                    {
                        points.append((f, positions[j]))
                    }
                }
                guard let (origin, fitted) = Self.affine(points), let inverse = fitted.inverse else {
                    unfitted.append(k)
                    continue
                }
                cell[k] = fitted
                if s == 0 {
                    displacement[k] = positions[k] - origin
                } else {
                    places[k] = inverse * (positions[k] - origin)
                }
            }
            // A column with too few neighbours for a fit of its own (a corner's) is placed by the nearest column of
            // the brightest sublattice that has one: its ideal site, moved through its cell.
            var borrowed: [Int: Matrix2] = [:]
            for k in unfitted {
                let s = reading.sublattice[k]!
                guard
                    let j = index.nearest(
                        to: positions[k], within: 2 * max(grain.cell.columnA.length, grain.cell.columnB.length),
                        where: { reading.grain[$0] == g && reading.sublattice[$0] == 0 && cell[$0] != nil }),
                    let inverse = cell[j]!.inverse
                else { continue }
                let ideal = positions[j] - displacement[j]!
                let steps = inverse * (positions[k] - ideal) - grain.offsets[s]
                let place = steps - PixelVector(x: steps.x.rounded(), y: steps.y.rounded())
                borrowed[k] = cell[j]!
                if s == 0 { displacement[k] = cell[j]! * place } else { places[k] = place }
            }
            // Each other sublattice's place in the cell is its columns' robust mean.
            for s in grain.offsets.indices.dropFirst() {
                let members = places.keys.filter { reading.sublattice[$0] == s }
                let mean = RobustLattice.offset(members.map { places[$0]! }, spacing: 1)
                offsetShift[g][s] = mean
                for k in members { displacement[k] = (cell[k] ?? borrowed[k]!) * (places[k]! - mean) }
            }
        }
    }

    /// The places, in fractions of a and b from a column of the sublattice at `offset`, of the brightest sublattice's
    /// sites round it: the eight round a site of the brightest itself, and within a cell each way round another's.
    static func neighbourSteps(offset: PixelVector) -> [PixelVector] {
        var steps: [PixelVector] = []
        for dm in -1...2 {
            for dn in -1...2 {
                let f = PixelVector(x: Double(dn) - offset.x, y: Double(dm) - offset.y)
                guard abs(f.x) <= 1 + 1e-9, abs(f.y) <= 1 + 1e-9, f.length > 1e-9 else { continue }
                steps.append(f)
            }
        }
        return steps
    }

    /// p = origin + M·f by least squares; nil for fewer than three points or places (nearly) in a line.
    static func affine(_ points: [(f: PixelVector, p: PixelVector)]) -> (PixelVector, Matrix2)? {
        guard points.count >= 3 else { return nil }
        let n = Double(points.count)
        let meanF = (1 / n) * points.reduce(PixelVector.zero) { $0 + $1.f }
        let meanP = (1 / n) * points.reduce(PixelVector.zero) { $0 + $1.p }
        var ff = Matrix2(xx: 0, xy: 0, yx: 0, yy: 0), pf = ff
        for (f, p) in points {
            let df = f - meanF, dp = p - meanP
            ff = ff + Matrix2(xx: df.x * df.x, xy: df.x * df.y, yx: df.y * df.x, yy: df.y * df.y)
            pf = pf + Matrix2(xx: dp.x * df.x, xy: dp.x * df.y, yx: dp.y * df.x, yy: dp.y * df.y)
        }
        // Places nearly in a line leave one vector unknown.
        guard ff.determinant > 0.1 * n * n / 4, let inverse = ff.inverse else { return nil }
        let m = pf * inverse
        return (meanP - m * meanF, m)
    }
}
