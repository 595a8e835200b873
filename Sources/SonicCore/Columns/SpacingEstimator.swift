/// Estimates the nearest-neighbour column spacing of a lattice image from the autocorrelation of a central crop.
///
/// The autocorrelation of a lattice of columns is itself a lattice of peaks, one per difference vector between
/// columns; the nearest of them beyond the central peak is the nearest-neighbour spacing. A peak counts when it is
/// clearly correlated (at least `minimumPeak` of the zero-lag signal correlation) and clearly separated from the
/// central peak (the autocorrelation dips by at least `minimumDip` on the way out to it). Flat images, pure noise
/// and smooth images have no such peak. A weak sublattice between wide columns is only a shoulder on the central
/// peak: found by the autocorrelation's Laplacian, and confirmed in the crop averaged over the strong columns' cell.
enum SpacingEstimator {
    struct Peak: Sendable {
        var x: Double, y: Double, distance: Double, value: Double
    }

    /// Below this lag-1 correlation (relative to the zero lag, which holds the white noise too) there is no
    /// spatial structure to speak of.
    static let minimumStructure = 0.05
    static let minimumPeak = 0.2
    static let minimumDip = 0.3
    /// A shoulder counts as a sublattice peak when its Laplacian is at least this share of the nearest peak's, and
    /// it lies between these fractions of the nearest peak's distance (a centred sublattice sits at 1/√2 ≈ 0.71).
    static let minimumShoulder = 0.3
    static let minimumShoulderDistance = 0.55
    static let maximumShoulderDistance = 0.9

    static func estimate(_ image: GrayImage) -> Double? {
        let peaks = latticePeaks(image)
        guard let nearest = peaks.map(\.distance).min() else { return nil }
        let close = peaks.filter { $0.distance <= nearest * 1.05 }
        return close.reduce(0) { $0 + $1.distance } / Double(close.count)
    }

    /// The autocorrelation peaks that look like lattice vectors, in the half plane τy ≥ 0, with sub-pixel positions.
    static func latticePeaks(_ image: GrayImage) -> [Peak] {
        let side = min(image.width, image.height) >= 1024 ? 512 : 256
        let cw = min(side, image.width), ch = min(side, image.height)
        guard cw >= 16 && ch >= 16 else { return [] }
        let x0 = (image.width - cw) / 2, y0 = (image.height - ch) / 2

        // The crop with its least-squares plane removed (centred coordinates: the normal equations decouple).
        var data = [Double](repeating: 0, count: cw * ch)
        var mean = 0.0, sx = 0.0, sy = 0.0
        let mx = Double(cw - 1) / 2, my = Double(ch - 1) / 2
        for y in 0..<ch {
            for x in 0..<cw {
                let v = Double(image[x0 + x, y0 + y])
                data[y * cw + x] = v
                mean += v; sx += v * (Double(x) - mx); sy += v * (Double(y) - my)
            }
        }
        let n = Double(cw * ch)
        // Σ(x − mx)² over the grid = ch · cw(cw² − 1)/12.
        let sxx = Double(ch) * Double(cw) * (Double(cw * cw) - 1) / 12
        let syy = Double(cw) * Double(ch) * (Double(ch * ch) - 1) / 12
        mean /= n
        let gx = sx / sxx, gy = sy / syy
        for y in 0..<ch {
            for x in 0..<cw {
                data[y * cw + x] -= mean + gx * (Double(x) - mx) + gy * (Double(y) - my)
            }
        }

        var pw = 1, ph = 1
        while pw < 2 * cw { pw <<= 1 }
        while ph < 2 * ch { ph <<= 1 }
        let raw = FFT2D(width: pw, height: ph).autocorrelation(of: data, dataWidth: cw, dataHeight: ch)
        /// Unbiased: each lag divided by the number of pixel pairs it has.
        func lag(_ tx: Int, _ ty: Int) -> Double {
            let pairs = Double((cw - abs(tx)) * (ch - abs(ty)))
            return raw[((ty + ph) % ph) * pw + (tx + pw) % pw] / pairs
        }
        let c0 = lag(0, 0)
        let c1 = (lag(1, 0) + lag(0, 1)) / 2
        guard c0 > 0 && c1 > minimumStructure * c0 else { return [] }

        // Normalised by the lag-1 value: the signal's own variance, free of the white noise at lag 0.
        let m = min(cw, ch) / 2 - 2
        guard m >= 3 else { return [] }
        let span = 2 * m + 3
        var table = [Double](repeating: 0, count: span * span)
        for ty in -(m + 1)...(m + 1) {
            for tx in -(m + 1)...(m + 1) { table[(ty + m + 1) * span + tx + m + 1] = lag(tx, ty) / c1 }
        }
        func at(_ tx: Int, _ ty: Int) -> Double { table[(ty + m + 1) * span + tx + m + 1] }
        func bilinear(_ x: Double, _ y: Double) -> Double {
            let fx = x.rounded(.down), fy = y.rounded(.down)
            let ix = Int(fx), iy = Int(fy), ax = x - fx, ay = y - fy
            return (1 - ay) * ((1 - ax) * at(ix, iy) + ax * at(ix + 1, iy))
                + ay * ((1 - ax) * at(ix, iy + 1) + ax * at(ix + 1, iy + 1))
        }

        var peaks: [Peak] = []
        for ty in 0...m {
            for tx in -m...m where ty > 0 || tx > 0 {
                let r2 = tx * tx + ty * ty
                guard r2 >= 4 && r2 <= m * m else { continue }
                let v = at(tx, ty)
                guard v >= minimumPeak else { continue }
                guard isStrictMaximum(at, tx, ty) else { continue }
                let r = Double(r2).squareRoot()
                var lowest = v
                var s = 0.5
                while s < r {
                    lowest = min(lowest, bilinear(Double(tx) * s / r, Double(ty) * s / r))
                    s += 0.5
                }
                guard v - lowest >= minimumDip else { continue }
                let (px, py) = vertex(at, tx, ty)
                peaks.append(Peak(x: px, y: py, distance: (px * px + py * py).squareRoot(), value: v))
            }
        }
        guard let nearest = peaks.min(by: { $0.distance < $1.distance }) else { return peaks }

        // A weaker sublattice between the strong columns (light columns at the cells' centres) shows, when the
        // columns are wide, only as a shoulder on the flank of the central peak: the autocorrelation's peaks are √2
        // wider than the columns. Its Laplacian turns the shoulder back into a peak.
        func laplacian(_ tx: Int, _ ty: Int) -> Double {
            4 * at(tx, ty) - at(tx - 1, ty) - at(tx + 1, ty) - at(tx, ty - 1) - at(tx, ty + 1)
        }
        let reference = laplacian(Int(nearest.x.rounded()), Int(nearest.y.rounded()))
        guard reference > 0 else { return peaks }
        guard let (a, b) = shortestIndependent(peaks) else { return peaks }
        let halfCells = halfCellVectors(a, b)
        // Noise makes shoulders too, where the lattice is sparse and the autocorrelation flat; only a column seen in
        // the mean cell confirms one. Averaged only once there is a shoulder to confirm.
        var sites: [(x: Double, y: Double)]?
        func confirmed(_ px: Double, _ py: Double, within tolerance: Double) -> Bool {
            let found =
                sites
                ?? sublatticeSites(
                    data, width: cw, height: ch, a: a, b: b, noise: NoiseLevel.estimate(image, crop: side))
            sites = found
            return found.contains { site in
                [1.0, -1].contains { sign in latticeRemainder(px - sign * site.x, py - sign * site.y, a, b) <= tolerance
                }
            }
        }
        let clearPeaks = peaks
        let inner = minimumShoulderDistance * nearest.distance, outer = maximumShoulderDistance * nearest.distance
        for ty in 0...(m - 1) {
            for tx in -(m - 1)...(m - 1) where ty > 0 || tx > 0 {
                let r = Double(tx * tx + ty * ty).squareRoot()
                guard r >= inner && r <= outer else { continue }
                let v = laplacian(tx, ty)
                guard v >= minimumShoulder * reference else { continue }
                guard isStrictMaximum(laplacian, tx, ty) else { continue }
                var (px, py) = vertex(laplacian, tx, ty)
                let distance = length(px, py)
                // The inner flank of a peak already found is no sublattice.
                guard !clearPeaks.contains(where: { length($0.x - px, $0.y - py) < flankShare * distance }) else {
                    continue
                }
                // On the central peak's flank the shoulder's own position is pulled aside; a sublattice at a
                // half-cell position is then placed by the strong peaks, which are measured cleanly.
                if let half = halfCells.min(by: { length($0.x - px, $0.y - py) < length($1.x - px, $1.y - py) }),
                    length(half.x - px, half.y - py) <= halfCellTolerance * distance
                {
                    (px, py) = half
                }
                guard confirmed(px, py, within: halfCellTolerance * distance) else { continue }
                peaks.append(Peak(x: px, y: py, distance: (px * px + py * py).squareRoot(), value: at(tx, ty)))
            }
        }
        return peaks
    }

    /// The two shortest independent peaks: the cell the clear peaks span.
    private static func shortestIndependent(_ peaks: [Peak]) -> (Peak, Peak)? {
        let sorted = peaks.sorted { $0.distance < $1.distance }
        guard let a = sorted.first,
            let b = sorted.dropFirst().first(where: { abs(a.x * $0.y - a.y * $0.x) > 0.3 * a.distance * $0.distance })
        else { return nil }
        return (a, b)
    }

    /// A site in the mean cell counts as a column when it stands this share of the main column's contrast, and this
    /// many standard errors of a bin's mean, above everything two bins around it. Noise and the flanks of the main
    /// column leave maxima that do not.
    static let minimumSiteRise = 0.01
    static let minimumSiteSignificance = 3.0

    /// The columns of the cell spanned by a and b besides the main one, as vectors from it: the crop is averaged
    /// over that cell (every cell's columns laid on one another, the noise averaged away), and each other maximum
    /// of that mean cell that stands clear of its surroundings is a column.
    private static func sublatticeSites(
        _ data: [Double], width: Int, height: Int, a: Peak, b: Peak,
        noise: Double
    ) -> [(x: Double, y: Double)] {
        let det = a.x * b.y - a.y * b.x
        guard abs(det) > 1 else { return [] }
        // Bins about 1.5 px wide.
        let n = min(32, max(8, Int((min(a.distance, b.distance) / 1.5).rounded())))
        var sum = [Double](repeating: 0, count: n * n), count = [Double](repeating: 0, count: n * n)
        for y in 0..<height {
            for x in 0..<width {
                var (u, v) = cellCoordinates(Double(x), Double(y), a, b)
                u -= u.rounded(.down); v -= v.rounded(.down)
                let k = min(n - 1, Int(v * Double(n))) * n + min(n - 1, Int(u * Double(n)))
                sum[k] += data[y * width + x]; count[k] += 1
            }
        }
        guard !count.contains(0) else { return [] }
        let cell = (0..<(n * n)).map { sum[$0] / count[$0] }
        func at(_ i: Int, _ j: Int) -> Double { cell[((j % n + n) % n) * n + (i % n + n) % n] }
        let main = cell.indices.max { cell[$0] < cell[$1] }!
        let (mi, mj) = (main % n, main / n)
        let contrast = cell[main] - cell.min()!
        guard contrast > 0 else { return [] }
        let minimumRise = max(minimumSiteRise * contrast, minimumSiteSignificance * noise / count.min()!.squareRoot())
        var sites: [(x: Double, y: Double)] = []
        for j in 0..<n {
            for i in 0..<n where (i, j) != (mi, mj) && isStrictMaximum(at, i, j) {
                var surroundings = -Double.infinity
                for o in -2...2 {
                    surroundings = max(
                        surroundings, at(i + o, j - 2), at(i + o, j + 2), at(i - 2, j + o), at(i + 2, j + o))
                }
                guard at(i, j) - surroundings >= minimumRise else { continue }
                let (fu, fv) = vertex(at, i, j)
                let u = (fu - Double(mi)) / Double(n), v = (fv - Double(mj)) / Double(n)
                sites.append((u * a.x + v * b.x, u * a.y + v * b.y))
            }
        }
        return sites
    }

    /// (x, y) in units of a and b: x = u·a + v·b.
    private static func cellCoordinates(_ x: Double, _ y: Double, _ a: Peak, _ b: Peak) -> (u: Double, v: Double) {
        let det = a.x * b.y - a.y * b.x
        return ((x * b.y - y * b.x) / det, (y * a.x - x * a.y) / det)
    }

    /// How far (x, y) is from the nearest vector of the lattice a, b.
    private static func latticeRemainder(_ x: Double, _ y: Double, _ a: Peak, _ b: Peak) -> Double {
        var (u, v) = cellCoordinates(x, y, a, b)
        u -= u.rounded(); v -= v.rounded()
        return length(u * a.x + v * b.x, u * a.y + v * b.y)
    }

    private static func length(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }

    /// A Laplacian maximum this close to a clear peak (as a share of its distance) is that peak's flank.
    static let flankShare = 0.25
    /// How far (as a share of its distance) a shoulder may lie from a half-cell vector and still be taken for it.
    static let halfCellTolerance = 0.15

    /// Half of each short sum and difference of the two shortest independent strong peaks, a and b: a/2, b/2,
    /// (a + b)/2 and (a − b)/2 — where a sublattice sits in a centred or face-centred projection.
    private static func halfCellVectors(_ a: Peak, _ b: Peak) -> [(x: Double, y: Double)] {
        [(a.x / 2, a.y / 2), (b.x / 2, b.y / 2), ((a.x + b.x) / 2, (a.y + b.y) / 2), ((a.x - b.x) / 2, (a.y - b.y) / 2)]
            .flatMap { [$0, (-$0.0, -$0.1)] }
    }

    /// f(tx, ty) is above all eight neighbours.
    private static func isStrictMaximum(_ f: (Int, Int) -> Double, _ tx: Int, _ ty: Int) -> Bool {
        let v = f(tx, ty)
        for oy in -1...1 {
            for ox in -1...1 where (ox != 0 || oy != 0) && f(tx + ox, ty + oy) >= v { return false }
        }
        return true
    }

    /// The sub-pixel position of the maximum of f at (tx, ty), from parabolas along x and y.
    private static func vertex(_ f: (Int, Int) -> Double, _ tx: Int, _ ty: Int) -> (Double, Double) {
        let v = f(tx, ty)
        return (
            Double(tx) + parabolaVertex(f(tx - 1, ty), v, f(tx + 1, ty)),
            Double(ty) + parabolaVertex(f(tx, ty - 1), v, f(tx, ty + 1))
        )
    }

    /// Offset of the vertex of the parabola through (−1, a), (0, b), (1, c), from 0; within ±0.5.
    static func parabolaVertex(_ a: Double, _ b: Double, _ c: Double) -> Double {
        let curvature = a - 2 * b + c
        guard curvature < 0 else { return 0 }
        return min(0.5, max(-0.5, 0.5 * (a - c) / curvature))
    }
}
