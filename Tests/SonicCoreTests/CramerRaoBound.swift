import RealModule

@testable import SonicCore

/// The smallest centre error any unbiased estimator can reach on a synthetic lattice: the Cramér–Rao bound of the
/// model that made it (every column's centre and height, one shared width, a plane background) under its noise
/// (shot noise of variance intensity / dose, plus read noise).
///
/// Columns centred up to 2σ outside the image are parameters too (their tails reach in); the bound is reported for
/// the columns inside.
struct CentreBound {
    var x: Double, y: Double
    /// Expected distance of an efficient estimate from the true centre.
    var expectedError: Double
}

func cramerRaoBound(_ lattice: LatticeImage) -> [CentreBound] {
    let width = lattice.width, height = lattice.height, sigma = lattice.sigma
    let columns = lattice.columns(margin: 2 * sigma)
    let reach = 4 * sigma
    // Parameters: x, y, height per column; then the width; then the background level and its two slopes.
    let n = 3 * columns.count + 4
    let shared = 3 * columns.count
    var fisher = [Double](repeating: 0, count: n * n)
    var near = [[Int]](repeating: [], count: width * height)
    for (k, c) in columns.enumerated() {
        let x0 = max(0, Int((c.x - reach).rounded(.down))), x1 = min(width - 1, Int((c.x + reach).rounded(.up)))
        let y0 = max(0, Int((c.y - reach).rounded(.down))), y1 = min(height - 1, Int((c.y + reach).rounded(.up)))
        guard x0 <= x1 && y0 <= y1 else { continue }
        for y in y0...y1 { for x in x0...x1 { near[y * width + x].append(k) } }
    }
    let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
    var index: [Int] = [], derivative: [Double] = []
    fisher.withUnsafeMutableBufferPointer { fisher in
        for y in 0..<height {
            for x in 0..<width {
                index.removeAll(keepingCapacity: true); derivative.removeAll(keepingCapacity: true)
                var mean =
                    lattice.background + lattice.backgroundSlope.x * (Double(x) - cx)
                    + lattice.backgroundSlope.y * (Double(y) - cy)
                var bySigma = 0.0
                for k in near[y * width + x] {
                    let c = columns[k], dx = Double(x) - c.x, dy = Double(y) - c.y
                    let r2 = dx * dx + dy * dy
                    let g = Double.exp(-r2 / (2 * sigma * sigma))
                    mean += c.height * g
                    index += [3 * k, 3 * k + 1, 3 * k + 2]
                    derivative += [c.height * g * dx / (sigma * sigma), c.height * g * dy / (sigma * sigma), g]
                    bySigma += c.height * g * r2 / (sigma * sigma * sigma)
                }
                index += [shared, shared + 1, shared + 2, shared + 3]
                derivative += [bySigma, 1, Double(x) - cx, Double(y) - cy]
                let variance = max(0, mean) / lattice.doseScale + lattice.readNoise * lattice.readNoise
                for i in index.indices {
                    let weighted = derivative[i] / variance, row = index[i] * n
                    for j in index.indices { fisher[row + index[j]] += weighted * derivative[j] }
                }
            }
        }
    }
    // The covariance's 2×2 centre blocks: the inverse's entries from the Cholesky factor L (F = LLᵀ) as
    // Σ_ij = Σ_k (L⁻¹)_ki (L⁻¹)_kj, with L⁻¹ built column by column.
    var inverse = [Double](repeating: 0, count: n * n)
    fisher.withUnsafeMutableBufferPointer { l in
        for j in 0..<n {
            var d = l[j * n + j]
            for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
            precondition(d > 0, "the Fisher information is singular")
            d = d.squareRoot()
            l[j * n + j] = d
            for i in (j + 1)..<n {
                var v = l[i * n + j]
                for k in 0..<j { v -= l[i * n + k] * l[j * n + k] }
                l[i * n + j] = v / d
            }
        }
        inverse.withUnsafeMutableBufferPointer { m in
            // m = L⁻¹ (lower triangular), by forward substitution on each unit vector.
            for c in 0..<n {
                for i in c..<n {
                    var v = i == c ? 1.0 : 0.0
                    for k in c..<i { v -= l[i * n + k] * m[k * n + c] }
                    m[i * n + c] = v / l[i * n + i]
                }
            }
        }
    }
    return columns.indices.compactMap { k -> CentreBound? in
        let c = columns[k]
        guard c.x >= -0.5 && c.x < Double(width) - 0.5 && c.y >= -0.5 && c.y < Double(height) - 0.5 else { return nil }
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for row in (3 * k)..<n {
            let a = inverse[row * n + 3 * k], b = inverse[row * n + 3 * k + 1]
            sxx += a * a; syy += b * b; sxy += a * b
        }
        return CentreBound(x: c.x, y: c.y, expectedError: expectedLength(sxx, syy, sxy))
    }
}

/// E|e| for e ~ N(0, [[sxx, sxy], [sxy, syy]]): the radius and the direction of a standard normal are independent,
/// so it is E|z| = √(π/2) times the mean of |Σ^½ u| over directions u.
private func expectedLength(_ sxx: Double, _ syy: Double, _ sxy: Double) -> Double {
    let steps = 64
    var sum = 0.0
    for s in 0..<steps {
        let angle = 2 * Double.pi * (Double(s) + 0.5) / Double(steps)
        let u = Double.cos(angle), v = Double.sin(angle)
        sum += max(0, sxx * u * u + 2 * sxy * u * v + syy * v * v).squareRoot()
    }
    return (Double.pi / 2).squareRoot() * sum / Double(steps)
}
