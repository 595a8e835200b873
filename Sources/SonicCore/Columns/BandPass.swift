/// A band-pass filter tuned to the column spacing d: a Gaussian of σ ≈ d/8 (smooths the noise, keeps the columns)
/// minus one of σ ≈ 0.4·d (the local background, ramps included). Not wider: the surround of strong wide columns
/// must not bury a weak column between them.
///
/// Each Gaussian is three box filters in x and three in y, as running sums, so the cost per pixel does not grow
/// with the spacing. The sums are kept as exact integers (the samples are integers) and scaled only at the end,
/// so a pixel's filtered value is the same to the last bit whichever region it was computed in: a tapped patch
/// and the whole image agree exactly. At the image's sides the rows and columns are extended by repeating the
/// edge; a region's cut sides (inside the image) spoil the `support` pixels next to them.
struct BandPass: Sendable {
    let fineRadii: [Int]
    let coarseRadii: [Int]
    let fineScale: Double
    let coarseScale: Double
    /// How many pixels next to a region's cut side are spoilt.
    let support: Int
    /// Standard deviation of the output for unit white noise in: the kernel's root sum of squares.
    let noiseGain: Double

    init(spacing: Double) {
        let fine = max(0.8, spacing / 8)
        let coarse = max(2 * fine, 0.4 * spacing)
        fineRadii = Self.boxRadii(sigma: fine)
        coarseRadii = Self.boxRadii(sigma: coarse)
        func scale(_ radii: [Int]) -> Double {
            let area = radii.reduce(1.0) { $0 * Double(2 * $1 + 1) }
            return 1 / (area * area)
        }
        fineScale = scale(fineRadii)
        coarseScale = scale(coarseRadii)
        support = max(fineRadii.reduce(0, +), coarseRadii.reduce(0, +))
        let k1 = Self.kernel(fineRadii), k2 = Self.kernel(coarseRadii)
        let k11 = Self.dot(k1, k1), k22 = Self.dot(k2, k2), k12 = Self.dot(k1, k2)
        noiseGain = max(0, k11 * k11 - 2 * k12 * k12 + k22 * k22).squareRoot()
    }

    /// Three box widths (2r + 1) whose cascade has variance closest to σ² (Kovesi's choice of two odd widths).
    static func boxRadii(sigma: Double) -> [Int] {
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        lower = max(1, lower)
        let l = Double(lower)
        let m = Int(((12 * sigma * sigma - n * l * l - 4 * n * l - 3 * n) / (-4 * l - 4)).rounded())
        let lowerCount = min(3, max(0, m))
        return (0..<3).map { $0 < lowerCount ? (lower - 1) / 2 : (lower + 1) / 2 }
    }

    /// The normalized 1-D kernel of a cascade of boxes, centred.
    static func kernel(_ radii: [Int]) -> [Double] {
        var k = [1.0]
        for r in radii {
            let w = 2 * r + 1
            var next = [Double](repeating: 0, count: k.count + w - 1)
            for i in 0..<k.count { for j in 0..<w { next[i + j] += k[i] / Double(w) } }
            k = next
        }
        return k
    }

    /// Dot product of two centred, odd-length kernels.
    static func dot(_ a: [Double], _ b: [Double]) -> Double {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        let offset = (long.count - short.count) / 2
        var sum = 0.0
        for i in 0..<short.count { sum += short[i] * long[i + offset] }
        return sum
    }

    /// Filters the region `xs`×`ys` of the image and returns the rows `outRows` (⊆ ys), columns `outColumns`
    /// (⊆ xs), row-major.
    func filter(_ image: GrayImage, xs: Range<Int>, ys: Range<Int>, outColumns: Range<Int>, outRows: Range<Int>)
        -> [Double]
    {
        let w = xs.count, h = ys.count
        let count = w * h
        let fine = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let coarse = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let spare = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let rowA = UnsafeMutablePointer<Int>.allocate(capacity: w)
        let rowB = UnsafeMutablePointer<Int>.allocate(capacity: w)
        let rowC = UnsafeMutablePointer<Int>.allocate(capacity: w)
        let accumulator = UnsafeMutablePointer<Int>.allocate(capacity: w)
        defer {
            fine.deallocate(); coarse.deallocate(); spare.deallocate()
            rowA.deallocate(); rowB.deallocate(); rowC.deallocate(); accumulator.deallocate()
        }
        image.samples.withUnsafeBufferPointer { samples in
            for r in 0..<h {
                let source = samples.baseAddress! + (ys.lowerBound + r) * image.width + xs.lowerBound
                for x in 0..<w { rowA[x] = Int(source[x]) }
                Self.boxRow(rowA, rowB, count: w, radius: fineRadii[0])
                Self.boxRow(rowB, rowC, count: w, radius: fineRadii[1])
                Self.boxRow(rowC, fine + r * w, count: w, radius: fineRadii[2])
                Self.boxRow(rowA, rowB, count: w, radius: coarseRadii[0])
                Self.boxRow(rowB, rowC, count: w, radius: coarseRadii[1])
                Self.boxRow(rowC, coarse + r * w, count: w, radius: coarseRadii[2])
            }
        }
        // Fine: fine → spare → fine → spare. Coarse: coarse → fine → coarse → fine.
        Self.boxColumns(fine, spare, width: w, height: h, radius: fineRadii[0], accumulator: accumulator)
        Self.boxColumns(spare, fine, width: w, height: h, radius: fineRadii[1], accumulator: accumulator)
        Self.boxColumns(fine, spare, width: w, height: h, radius: fineRadii[2], accumulator: accumulator)
        Self.boxColumns(coarse, fine, width: w, height: h, radius: coarseRadii[0], accumulator: accumulator)
        Self.boxColumns(fine, coarse, width: w, height: h, radius: coarseRadii[1], accumulator: accumulator)
        Self.boxColumns(coarse, fine, width: w, height: h, radius: coarseRadii[2], accumulator: accumulator)

        let ow = outColumns.count
        var out = [Double](repeating: 0, count: ow * outRows.count)
        out.withUnsafeMutableBufferPointer { o in
            for (r, y) in outRows.enumerated() {
                let offset = (y - ys.lowerBound) * w + outColumns.lowerBound - xs.lowerBound
                for x in 0..<ow {
                    o[r * ow + x] = Double(spare[offset + x]) * fineScale - Double(fine[offset + x]) * coarseScale
                }
            }
        }
        return out
    }

    /// dst[i] = Σ src[clamp(i + k)] for |k| ≤ radius.
    static func boxRow(_ src: UnsafeMutablePointer<Int>, _ dst: UnsafeMutablePointer<Int>, count n: Int, radius r: Int)
    {
        if r == 0 { dst.update(from: src, count: n); return }
        var sum = 0
        for k in -r...r { sum &+= src[min(max(k, 0), n - 1)] }
        // Head and tail clamp; the middle reads straight.
        let middleStart = min(n, r), middleEnd = max(middleStart, n - r - 1)
        var i = 0
        while i < middleStart {
            dst[i] = sum
            sum &+= src[min(i + r + 1, n - 1)] &- src[max(i - r, 0)]
            i += 1
        }
        while i < middleEnd {
            dst[i] = sum
            sum &+= src[i + r + 1] &- src[i - r]
            i += 1
        }
        while i < n {
            dst[i] = sum
            sum &+= src[min(i + r + 1, n - 1)] &- src[max(i - r, 0)]
            i += 1
        }
    }

    /// The same down the columns, a whole row at a time.
    static func boxColumns(
        _ src: UnsafeMutablePointer<Int>, _ dst: UnsafeMutablePointer<Int>, width w: Int, height h: Int,
        radius r: Int, accumulator acc: UnsafeMutablePointer<Int>
    ) {
        if r == 0 { dst.update(from: src, count: w * h); return }
        acc.update(repeating: 0, count: w)
        for k in -r...r {
            let row = src + min(max(k, 0), h - 1) * w
            for x in 0..<w { acc[x] &+= row[x] }
        }
        for y in 0..<h {
            let out = dst + y * w
            out.update(from: acc, count: w)
            if y == h - 1 { break }
            let add = src + min(y + r + 1, h - 1) * w, remove = src + max(y - r, 0) * w
            for x in 0..<w { acc[x] &+= add[x] &- remove[x] }
        }
    }
}
