import RealModule

/// A line across a grain where its lattice changes: a coherent interface between two strains, or two turns.
public struct Interface: Sendable, Equatable {
    /// Its course across the crystal, end to end.
    public var points: [ImagePoint]
    /// The lattice on the side `normal` points to, against the lattice on the other: its strain and turn.
    public var step: Deformation
    /// The line's unit normal.
    public var normal: PixelVector
    /// How far the step stands out from the noise, in standard errors.
    public var significance: Double
    public var grain: Int
}

/// Interfaces: straight lines across a grain on whose two sides its lattice differs by more than its noise allows,
/// the same all along the line.
///
/// Every line is tried, turned in steps of 2° and moved in steps of a quarter spacing. The columns of the grain's
/// brightest sublattice within four spacings of it on either side — but not within 1.2 spacings, whose cells' fits
/// reach across — are fitted, in each of the four numbers (exx, eyy, exy and the rotation), with a plane the two sides
/// share and a level for each side: the step is the difference of the levels. So a bend or a gradient, which the plane
/// carries across the line, is no step. A step's noise is that of independent columns times `inflation`. The lines
/// that stand out most, by the threshold for all the lines and numbers tried (`Significance`), are taken in turn; one
/// is an interface when, turned and moved finely to where it stands out most (the middle of the stretch where it
/// nearly does), its step is large enough to say and about the same in each fifth of the line (a dislocation's field,
/// strong only near its core, is not), and when, placed where the columns near it are halfway from one side's plane
/// to the other's, it still stands out, either side is a plane within the noise (a scan's sinusoidal drift is not),
/// and it stands out measured from up to ten spacings each side. The step said is the far side's lattice against the
/// near side's. Columns within three spacings of a dislocation's core or a spacing of the image's edge, or without
/// their whole neighbourhood in the grain, are left out.
enum InterfaceSearch {
    /// Lines are turned by this many degrees.
    static let turnStep = 2.0
    /// Each side's columns lie this many spacings from the line (those nearer have cells fitted across it).
    static let nearest = 1.2
    static let farthest = 4.0
    /// The step said is measured from columns up to this many spacings from the line, where there are.
    static let measuring = 10.0
    /// An interface's step is about the same all along it: in each stretch, within this factor of the whole line's.
    static let evenness = 2.0
    static let coreClearance = 3.0
    /// Columns this many spacings from the image's edge or nearer are left out: cut off by the edge, and fitted from
    /// neighbours on one side only, they read strains of a few thousandths that are not there.
    static let edgeClearance = 1.0
    /// At most this many interfaces are looked for in a grain.
    static let most = 2
    /// A step smaller than this in every strain (and this many radians of turn) is not said, however clear: a smooth
    /// field that is no straight line's trend (a scan's sinusoidal drift) leaves steps of about a thousandth.
    static let smallest = 2e-3
    /// How much further the step's noise reaches than independent columns' would: neighbouring cells share columns.
    /// Measured on crystals without an interface (uniform, bent, two grains, beside amorphous material, at both noise
    /// levels): the steps across all lines scatter 1.5–1.7 times as far as independent columns would make them; 2.2
    /// leaves room for the extremes of the tens of thousands of lines tried, which overlap.
    static let inflation = 2.2
    /// Either side of an interface, the columns lie within the noise of a plane: their scatter about it at most this
    /// many times the step's noise per column.
    static let flatness = 1.5
    /// Where the step stands out at least this share of its most, the line is between the columns its sides leave out.
    static let plateau = 0.8

    struct Column {
        var position: PixelVector
        var values: [Double]
    }

    static func find(
        in analysis: LatticeAnalysis, spacing: Double, width: Int, height: Int, avoiding cores: [PixelVector]
    ) -> [Interface] {
        var found: [Interface] = []
        for number in analysis.grains.indices {
            // Columns with their whole neighbourhood in the grain: at an edge of the crystal (amorphous material, a
            // vacancy) a cell is fitted from one side only, and reads strains of a few thousandths that are not there.
            let links = analysis.neighbours.map { $0.compactMap { $0 } }
            let whole = analysis.columns.indices.map { k in
                links[k].count == 4 && links[k].allSatisfy { links[$0].count == 4 }
            }
            var columns = analysis.columns.indices.compactMap { k -> Column? in
                let c = analysis.columns[k]
                guard whole[k], c.grain == number, c.sublattice == 1, let d = c.deformation else { return nil }
                let p = PixelVector(x: c.column.x, y: c.column.y)
                guard cores.allSatisfy({ ($0 - p).length > coreClearance * spacing }),
                    min(p.x, p.y, Double(width - 1) - p.x, Double(height - 1) - p.y) >= edgeClearance * spacing
                else { return nil }
                return Column(position: p, values: [d.exx, d.eyy, d.exy, d.rotation])
            }
            guard columns.count >= 40 else { continue }
            let noise = DeformationNoise(analysis, grain: number).deviations
            guard noise.allSatisfy({ $0 > 0 }) else { continue }
            for _ in 0..<most {
                guard let interface = best(columns, noise: noise, spacing: spacing, analysis: analysis, grain: number)
                else { break }
                found.append(interface)
                // The next is looked for away from this one.
                let line = interface.points
                columns = columns.filter { c in
                    Self.distance(c.position, toLine: line) > farthest * spacing
                }
                guard columns.count >= 40 else { break }
            }
        }
        return found
    }

    /// The step across the line {p : p·normal = offset}: the difference of the two sides' levels under one plane
    /// through both (a bend or a gradient goes on across an interface, across the line and along it), from the
    /// columns `nearest` to `reach` spacings from the line (`LineSides`).
    static func step(
        _ columns: [Column], normal: PixelVector, offset: Double, spacing: Double, reach: Double = farthest
    ) -> LineSides.Measured? {
        LineSides(columns, normal: normal).step(at: offset, nearest: nearest * spacing, reach: reach * spacing)
    }

    /// The line whose step stands out most that is an interface, if any.
    private static func best(
        _ columns: [Column], noise: [Double], spacing: Double, analysis: LatticeAnalysis, grain: Int
    )
        -> Interface?
    {
        func z(_ measured: LineSides.Measured) -> Double {
            let error = inflation * measured.variance.squareRoot()
            return (0..<4).map { abs(measured.jump[$0]) / (noise[$0] * error) }.max()!
        }
        var tried: [(angle: Double, offset: Double, z: Double)] = []
        for degrees in Swift.stride(from: 0.0, to: 180, by: turnStep) {
            let angle = degrees * Double.pi / 180
            let normal = PixelVector(x: Double.cos(angle), y: Double.sin(angle))
            let sides = LineSides(columns, normal: normal)
            let along = columns.map { LatticeAnalysis.dot($0.position, normal) }
            guard let low = along.min(), let high = along.max() else { continue }
            for offset in Swift.stride(
                from: low + nearest * spacing, through: high - nearest * spacing, by: spacing / 4)
            {
                if let measured = sides.step(at: offset, nearest: nearest * spacing, reach: farthest * spacing) {
                    tried.append((angle, offset, z(measured)))
                }
            }
        }
        let threshold = Significance.threshold(tests: 4 * tried.count)
        let reach = (farthest + nearest) * spacing
        // The lines that stand out most, one per place, until one is an interface.
        var rejected: [(angle: Double, offset: Double)] = []
        for top in tried.sorted(by: { $0.z > $1.z }) where top.z > threshold {
            guard
                !rejected.contains(where: {
                    abs($0.angle - top.angle) < 10 * Double.pi / 180 && abs($0.offset - top.offset) < reach
                })
            else { continue }
            rejected.append((top.angle, top.offset))
            if let interface = confirmed(
                top.angle, top.offset, columns: columns, noise: noise, threshold: threshold, spacing: spacing,
                analysis: analysis, grain: grain)
            {
                return interface
            }
            if rejected.count >= 5 { break }
        }
        return nil
    }

    /// The line at `angle` and `offset` as an interface, if it is one: its step is large enough to say, and shows the
    /// same way, of about the same size, in each stretch of the line where it can be measured — a dislocation's
    /// field, strong only near its core, does not; then placed, and still standing out once placed.
    private static func confirmed(
        _ angle: Double, _ offset: Double, columns: [Column], noise: [Double], threshold: Double, spacing: Double,
        analysis: LatticeAnalysis, grain: Int
    ) -> Interface? {
        func z(_ measured: LineSides.Measured) -> Double {
            let error = inflation * measured.variance.squareRoot()
            return (0..<4).map { abs(measured.jump[$0]) / (noise[$0] * error) }.max()!
        }
        // Turned and moved finely first, to where the step stands out most.
        var best = (angle: angle, offset: offset, z: 0.0)
        for degrees in Swift.stride(from: -2 * turnStep, through: 2 * turnStep, by: turnStep / 4) {
            let turned = angle + degrees * Double.pi / 180
            let sides = LineSides(columns, normal: PixelVector(x: Double.cos(turned), y: Double.sin(turned)))
            for shift in Swift.stride(from: -spacing, through: spacing, by: spacing / 8) {
                if let measured = sides.step(
                    at: offset + shift, nearest: nearest * spacing, reach: farthest * spacing),
                    z(measured) > best.z
                {
                    best = (turned, offset + shift, z(measured))
                }
            }
        }
        // The step stands out about as much wherever the line lies between the columns its sides leave out: the
        // middle of the stretch where it stands out nearly most.
        var normal = PixelVector(x: Double.cos(best.angle), y: Double.sin(best.angle))
        let shifts = Swift.stride(from: -2 * spacing, through: 2 * spacing, by: spacing / 16).map { best.offset + $0 }
        let bestSides = LineSides(columns, normal: normal)
        let standing = shifts.map {
            bestSides.step(at: $0, nearest: nearest * spacing, reach: farthest * spacing).map(z) ?? 0
        }
        let high = zip(shifts, standing).filter { $0.1 >= plateau * best.z }.map(\.0)
        var offset = high.isEmpty ? best.offset : (high.min()! + high.max()!) / 2
        guard let measured = step(columns, normal: normal, offset: offset, spacing: spacing),
            (0..<4).contains(where: { abs(measured.jump[$0]) >= smallest })
        else { return nil }
        let jump = measured.jump
        let strongest = (0..<4).max { abs(jump[$0]) / noise[$0] < abs(jump[$1]) / noise[$1] }!
        func parts(_ count: Int) -> [[Column]] {
            let direction = PixelVector(x: -normal.y, y: normal.x)
            let along = columns.map { LatticeAnalysis.dot($0.position, direction) }
            let (low, high) = (along.min()!, along.max()!)
            return (0..<count).map { part in
                let from = low + Double(part) * (high - low) / Double(count)
                let to = low + Double(part + 1) * (high - low) / Double(count)
                return zip(columns, along).filter { $0.1 >= from && $0.1 <= to }.map(\.0)
            }
        }
        let direction = PixelVector(x: -normal.y, y: normal.x)
        let length = columns.map { LatticeAnalysis.dot($0.position, direction) }
        let pieces = min(5, max(3, Int(((length.max()! - length.min()!) / (5 * spacing)).rounded(.down))))
        // Each stretch's step, and its noise: within `evenness` of the whole line's either way, give or take twice its
        // noise.
        let overall = abs(jump[strongest])
        let pieceSteps = parts(pieces).compactMap { step($0, normal: normal, offset: offset, spacing: spacing) }
        guard pieceSteps.count >= 3,
            pieceSteps.allSatisfy({ piece in
                let value = piece.jump[strongest] * (jump[strongest] > 0 ? 1 : -1)
                let error = 2 * inflation * noise[strongest] * piece.variance.squareRoot()
                return value >= overall / evenness - error && value <= overall * evenness + error
            })
        else { return nil }
        if let line = middle(columns, normal: normal, offset: offset, component: strongest, spacing: spacing) {
            // p·normal = intercept + slope·(p·direction): the line's own normal and offset.
            let norm = (1 + line.slope * line.slope).squareRoot()
            normal = (1 / norm) * (normal - line.slope * direction)
            offset = line.intercept / norm
        }
        // Across it left to right, or top to bottom where it runs across the image.
        if abs(normal.x) >= abs(normal.y) ? normal.x < 0 : normal.y < 0 {
            normal = -1 * normal
            offset = -offset
        }
        // Placed, it still stands out; and either side is a plane within the noise: a field that curves (a scan's
        // drift, a dislocation's) is no two lattices meeting at a line.
        guard let placedStep = step(columns, normal: normal, offset: offset, spacing: spacing),
            z(placedStep) > threshold,
            placedStep.scatter[strongest] <= flatness * inflation * noise[strongest]
        else { return nil }
        // The step from the columns up to `measuring` spacings each side, where it has them.
        let final = step(columns, normal: normal, offset: offset, spacing: spacing, reach: measuring) ?? placedStep
        guard z(final) > threshold else { return nil }
        // As far as the grain goes, within the image.
        let (width, height) = (Double(analysis.crystal?.width ?? 0), Double(analysis.crystal?.height ?? 0))
        let crystal = { (p: PixelVector) in
            p.x >= -0.5 && p.y >= -0.5 && p.x <= width - 0.5 && p.y <= height - 0.5
                && analysis.crystal?.grain(at: ImagePoint(x: p.x, y: p.y)) == grain
        }
        // The far side's lattice against the near side's: the same whichever lattice strain is measured against.
        func gradient(_ v: [Double]) -> Matrix2 {
            Matrix2.rotation(v[3]) * Matrix2(xx: 1 + v[0], xy: v[2], yx: v[2], yy: 1 + v[1])
        }
        let after = (0..<4).map { final.before[$0] + final.jump[$0] }
        let relative = gradient(final.before).inverse.map { Deformation(gradient: gradient(after) * $0) }
        return Interface(
            points: course(normal: normal, offset: offset, inside: crystal, spacing: spacing, from: columns),
            step: relative
                ?? Deformation(exx: final.jump[0], eyy: final.jump[1], exy: final.jump[2], rotation: final.jump[3]),
            normal: normal, significance: z(final), grain: grain)
    }

    /// The step's middle line: where the columns within `nearest` spacings of the line are halfway from one side's
    /// plane to the other's, by least squares on a ramp across the line whose middle may run at a slant to it —
    /// share = ½ + (s − intercept − slope·t)/width, for a column at s across the line (as p·normal) and t along it.
    /// Nil where too few columns, or no ramp, show it.
    private static func middle(
        _ columns: [Column], normal: PixelVector, offset: Double, component c: Int, spacing: Double
    ) -> (intercept: Double, slope: Double)? {
        let direction = PixelVector(x: -normal.y, y: normal.x)
        let placed = columns.map {
            (
                s: LatticeAnalysis.dot($0.position, normal) - offset, t: LatticeAnalysis.dot($0.position, direction),
                value: $0.values[c]
            )
        }
        // Each side's plane: its level, and slopes across and along the line shared by both.
        var sides: [[(s: Double, t: Double, value: Double)]] = [[], []]
        for p in placed where abs(p.s) >= nearest * spacing && abs(p.s) <= farthest * spacing {
            sides[p.s > 0 ? 1 : 0].append(p)
        }
        guard sides.allSatisfy({ $0.count >= 6 }) else { return nil }
        let counts = sides.map { Double($0.count) }
        let meanS = zip(sides, counts).map { side, n in side.map(\.s).reduce(0, +) / n }
        let meanT = zip(sides, counts).map { side, n in side.map(\.t).reduce(0, +) / n }
        let levels = zip(sides, counts).map { side, n in side.map(\.value).reduce(0, +) / n }
        var scatter = Matrix2(xx: 0, xy: 0, yx: 0, yy: 0)
        var sv = 0.0, tv = 0.0
        for (k, side) in sides.enumerated() {
            for p in side {
                let ds = p.s - meanS[k], dt = p.t - meanT[k]
                scatter = scatter + Matrix2(xx: ds * ds, xy: ds * dt, yx: ds * dt, yy: dt * dt)
                sv += ds * (p.value - levels[k]); tv += dt * (p.value - levels[k])
            }
        }
        guard let inverse = scatter.inverse else { return nil }
        let slopes = inverse * PixelVector(x: sv, y: tv)
        func plane(_ k: Int, _ s: Double, _ t: Double) -> Double {
            levels[k] + slopes.x * (s - meanS[k]) + slopes.y * (t - meanT[k])
        }
        // share − ½ = α·s + β + γ·t over the near columns, by least squares.
        var normalEquations = [Double](repeating: 0, count: 9), right = [Double](repeating: 0, count: 3)
        var count = 0
        for p in placed where abs(p.s) < nearest * spacing {
            let before = plane(0, p.s, p.t), after = plane(1, p.s, p.t)
            guard abs(after - before) > 0 else { continue }
            let share = (p.value - before) / (after - before) - 0.5
            let row = [p.s, 1, p.t]
            for i in 0..<3 {
                right[i] += row[i] * share
                for j in 0..<3 { normalEquations[i * 3 + j] += row[i] * row[j] }
            }
            count += 1
        }
        guard count >= 6, Cholesky.factor(&normalEquations, size: 3) else { return nil }
        Cholesky.solve(normalEquations, size: 3, &right)
        let (alpha, beta, gamma) = (right[0], right[1], right[2])
        guard alpha > 1 / (4 * spacing) else { return nil }
        let intercept = -beta / alpha, slope = -gamma / alpha
        guard abs(intercept) <= nearest * spacing, abs(slope) < 0.2 else { return nil }
        return (offset + intercept, slope)
    }

    /// The line's ends: from the columns' middle along it, each way, as far as the crystal goes.
    private static func course(
        normal: PixelVector, offset: Double, inside: (PixelVector) -> Bool, spacing: Double, from columns: [Column]
    ) -> [ImagePoint] {
        let direction = PixelVector(x: -normal.y, y: normal.x)
        let centre = (1 / Double(columns.count)) * columns.reduce(PixelVector.zero) { $0 + $1.position }
        let foot = centre + (offset - LatticeAnalysis.dot(centre, normal)) * normal
        func end(_ sign: Double) -> PixelVector {
            var reached = foot, step = 0
            while step < 100_000 && inside(reached + sign * (spacing / 4) * direction) {
                reached = reached + sign * (spacing / 4) * direction
                step += 1
            }
            return reached
        }
        let ends = [end(-1), end(1)]
        // Left to right, or top to bottom where it runs more down than across.
        let ordered = abs(direction.x) >= abs(direction.y) ? ends.sorted { $0.x < $1.x } : ends.sorted { $0.y < $1.y }
        return ordered.map { ImagePoint(x: $0.x, y: $0.y) }
    }

    /// How far `p` lies from the line through the two points of `line`.
    static func distance(_ p: PixelVector, toLine line: [ImagePoint]) -> Double {
        guard let first = line.first, let last = line.last else { return .infinity }
        let a = PixelVector(x: first.x, y: first.y), b = PixelVector(x: last.x, y: last.y)
        let d = b - a
        guard d.length > 0 else { return (p - a).length }
        return abs(LatticeAnalysis.cross(d, p - a)) / d.length
    }
}

/// How much each of a grain's four deformation numbers (exx, eyy, exy, rotation) scatters from column to column: the
/// robust spread of the second differences along a and along b (a column's value less the mean of its two neighbours'
/// that way, so a gradient does not count), over √(3/2).
struct DeformationNoise {
    var deviations: [Double]

    init(_ analysis: LatticeAnalysis, grain: Int) {
        var differences: [[Double]] = [[], [], [], []]
        func values(_ k: Int) -> [Double]? {
            analysis.columns[k].deformation.map { [$0.exx, $0.eyy, $0.exy, $0.rotation] }
        }
        for (k, c) in analysis.columns.enumerated() where c.grain == grain && c.sublattice == 1 {
            guard let here = values(k) else { continue }
            for (forward, backward) in [(0, 1), (2, 3)] {
                guard let f = analysis.neighbours[k][forward], let b = analysis.neighbours[k][backward],
                    let ahead = values(f), let behind = values(b)
                else { continue }
                for c in 0..<4 { differences[c].append(here[c] - (ahead[c] + behind[c]) / 2) }
            }
        }
        deviations = differences.map { Significance.robustScale($0) / 1.5.squareRoot() }
    }
}
