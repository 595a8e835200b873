import RealModule

/// One lattice of the diffractogram: the reflections of a grain, each an integer combination of two basis reflections.
public struct ReciprocalGrain: Sendable, Equatable {
    /// The reciprocal basis, in cycles per pixel: the dual of `a` and `b` (a·g1 = b·g2 = 1, a·g2 = b·g1 = 0), fitted
    /// by least squares to all the grain's reflections.
    public var g1: PixelVector, g2: PixelVector
    /// The lattice vectors in the image, in pixels, reduced and turned as the lattice is described elsewhere: a
    /// pointing right, b down.
    public var a: PixelVector, b: PixelVector
    /// Its reflections: indices into `Diffractogram.reflections`, strongest first.
    public var reflections: [Int]
    /// Its reflections' intensities added up.
    public var intensity: Double

    /// How far a is turned from the image's x axis, in radians, clockwise on screen.
    public var orientation: Double { Double.atan2(y: a.y, x: a.x) }

    /// A reflection lies on a lattice when it is this close to one of its points, as a share of its |g|: a turn of
    /// about 2° or a strain of 4 %, which a bent or strained crystal's smeared peaks stay within, and grains turned
    /// further apart do not.
    static let relativeTolerance = 0.04
    /// Or this close, in frequency steps of the image: a peak's place wanders by less than that in noise.
    static let stepTolerance = 1.5
    /// Bases are tried from pairs of this many of the strongest reflections left: a grain's two shortest reflections
    /// are among its strongest.
    static let basisCandidates = 8
    /// Two reflections closer to parallel than this (the sine of their angle) give no basis.
    static let collinear = Double.sin(10 * Double.pi / 180)
    /// Lattice points further out than this many basis steps are not tried.
    static let largestIndex = 12

    /// Reflections grouped into grains: the reflections, their grain set, and the grains.
    static func group(_ found: [Reflection], width: Int, height: Int) -> (
        reflections: [Reflection], grains: [ReciprocalGrain]
    ) {
        var reflections = found
        var grains: [ReciprocalGrain] = []
        let step = 1 / Double(min(width, height))
        func tolerance(_ g: PixelVector) -> Double { max(stepTolerance * step, relativeTolerance * g.length) }
        /// The reflections of `left` on the lattice of basis (p, q), each with its indices.
        func members(_ p: PixelVector, _ q: PixelVector, among left: [Int]) -> [(index: Int, n: Int, m: Int)] {
            guard let inverse = Matrix2(columns: p, q).inverse else { return [] }
            return left.compactMap { r in
                let g = reflections[r].g
                let c = inverse * g
                let n = Int(c.x.rounded()), m = Int(c.y.rounded())
                guard max(abs(n), abs(m)) <= largestIndex, n != 0 || m != 0,
                    (g - (Double(n) * p + Double(m) * q)).length <= tolerance(g)
                else { return nil }
                return (r, n, m)
            }
        }
        var left = Array(reflections.indices)
        while left.count >= 2 {
            let tried = Array(left.prefix(basisCandidates))
            var best: (p: PixelVector, q: PixelVector, members: [(index: Int, n: Int, m: Int)], power: Double)?
            for i in tried.indices {
                for j in tried.indices where j > i {
                    let p = reflections[tried[i]].g, q = reflections[tried[j]].g
                    guard abs(LatticeAnalysis.cross(p, q)) > collinear * p.length * q.length else { continue }
                    let (r, s) = reduced(p, q)
                    let on = members(r, s, among: left)
                    let power = on.reduce(0.0) { $0 + reflections[$1.index].intensity }
                    if power > (best?.power ?? 0) { best = (r, s, on, power) }
                }
            }
            guard var grain = best, grain.members.count >= 2 else { break }
            // The basis fitted to every member, and the members taken again on the fitted lattice.
            if let fitted = fit(grain.members.map { (reflections[$0.index].g, $0.n, $0.m) }) {
                let on = members(fitted.p, fitted.q, among: left)
                if on.count >= grain.members.count, let refitted = fit(on.map { (reflections[$0.index].g, $0.n, $0.m) })
                {
                    grain = (refitted.p, refitted.q, on, on.reduce(0.0) { $0 + reflections[$1.index].intensity })
                }
            }
            let number = grains.count
            let indices = grain.members.map(\.index)
            for r in indices { reflections[r].grain = number }
            left.removeAll { indices.contains($0) }
            guard let direct = Matrix2(columns: grain.p, grain.q).inverse else { break }
            // The rows of the reciprocal basis's inverse transposed: a and b, then turned as lattices are described.
            let (a, b) = LatticeAnalysis.oriented(
                PixelVector(x: direct.xx, y: direct.xy), PixelVector(x: direct.yx, y: direct.yy))
            guard let dual = Matrix2(columns: a, b).inverse else { break }
            grains.append(
                ReciprocalGrain(
                    g1: PixelVector(x: dual.xx, y: dual.xy), g2: PixelVector(x: dual.yx, y: dual.yy), a: a, b: b,
                    reflections: indices.sorted(), intensity: grain.power))
        }
        return (reflections, grains)
    }

    /// The two shortest independent vectors of the lattice that `p` and `q` span (Lagrange–Gauss reduction).
    static func reduced(_ p: PixelVector, _ q: PixelVector) -> (PixelVector, PixelVector) {
        var (u, v) = p.length <= q.length ? (p, q) : (q, p)
        while true {
            let k = (LatticeAnalysis.dot(u, v) / LatticeAnalysis.dot(u, u)).rounded()
            v = v - k * u
            if v.length >= u.length { return (u, v) }
            (u, v) = (v, u)
        }
    }

    /// The basis (p, q) that puts each g nearest n·p + m·q, by least squares; nil when the indices span no plane.
    static func fit(_ points: [(g: PixelVector, n: Int, m: Int)]) -> (p: PixelVector, q: PixelVector)? {
        var nn = 0.0, nm = 0.0, mm = 0.0
        var gn = PixelVector.zero, gm = PixelVector.zero
        for point in points {
            let n = Double(point.n), m = Double(point.m)
            nn += n * n; nm += n * m; mm += m * m
            gn = gn + n * point.g
            gm = gm + m * point.g
        }
        // Normal equations, alike for x and y: [nn nm; nm mm]·(p, q) = (Σ n·g, Σ m·g).
        guard let inverse = Matrix2(xx: nn, xy: nm, yx: nm, yy: mm).inverse else { return nil }
        return (
            inverse.xx * gn + inverse.xy * gm,
            inverse.yx * gn + inverse.yy * gm
        )
    }
}
