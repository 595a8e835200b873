import RealModule

/// A lattice's unit cell from an origin and two neighbouring corners: vectors a and b and the
/// angle γ between them.
public struct UnitCell: Sendable, Equatable {
    public let origin: ImagePoint
    /// Lattice vectors, in pixels.
    public let a: ImagePoint
    public let b: ImagePoint

    /// nil when the three points do not span a cell (coincident or in a line).
    public init?(origin: ImagePoint, a cornerA: ImagePoint, b cornerB: ImagePoint) {
        self.init(
            origin: origin, vectorA: ImagePoint(x: cornerA.x - origin.x, y: cornerA.y - origin.y),
            vectorB: ImagePoint(x: cornerB.x - origin.x, y: cornerB.y - origin.y))
    }

    /// nil when the vectors do not span a cell (too short or nearly parallel).
    public init?(origin: ImagePoint, vectorA a: ImagePoint, vectorB b: ImagePoint) {
        let area = abs(a.x * b.y - a.y * b.x)
        let la = (a.x * a.x + a.y * a.y).squareRoot(), lb = (b.x * b.x + b.y * b.y).squareRoot()
        // At least a pixel long, and at least 10° from parallel.
        guard la >= 1, lb >= 1, area >= la * lb * 0.17 else { return nil }
        self.init(unchecked: origin, vectorA: a, vectorB: b)
    }

    private init(unchecked origin: ImagePoint, vectorA: ImagePoint, vectorB: ImagePoint) {
        self.origin = origin
        self.a = vectorA
        self.b = vectorB
    }

    public var lengthA: Double { (a.x * a.x + a.y * a.y).squareRoot() }
    public var lengthB: Double { (b.x * b.x + b.y * b.y).squareRoot() }
    /// The angle between a and b, in degrees (0…180).
    public var gamma: Double {
        let cosine = (a.x * b.x + a.y * b.y) / (lengthA * lengthB)
        return Double.acos(min(max(cosine, -1), 1)) * 180 / Double.pi
    }

    /// The cell's corners in drawing order: origin, origin + a, origin + a + b, origin + b.
    public var corners: [ImagePoint] {
        [
            origin, ImagePoint(x: origin.x + a.x, y: origin.y + a.y),
            ImagePoint(x: origin.x + a.x + b.x, y: origin.y + a.y + b.y),
            ImagePoint(x: origin.x + b.x, y: origin.y + b.y)
        ]
    }

    /// A point's position in cell units: origin + u·a + v·b.
    public func fractional(_ p: ImagePoint) -> (u: Double, v: Double) {
        let det = a.x * b.y - a.y * b.x
        let dx = p.x - origin.x, dy = p.y - origin.y
        return ((dx * b.y - dy * b.x) / det, (a.x * dy - a.y * dx) / det)
    }

    /// Which cell of the lattice a point is in: n steps along a and m along b from the origin's.
    public func cellIndex(of p: ImagePoint) -> (n: Int, m: Int) {
        let f = fractional(p)
        return (Int(f.u.rounded(.down)), Int(f.v.rounded(.down)))
    }

    /// The cell refined by all the columns that sit on its lattice: each column within `tolerance`
    /// (in cell units) of a lattice point n·a + m·b, within `reach` cells of the origin, is fitted by
    /// least squares to origin + n·a + m·b. Many columns average out the error of each, which three
    /// tags alone cannot. Columns off the lattice (another sublattice) are left out. Returns the cell
    /// unchanged when fewer than four columns fit.
    public func refined(with columns: [ImagePoint], tolerance: Double = 0.2, reach: Double = 8) -> UnitCell {
        var cell = self
        for _ in 0..<3 {
            // Normal equations for x = ox + n·ax + m·bx (and the same for y): one 3×3 system.
            var m = [[Double]](repeating: [0, 0, 0], count: 3)
            var rx = [0.0, 0.0, 0.0], ry = [0.0, 0.0, 0.0]
            var count = 0
            for c in columns {
                let f = cell.fractional(c)
                let n = f.u.rounded(), k = f.v.rounded()
                guard abs(f.u - n) < tolerance, abs(f.v - k) < tolerance, abs(n) <= reach, abs(k) <= reach else {
                    continue
                }
                let row = [1, n, k]
                for i in 0..<3 {
                    for j in 0..<3 { m[i][j] += row[i] * row[j] }
                    rx[i] += row[i] * c.x
                    ry[i] += row[i] * c.y
                }
                count += 1
            }
            guard count >= 4, let sx = Cramer.solve(m, rx), let sy = Cramer.solve(m, ry) else { return cell }
            cell = UnitCell(
                unchecked: ImagePoint(x: sx[0], y: sy[0]), vectorA: ImagePoint(x: sx[1], y: sy[1]),
                vectorB: ImagePoint(x: sx[2], y: sy[2]))
        }
        return cell
    }

    static func oneDecimal(_ v: Double) -> String {
        let tenths = (v * 10).rounded()
        let whole = Int(tenths / 10)
        let rest = Int(abs(tenths)) % 10
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(rest)"
    }
}
