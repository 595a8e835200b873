/// Columns seen from one direction across them, for measuring steps across many parallel lines fast: sorted by their
/// place across the lines, with running sums of everything a step needs, so each side of each line is two lookups.
struct LineSides {
    struct Measured {
        /// Number by number, the far side's level less the near side's, under one plane through both.
        var jump: [Double]
        /// The jump's variance per unit variance of one column's value, as if the columns were independent.
        var variance: Double
        /// How far the columns scatter about the plane, number by number.
        var scatter: [Double]
        /// The near side's value at the line, at the middle of the columns along it.
        var before: [Double]
    }

    let normal: PixelVector
    /// Each column's place across the lines (p·normal), ascending.
    private let across: [Double]
    /// Running sums from the first column: count is the index; then s, t, s², s·t, t², and for each number v, v², s·v,
    /// t·v.
    private let sums: [[Double]]
    private let values: Int

    init(_ columns: [InterfaceSearch.Column], normal: PixelVector) {
        self.normal = normal
        let direction = PixelVector(x: -normal.y, y: normal.x)
        let placed = columns.map {
            (s: LatticeAnalysis.dot($0.position, normal), t: LatticeAnalysis.dot($0.position, direction), v: $0.values)
        }.sorted { $0.s < $1.s }
        across = placed.map(\.s)
        values = columns.first?.values.count ?? 0
        let width = 5 + 4 * values
        var running = [Double](repeating: 0, count: width)
        var sums = [running]
        sums.reserveCapacity(placed.count + 1)
        for p in placed {
            running[0] += p.s; running[1] += p.t; running[2] += p.s * p.s; running[3] += p.s * p.t
            running[4] += p.t * p.t
            for c in 0..<values {
                let v = p.v[c]
                running[5 + 4 * c] += v; running[6 + 4 * c] += v * v
                running[7 + 4 * c] += p.s * v; running[8 + 4 * c] += p.t * v
            }
            sums.append(running)
        }
        self.sums = sums
    }

    /// The first index whose place is at least `value`.
    private func index(_ value: Double) -> Int {
        var low = 0, high = across.count
        while low < high {
            let middle = (low + high) / 2
            if across[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The step across the line {p : p·normal = offset}, from the columns `nearest` to `reach` from it (in pixels)
    /// on either side; nil where a side holds fewer than six columns, or they spread over less than 70 % of its width.
    func step(at offset: Double, nearest: Double, reach: Double) -> Measured? {
        let ranges = [
            (index(offset - reach), index(offset - nearest)), (index(offset + nearest), index(offset + reach + 1e-9))
        ]
        for (from, to) in ranges {
            guard to - from >= 6, across[to - 1] - across[from] >= 0.7 * (reach - nearest) else { return nil }
        }
        func total(_ range: (Int, Int), _ k: Int) -> Double { sums[range.1][k] - sums[range.0][k] }
        let counts = ranges.map { Double($0.1 - $0.0) }
        let meanS = (0..<2).map { total(ranges[$0], 0) / counts[$0] }
        let meanT = (0..<2).map { total(ranges[$0], 1) / counts[$0] }
        // The scatter of (s, t) about each side's means, pooled.
        var sss = 0.0, sst = 0.0, stt = 0.0
        for k in 0..<2 {
            sss += total(ranges[k], 2) - counts[k] * meanS[k] * meanS[k]
            sst += total(ranges[k], 3) - counts[k] * meanS[k] * meanT[k]
            stt += total(ranges[k], 4) - counts[k] * meanT[k] * meanT[k]
        }
        guard let inverse = Matrix2(xx: sss, xy: sst, yx: sst, yy: stt).inverse else { return nil }
        let apart = PixelVector(x: meanS[1] - meanS[0], y: meanT[1] - meanT[0])
        let variance = 1 / counts[0] + 1 / counts[1] + LatticeAnalysis.dot(apart, inverse * apart)
        let middleT = (meanT[0] * counts[0] + meanT[1] * counts[1]) / (counts[0] + counts[1])
        var measured = Measured(jump: [], variance: variance, scatter: [], before: [])
        for c in 0..<values {
            let levels = (0..<2).map { total(ranges[$0], 5 + 4 * c) / counts[$0] }
            var svv = 0.0, ssv = 0.0, stv = 0.0
            for k in 0..<2 {
                svv += total(ranges[k], 6 + 4 * c) - counts[k] * levels[k] * levels[k]
                ssv += total(ranges[k], 7 + 4 * c) - counts[k] * meanS[k] * levels[k]
                stv += total(ranges[k], 8 + 4 * c) - counts[k] * meanT[k] * levels[k]
            }
            let covariance = PixelVector(x: ssv, y: stv)
            let slopes = inverse * covariance
            measured.jump.append((levels[1] - levels[0]) - LatticeAnalysis.dot(slopes, apart))
            measured.before.append(
                levels[0] - slopes.x * (meanS[0] - offset) + slopes.y * (middleT - meanT[0]))
            let squares = max(0, svv - LatticeAnalysis.dot(slopes, covariance))
            measured.scatter.append((squares / max(1, counts[0] + counts[1] - 4)).squareRoot())
        }
        return measured
    }
}
