import RealModule

/// A column's Gaussian alone (no background): what is subtracted from the data when fitting its neighbours.
struct ColumnGaussian: Sendable, Equatable {
    var x: Double, y: Double, amplitude: Double, sigma: Double
}

/// A fitted isotropic Gaussian on a tilted plane:
/// f(x, y) = A·exp(−((x − x0)² + (y − y0)²) / 2σ²) + c0 + cx·(x − xr) + cy·(y − yr),
/// with (xr, yr) the window's centre pixel.
struct GaussianPlaneFit: Sendable, Equatable {
    var amplitude: Double, x: Double, y: Double, sigma: Double
    var offset: Double, slopeX: Double, slopeY: Double
    var referenceX: Int, referenceY: Int
    /// R² of the model over the window.
    var rSquared: Double
    /// The amplitude over its standard error (from the curvature of the sum of squares at the minimum).
    var significance: Double
    var pixelCount: Int

    var gaussian: ColumnGaussian { ColumnGaussian(x: x, y: y, amplitude: amplitude, sigma: sigma) }

    /// The plane's value at a pixel.
    func plane(atX x: Int, y: Int) -> Double {
        offset + slopeX * Double(x - referenceX) + slopeY * Double(y - referenceY)
    }
}

/// Least-squares (Levenberg–Marquardt) fits of a `GaussianPlaneFit` model to the raw samples in a disc, each pixel
/// weighted by the inverse of its noise variance when a `NoiseModel` is given (the variance at the level the start
/// and the subtracted neighbours predict there: a fit's own data would favour pixels that happened to come out low).
/// Holds its scratch buffers from one fit to the next: make one per thread of work, not one per fit.
final class GaussianFitter {
    struct Start {
        var x: Double, y: Double, sigma: Double
        /// Amplitude and plane; when nil they are guessed from the window (its lowest sample as the plane).
        var amplitude: Double? = nil
        var offset: Double? = nil
        var slopeX = 0.0, slopeY = 0.0
        /// The plane's slopes stay at slopeX and slopeY: only its level is fitted.
        var holdsSlopes = false
    }

    static let maximumIterations = 60
    private static let parameterCount = 7

    private var capacity = 0
    private var dx: UnsafeMutablePointer<Double>
    private var dy: UnsafeMutablePointer<Double>
    private var z: UnsafeMutablePointer<Double>
    private var w: UnsafeMutablePointer<Double>
    /// H, g, trial H, trial g, factor, step, parameters, trial parameters.
    private let work: UnsafeMutablePointer<Double>

    init(capacity: Int = 1024) {
        self.capacity = capacity
        dx = .allocate(capacity: capacity)
        dy = .allocate(capacity: capacity)
        z = .allocate(capacity: capacity)
        w = .allocate(capacity: capacity)
        across = .allocate(capacity: 0)
        down = .allocate(capacity: 0)
        work = .allocate(capacity: 49 * 3 + 7 * 5)
    }

    deinit {
        dx.deallocate(); dy.deallocate(); z.deallocate(); w.deallocate(); across.deallocate(); down.deallocate()
        work.deallocate()
    }

    /// A Gaussian's factors along x and along y at the window's integer offsets −reach…reach: a Gaussian over the
    /// window costs 2·(2·reach + 1) exponentials rather than one per pixel.
    private var across: UnsafeMutablePointer<Double>
    private var down: UnsafeMutablePointer<Double>
    private var profileCapacity = 0
    /// The window's half-width in whole pixels: every pixel's offsets from its centre lie in −reach…reach.
    private var reach = 0

    private func reserveProfiles(_ reach: Int) {
        guard 2 * reach + 1 > profileCapacity else { return }
        across.deallocate(); down.deallocate()
        profileCapacity = 2 * reach + 1
        across = .allocate(capacity: profileCapacity)
        down = .allocate(capacity: profileCapacity)
    }

    /// table[i] = exp(−(i − reach − centre)²·half) for i in 0…2·reach.
    private static func fillGaussian(
        _ table: UnsafeMutablePointer<Double>, centre: Double, half: Double, reach: Int
    ) {
        for i in 0...(2 * reach) {
            let e = Double(i - reach) - centre
            table[i] = Double.exp(-e * e * half)
        }
    }

    private func reserve(_ count: Int) {
        guard count > capacity else { return }
        dx.deallocate(); dy.deallocate(); z.deallocate(); w.deallocate()
        capacity = max(count, 2 * capacity)
        dx = .allocate(capacity: capacity)
        dy = .allocate(capacity: capacity)
        z = .allocate(capacity: capacity)
        w = .allocate(capacity: capacity)
    }

    // Constant weighted sums over the window: Σw, Σw·dx, Σw·dy, Σw·dx², Σw·dx·dy, Σw·dy².
    private var n = 0
    /// The unweighted sum of squared residuals of the last `evaluate`: R² stays a share of the window's variance.
    private var plainCost = 0.0
    /// Whether the pixels of this fit have weights other than 1.
    private var weighted = false
    private var sumW = 0.0, sumX = 0.0, sumY = 0.0, sumXX = 0.0, sumXY = 0.0, sumYY = 0.0
    /// Whether this fit keeps the plane's slopes at their start values.
    private var holdsSlopes = false

    /// Fits the pixels within `radius` of (centreX, centreY) that lie in the image, after subtracting the
    /// given neighbours' Gaussians. Nil when the window is too small or the fit breaks down numerically.
    func fit(
        _ image: GrayImage, centreX: Int, centreY: Int, radius: Double, start: Start,
        subtracting neighbours: [ColumnGaussian], noise: NoiseModel? = nil
    ) -> GaussianPlaneFit? {
        reach = Int(radius.rounded(.down))
        let x0 = max(0, centreX - reach), x1 = min(image.width - 1, centreX + reach)
        let y0 = max(0, centreY - reach), y1 = min(image.height - 1, centreY + reach)
        guard x0 <= x1 && y0 <= y1 else { return nil }
        reserve((x1 - x0 + 1) * (y1 - y0 + 1))
        let limit = radius * radius
        n = 0
        var lowest = Double.infinity, central = 0.0
        image.samples.withUnsafeBufferPointer { samples in
            for y in y0...y1 {
                let ey = y - centreY
                for x in x0...x1 {
                    let ex = x - centreX
                    guard Double(ex * ex + ey * ey) <= limit else { continue }
                    dx[n] = Double(ex); dy[n] = Double(ey)
                    z[n] = Double(samples[y * image.width + x])
                    w[n] = 0
                    n += 1
                }
            }
        }
        guard n >= 12 else { return nil }
        reserveProfiles(reach)
        for neighbour in neighbours {
            let half = 0.5 / (neighbour.sigma * neighbour.sigma)
            Self.fillGaussian(across, centre: neighbour.x - Double(centreX), half: half, reach: reach)
            Self.fillGaussian(down, centre: neighbour.y - Double(centreY), half: half, reach: reach)
            for k in 0..<n {
                let tail = neighbour.amplitude * across[Int(dx[k]) + reach] * down[Int(dy[k]) + reach]
                z[k] -= tail
                w[k] += tail
            }
        }
        var sumZ = 0.0
        for k in 0..<n {
            sumZ += z[k]
            lowest = min(lowest, z[k])
            if dx[k] == 0 && dy[k] == 0 { central = z[k] }
        }
        let meanZ = sumZ / Double(n)
        var total = 0.0
        for k in 0..<n { total += (z[k] - meanZ) * (z[k] - meanZ) }

        let H = work, g = work + 49, trialH = work + 56, trialG = work + 105, factor = work + 112
        let step = work + 161, p = work + 168, trial = work + 175
        let offset = start.offset ?? lowest
        p[0] = start.amplitude ?? max(1, central - offset)
        p[1] = start.x - Double(centreX); p[2] = start.y - Double(centreY)
        p[3] = start.sigma
        p[4] = offset; p[5] = start.slopeX; p[6] = start.slopeY
        setWeights(p, noise: noise)
        holdsSlopes = start.holdsSlopes

        var cost = evaluate(p, H, g), fittedPlainCost = plainCost
        guard cost.isFinite else { return nil }
        var lambda = 1e-3
        for _ in 0..<Self.maximumIterations {
            for i in 0..<49 { factor[i] = H[i] }
            for i in 0..<7 { factor[i * 8] += lambda * max(H[i * 8], 1e-12) }
            guard Self.solve(factor, g, step) else {
                lambda *= 10
                if lambda > 1e12 { break } else { continue }
            }
            var finite = true
            for i in 0..<7 {
                trial[i] = p[i] + step[i]
                if !trial[i].isFinite { finite = false }
            }
            guard finite && trial[3] > 0.25 else {
                lambda *= 10
                if lambda > 1e12 { break } else { continue }
            }
            let trialCost = evaluate(trial, trialH, trialG)
            if trialCost <= cost {
                let small =
                    abs(step[1]) < 1e-5 && abs(step[2]) < 1e-5 && abs(step[3]) < 1e-5 * trial[3]
                    && abs(step[0]) < 1e-6 * abs(trial[0]) + 1e-9
                for i in 0..<7 { p[i] = trial[i]; g[i] = trialG[i] }
                for i in 0..<49 { H[i] = trialH[i] }
                cost = trialCost
                fittedPlainCost = plainCost
                lambda = max(lambda * 0.2, 1e-10)
                if small { break }
            } else {
                lambda *= 10
                // No step lowers the sum of squares any more: at the minimum to working precision.
                if lambda > 1e12 { break }
            }
        }

        // Standard error of the amplitude: (H⁻¹)₀₀ · s², s² the residual variance.
        for i in 0..<49 { factor[i] = H[i] }
        for i in 0..<7 { trialG[i] = i == 0 ? 1 : 0 }
        var significance = 0.0
        let fittedCount = Self.parameterCount - (holdsSlopes ? 2 : 0)
        if n > fittedCount && Self.solve(factor, trialG, step) && step[0] > 0 {
            let variance = step[0] * cost / Double(n - fittedCount)
            significance = variance > 0 ? p[0] / variance.squareRoot() : (p[0] > 0 ? .infinity : 0)
        }
        let result = GaussianPlaneFit(
            amplitude: p[0], x: Double(centreX) + p[1], y: Double(centreY) + p[2], sigma: p[3],
            offset: p[4], slopeX: p[5], slopeY: p[6], referenceX: centreX, referenceY: centreY,
            rSquared: total > 0 ? 1 - fittedPlainCost / total : 0, significance: significance, pixelCount: n)
        guard result.amplitude.isFinite && result.x.isFinite && result.y.isFinite && result.sigma.isFinite else {
            return nil
        }
        return result
    }

    /// Each pixel's weight: 1 without a noise model; with one, the variance at the window's background over the
    /// variance at the level the model at p plus the subtracted neighbours (held in `w`) predicts there. Then the
    /// window's constant weighted sums.
    private func setWeights(_ p: UnsafeMutablePointer<Double>, noise: NoiseModel?) {
        weighted = noise != nil
        if let noise {
            let a = p[0], half = 0.5 / (p[3] * p[3]), c0 = p[4], cx = p[5], cy = p[6]
            Self.fillGaussian(across, centre: p[1], half: half, reach: reach)
            Self.fillGaussian(down, centre: p[2], half: half, reach: reach)
            let reference = noise.variance(atMean: c0)
            for k in 0..<n {
                let x = dx[k], y = dy[k]
                let column = a * across[Int(x) + reach] * down[Int(y) + reach]
                let level = column + c0 + cx * x + cy * y + w[k]
                w[k] = reference / noise.variance(atMean: level)
            }
        } else {
            for k in 0..<n { w[k] = 1 }
        }
        sumW = 0; sumX = 0; sumY = 0; sumXX = 0; sumXY = 0; sumYY = 0
        for k in 0..<n {
            let x = dx[k], y = dy[k], weight = w[k]
            sumW += weight; sumX += weight * x; sumY += weight * y
            sumXX += weight * x * x; sumXY += weight * x * y; sumYY += weight * y * y
        }
    }

    /// Weighted sum of squared residuals at p; fills the Gauss–Newton matrix H = JᵀWJ and gradient g = JᵀWr, and
    /// `plainCost` with the unweighted sum.
    private func evaluate(
        _ p: UnsafeMutablePointer<Double>, _ H: UnsafeMutablePointer<Double>,
        _ g: UnsafeMutablePointer<Double>
    ) -> Double {
        // Equal weights as a constant, so the unweighted fits spend nothing on weighing.
        let w = self.w
        return weighted ? evaluate(p, H, g, weight: { w[$0] }) : evaluate(p, H, g, weight: { _ in 1 })
    }

    @inline(__always)
    private func evaluate(
        _ p: UnsafeMutablePointer<Double>, _ H: UnsafeMutablePointer<Double>,
        _ g: UnsafeMutablePointer<Double>, weight: (Int) -> Double
    ) -> Double {
        let a = p[0], u = p[1], v = p[2], s = p[3], c0 = p[4], cx = p[5], cy = p[6]
        let invS2 = 1 / (s * s), half = 0.5 * invS2, invS3 = invS2 / s
        var cost = 0.0, plain = 0.0
        var g0 = 0.0, g1 = 0.0, g2 = 0.0, g3 = 0.0, g4 = 0.0, g5 = 0.0, g6 = 0.0
        var h00 = 0.0, h01 = 0.0, h02 = 0.0, h03 = 0.0, h04 = 0.0, h05 = 0.0, h06 = 0.0
        var h11 = 0.0, h12 = 0.0, h13 = 0.0, h14 = 0.0, h15 = 0.0, h16 = 0.0
        var h22 = 0.0, h23 = 0.0, h24 = 0.0, h25 = 0.0, h26 = 0.0
        var h33 = 0.0, h34 = 0.0, h35 = 0.0, h36 = 0.0
        let reach = self.reach, across = self.across, down = self.down
        Self.fillGaussian(across, centre: u, half: half, reach: reach)
        Self.fillGaussian(down, centre: v, half: half, reach: reach)
        for k in 0..<n {
            let x = dx[k], y = dy[k]
            let ex = x - u, ey = y - v
            let r2 = ex * ex + ey * ey
            let e = across[Int(x) + reach] * down[Int(y) + reach]
            let ae = a * e
            let r = z[k] - (ae + c0 + cx * x + cy * y)
            let j1 = ae * ex * invS2, j2 = ae * ey * invS2, j3 = ae * r2 * invS3
            let weight = weight(k), wr = weight * r, we = weight * e, wj1 = weight * j1, wj2 = weight * j2
            let wj3 = weight * j3
            plain += r * r
            cost += wr * r
            g0 += e * wr; g1 += j1 * wr; g2 += j2 * wr; g3 += j3 * wr; g4 += wr; g5 += x * wr; g6 += y * wr
            h00 += we * e; h01 += we * j1; h02 += we * j2; h03 += we * j3; h04 += we; h05 += we * x; h06 += we * y
            h11 += wj1 * j1; h12 += wj1 * j2; h13 += wj1 * j3; h14 += wj1; h15 += wj1 * x; h16 += wj1 * y
            h22 += wj2 * j2; h23 += wj2 * j3; h24 += wj2; h25 += wj2 * x; h26 += wj2 * y
            h33 += wj3 * j3; h34 += wj3; h35 += wj3 * x; h36 += wj3 * y
        }
        plainCost = plain
        @inline(__always) func set(_ i: Int, _ j: Int, _ value: Double) { H[i * 7 + j] = value; H[j * 7 + i] = value }
        set(0, 0, h00); set(0, 1, h01); set(0, 2, h02); set(0, 3, h03); set(0, 4, h04); set(0, 5, h05); set(0, 6, h06)
        set(1, 1, h11); set(1, 2, h12); set(1, 3, h13); set(1, 4, h14); set(1, 5, h15); set(1, 6, h16)
        set(2, 2, h22); set(2, 3, h23); set(2, 4, h24); set(2, 5, h25); set(2, 6, h26)
        set(3, 3, h33); set(3, 4, h34); set(3, 5, h35); set(3, 6, h36)
        set(4, 4, sumW); set(4, 5, sumX); set(4, 6, sumY)
        set(5, 5, sumXX); set(5, 6, sumXY)
        set(6, 6, sumYY)
        g[0] = g0; g[1] = g1; g[2] = g2; g[3] = g3; g[4] = g4; g[5] = g5; g[6] = g6
        if holdsSlopes {
            // Rows and columns of an identity with no gradient: every step leaves the slopes where they are.
            for i in 5..<7 {
                for j in 0..<7 { H[i * 7 + j] = 0; H[j * 7 + i] = 0 }
                H[i * 8] = 1; g[i] = 0
            }
        }
        return cost
    }

    /// Solves M·x = b for a symmetric positive-definite 7×7 M by Cholesky (M is overwritten). False if M is not
    /// positive definite.
    private static func solve(
        _ m: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>,
        _ x: UnsafeMutablePointer<Double>
    ) -> Bool {
        for j in 0..<7 {
            var d = m[j * 7 + j]
            for k in 0..<j { d -= m[j * 7 + k] * m[j * 7 + k] }
            guard d > 0 && d.isFinite else { return false }
            let l = d.squareRoot()
            m[j * 7 + j] = l
            for i in (j + 1)..<7 {
                var s = m[i * 7 + j]
                for k in 0..<j { s -= m[i * 7 + k] * m[j * 7 + k] }
                m[i * 7 + j] = s / l
            }
        }
        for i in 0..<7 {
            var s = b[i]
            for k in 0..<i { s -= m[i * 7 + k] * x[k] }
            x[i] = s / m[i * 7 + i]
        }
        for i in stride(from: 6, through: 0, by: -1) {
            var s = x[i]
            for k in (i + 1)..<7 { s -= m[k * 7 + i] * x[k] }
            x[i] = s / m[i * 7 + i]
        }
        return true
    }
}
