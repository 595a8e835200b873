import RealModule

/// Fits every column of a region at once: one model of the whole region, a smooth background (bilinear between
/// nodes a few spacings apart) plus one isotropic Gaussian per column, each with its own centre and amplitude and
/// all with one shared width, by damped Gauss–Newton least squares over all of their parameters together.
///
/// Where columns overlap strongly (σ above about a fifth of the spacing) a dense lattice of wide columns is nearly a
/// flat sheet: amplitudes, widths and background trade against each other. Refitting one column at a time against
/// its neighbours' estimates drifts along that trade and shows it wherever the symmetry breaks (beside a vacancy,
/// at the edge). Solved together, the trade is settled by all the data at once. One width for the region, because
/// the width is set by the probe and the specimen, which the columns of a region share; a width per column keeps
/// part of the trade (measured: twice the centre error at low noise).
///
/// Each step solves its normal equations by conjugate gradients, never forming the matrix: every Gaussian is a
/// product of a row and a column factor, so applying J or Jᵀ costs a few operations per pixel under each column.
/// The preconditioner is exact for everything but the (weak) coupling between neighbouring columns: each column's
/// own 3×3 block, and the parameters every column shares a trade with — the background nodes and the width.
final class JointColumnFit {
    /// What of a column is fitted.
    enum Role: Equatable {
        /// Centre and amplitude.
        case free
        /// The amplitude only: a trial column at a site.
        case held
        /// Nothing of its own: a lattice-extrapolated column beyond the region, at a fixed centre, whose amplitude
        /// is that of the free column `of` it was extrapolated from. Only a tail of it reaches the region, too little
        /// to fit an amplitude of its own (left free, a far one runs off to absurd heights to explain edge noise).
        case ghost(of: Int)
    }

    struct Result {
        /// The columns, in the order given; all have the fitted shared width.
        var columns: [ColumnGaussian]
        /// R² of the model in a disc around each column (radius as given to `refine`).
        var quality: [Double]
        /// For each column asked about, the standard error of its amplitude per unit of pixel noise.
        var amplitudeErrors: [Double]
        /// The data minus the model, over the region, row by row.
        var residual: [Double]
    }

    /// The region: its top-left pixel in the image, and its size.
    let originX: Int, originY: Int
    let width: Int, height: Int
    private let data: [Double]
    private let background: BilinearGrid
    private let sigmaRange: ClosedRange<Double>

    /// - Parameters:
    ///   - xs, ys: the region, in image pixels.
    ///   - nodeSpacing: the background's node spacing in pixels (a few column spacings: smooth, not a column).
    ///   - sigmaRange: the widths the shared σ may take.
    init(image: GrayImage, xs: Range<Int>, ys: Range<Int>, nodeSpacing: Double, sigmaRange: ClosedRange<Double>) {
        originX = xs.lowerBound; originY = ys.lowerBound
        width = xs.count; height = ys.count
        var data = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { data[y * width + x] = Double(image.samples[(originY + y) * image.width + originX + x]) }
        }
        self.data = data
        background = BilinearGrid(width: width, height: height, nodeSpacing: nodeSpacing)
        self.sigmaRange = sigmaRange
    }

    /// The columns refined together, and the shared width; `roles` says what of each is fitted.
    ///
    /// The amplitude errors of the columns listed in `errorsOf` come from the normal equations at the fitted model,
    /// so the share of the data the background and the width could also explain is accounted for.
    func refine(_ start: [ColumnGaussian], roles: [Role], sigma: Double, qualityRadius: Double,
                errorsOf asked: [Int] = [], iterations: Int = 8) -> Result {
        var problem = Problem(fit: self, columns: start, roles: roles,
                              sigma: min(sigmaRange.upperBound, max(sigmaRange.lowerBound, sigma)))
        if !start.isEmpty {
            problem.solveBackgroundAlone()
            problem.gaussNewton(iterations: iterations)
        }
        let columns = problem.columns.map { ColumnGaussian(x: $0.x, y: $0.y, amplitude: $0.amplitude, sigma: problem.sigma) }
        let windows = Windows(problem.columns, sigma: problem.sigma, fit: self)
        let r = problem.residual(windows, columns: problem.columns, nodes: problem.nodes)
        let preconditioner = Problem.Preconditioner(problem, windows, lambda: 0)
        return Result(columns: columns,
                      quality: columns.map { problem.rSquared(near: $0, radius: qualityRadius, residual: r) },
                      amplitudeErrors: asked.map { problem.amplitudeError(of: $0, preconditioner) }, residual: r)
    }

    /// The columns to fit a region with, and their roles: the given ones (which should lie inside the
    /// region) plus lattice-extrapolated columns just outside it, whose tails reach in (a model missing them pulls
    /// every column inside, not just the edge ones). A column p with a neighbour q implies one a step beyond p, at
    /// about 2p − q (atom columns sit on centrosymmetric sites in projection, and that is a site of q's kind); such a
    /// ghost takes q's amplitude. The given columns are free; the ghosts follow them.
    static func withGhosts(_ columns: [ColumnGaussian], steps: LatticeSteps,
                           xs: Range<Int>, ys: Range<Int>, spacing: Double,
                           reach: Double) -> (columns: [ColumnGaussian], roles: [Role]) {
        let low = (x: Double(xs.lowerBound) - 0.5, y: Double(ys.lowerBound) - 0.5)
        let high = (x: Double(xs.upperBound) - 0.5, y: Double(ys.upperBound) - 0.5)
        func outsideBy(_ x: Double, _ y: Double) -> Double {
            max(low.x - x, x - high.x, low.y - y, y - high.y, 0)
        }
        var all = columns
        var roles = [Role](repeating: .free, count: columns.count)
        var sites = SiteGrid(cellSize: spacing)
        for k in all.indices { sites.insert(k, x: all[k].x, y: all[k].y) }
        // Only columns within two spacings of the border can imply a ghost within reach of it.
        var border = all.indices.filter { k in
            let c = all[k]
            return min(c.x - low.x, high.x - c.x, c.y - low.y, high.y - c.y) < 2 * spacing
        }
        for _ in 0..<3 {
            var added: [Int] = []
            for p in border {
                for q in sites.indices(nearX: all[p].x, y: all[p].y, within: 1.3 * spacing, in: all) where q != p {
                    let (gx, gy) = steps.site(beyond: all[p], from: all[q])
                    let outside = outsideBy(gx, gy)
                    guard outside > 0 && outside < reach,
                          sites.indices(nearX: gx, y: gy, within: 0.5 * spacing, in: all).isEmpty else { continue }
                    all.append(ColumnGaussian(x: gx, y: gy, amplitude: all[q].amplitude, sigma: all[q].sigma))
                    // A ghost of a ghost takes its height from the same free column.
                    if case .ghost(let source) = roles[q] { roles.append(.ghost(of: source)) } else {
                        roles.append(.ghost(of: q))
                    }
                    sites.insert(all.count - 1, x: gx, y: gy)
                    added.append(all.count - 1)
                }
            }
            border = added
        }
        return (all, roles)
    }

    /// Column centres and amplitudes, the shared width and the background nodes, and the Gauss–Newton steps on them.
    /// A step vector holds column k's (x, y, amplitude) at 3k…3k + 2, then the background nodes, then the width: the
    /// parameters after the columns' are the shared ones.
    private struct Problem {
        let fit: JointColumnFit
        var columns: [ColumnGaussian]
        var sigma: Double
        var nodes: [Double]
        /// Columns whose centre is fixed, and the column whose amplitude step each column takes (its own, but a
        /// ghost's source's).
        let held: [Bool]
        let amplitudeOwner: [Int]
        var count: Int { columns.count }
        var stepCount: Int { 3 * columns.count + nodes.count + 1 }

        init(fit: JointColumnFit, columns: [ColumnGaussian], roles: [Role], sigma: Double) {
            self.fit = fit
            held = roles.map { $0 != .free }
            amplitudeOwner = roles.indices.map { k in
                if case .ghost(let source) = roles[k] { return source } else { return k }
            }
            var columns = columns
            for k in columns.indices { columns[k].amplitude = columns[amplitudeOwner[k]].amplitude }
            self.columns = columns
            self.sigma = sigma
            nodes = [Double](repeating: 0, count: fit.background.nodeCount)
        }

        /// The data minus the model.
        func residual(_ windows: Windows, columns: [ColumnGaussian], nodes: [Double]) -> [Double] {
            var r = fit.data
            fit.background.add(nodes, scale: -1, into: &r)
            let width = fit.width
            r.withUnsafeMutableBufferPointer { r in
                for k in columns.indices {
                    let a = columns[k].amplitude
                    let xs = windows.xs[k], ys = windows.ys[k], fx = windows.xFactor[k], fy = windows.yFactor[k]
                    for j in 0..<ys.count {
                        let row = (ys.lowerBound + j) * width + xs.lowerBound, ay = a * windows.ey[fy + j]
                        for i in 0..<xs.count { r[row + i] -= ay * windows.ex[fx + i] }
                    }
                }
            }
            return r
        }

        /// Jᵀ applied to an image: the gradient for every parameter.
        func transposed(_ r: [Double], _ windows: Windows) -> [Double] {
            var g = [Double](repeating: 0, count: stepCount)
            var gSigma = 0.0
            let width = fit.width
            r.withUnsafeBufferPointer { r in
                windows.withFactors { f in
                    for k in 0..<count {
                        let xs = windows.xs[k], ys = windows.ys[k], fx = windows.xFactor[k], fy = windows.yFactor[k]
                        var gA = 0.0, gx = 0.0, gy = 0.0, gs = 0.0
                        for j in 0..<ys.count {
                            let values = r.baseAddress! + (ys.lowerBound + j) * width + xs.lowerBound
                            let ex = f.ex.baseAddress! + fx, xex = f.xex.baseAddress! + fx, x2ex = f.x2ex.baseAddress! + fx
                            var ra = 0.0, rx = 0.0, rxx = 0.0
                            for i in 0..<xs.count {
                                let value = values[i]
                                ra += value * ex[i]; rx += value * xex[i]; rxx += value * x2ex[i]
                            }
                            let ey = f.ey[fy + j]
                            gA += ey * ra; gx += ey * rx; gy += f.yey[fy + j] * ra
                            gs += ey * rxx + f.y2ey[fy + j] * ra
                        }
                        let scale = columns[k].amplitude / (sigma * sigma)
                        if !held[k] { g[3 * k] = gx * scale; g[3 * k + 1] = gy * scale }
                        g[3 * amplitudeOwner[k] + 2] += gA
                        gSigma += gs * scale / sigma
                    }
                }
            }
            fit.background.accumulate(r, into: &g, at: 3 * count)
            g[stepCount - 1] = gSigma
            return g
        }

        /// J applied to a step: the change of the model image.
        func forward(_ step: [Double], _ windows: Windows) -> [Double] {
            var t = [Double](repeating: 0, count: fit.width * fit.height)
            fit.background.add(Array(step[(3 * count)..<(stepCount - 1)]), scale: 1, into: &t)
            let sigmaStep = step[stepCount - 1]
            let width = fit.width
            var u = [Double](repeating: 0, count: windows.widest)
            t.withUnsafeMutableBufferPointer { t in
                u.withUnsafeMutableBufferPointer { u in
                    windows.withFactors { f in
                        for k in 0..<count {
                            let xs = windows.xs[k], ys = windows.ys[k], fx = windows.xFactor[k], fy = windows.yFactor[k]
                            let scale = columns[k].amplitude / (sigma * sigma)
                            let cA = step[3 * amplitudeOwner[k] + 2], cS = sigmaStep * scale / sigma
                            let cX = held[k] ? 0 : step[3 * k] * scale, cY = held[k] ? 0 : step[3 * k + 1] * scale
                            let ex = f.ex.baseAddress! + fx, xex = f.xex.baseAddress! + fx, x2ex = f.x2ex.baseAddress! + fx
                            let across = u.baseAddress!
                            for i in 0..<xs.count { across[i] = cA * ex[i] + cX * xex[i] + cS * x2ex[i] }
                            for j in 0..<ys.count {
                                let values = t.baseAddress! + (ys.lowerBound + j) * width + xs.lowerBound
                                let ey = f.ey[fy + j], wy = cY * f.yey[fy + j] + cS * f.y2ey[fy + j]
                                for i in 0..<xs.count { values[i] += ey * across[i] + wy * ex[i] }
                            }
                        }
                    }
                }
            }
            return t
        }

        /// The preconditioner for (JᵀJ + λ·diag JᵀJ): that matrix with the couplings between different columns left
        /// out, an "arrow" of 3×3 column blocks D bordered by the shared parameters (coupling C, own block G). It is
        /// inverted exactly through the Schur complement S = G − CᵀD⁻¹C, which is small (one row per node, plus one).
        /// Every entry is a sum over a column's window, a rectangle, so each is a product of a row and a column sum.
        struct Preconditioner {
            let count: Int, shared: Int
            /// Cholesky factors of the damped column blocks, 9 entries each.
            var factors: [Double]
            /// C (3·count × shared, row-major) and D⁻¹C.
            var coupling: [Double], solved: [Double]
            /// Cholesky factor of S (shared × shared).
            var schur: [Double]
            /// diag JᵀJ, for the damping.
            var diagonal: [Double]

            init(_ problem: Problem, _ windows: Windows, lambda: Double) {
                let fit = problem.fit, background = fit.background
                count = problem.count
                let nodeCount = background.nodeCount, nodesX = background.nodesX
                shared = nodeCount + 1
                var blocks = [Double](repeating: 0, count: 9 * count)
                coupling = [Double](repeating: 0, count: 3 * count * shared)
                // The width's couplings are exact: Jᵀ of its own column of J.
                var widthColumn = [Double](repeating: 0, count: problem.stepCount)
                widthColumn[problem.stepCount - 1] = 1
                let widthRow = problem.transposed(problem.forward(widthColumn, windows), windows)
                var sx = [Double](repeating: 0, count: 2 * nodesX), sy = [Double](repeating: 0, count: 2 * (nodeCount / nodesX))
                for k in 0..<count {
                    let xs = windows.xs[k], ys = windows.ys[k], fx = windows.xFactor[k], fy = windows.yFactor[k]
                    let (e2x, exx, xx2) = Self.axisSums(windows.ex, windows.xex, from: fx, over: xs,
                                                        nodes: background.nodeX, weights: background.weightX, into: &sx)
                    let (e2y, eyy, yy2) = Self.axisSums(windows.ey, windows.yey, from: fy, over: ys,
                                                        nodes: background.nodeY, weights: background.weightY, into: &sy)
                    let s = problem.columns[k].amplitude / (problem.sigma * problem.sigma)
                    let free = problem.held[k] ? 0.0 : 1.0
                    let entries = [free == 0 ? 1 : s * s * xx2 * e2y, free * s * s * exx * eyy, free * s * exx * e2y,
                                   free * s * s * exx * eyy, free == 0 ? 1 : s * s * e2x * yy2, free * s * e2x * eyy,
                                   free * s * exx * e2y, free * s * e2x * eyy, e2x * e2y]
                    let row = 3 * k * shared, owner = problem.amplitudeOwner[k]
                    if owner == k {
                        for i in 0..<9 { blocks[9 * k + i] += entries[i] }
                    } else {
                        // A ghost: its amplitude is its owner's (an earlier column), its own block a placeholder.
                        blocks[9 * k] = 1; blocks[9 * k + 4] = 1; blocks[9 * k + 8] = 1
                        blocks[9 * owner + 8] += entries[8]
                    }
                    let amplitudeRow = 3 * owner * shared + 2 * shared
                    for node in 0..<nodeCount {
                        let m = node % nodesX, n = node / nodesX
                        coupling[row + node] = free * s * sx[2 * m + 1] * sy[2 * n]
                        coupling[row + shared + node] = free * s * sx[2 * m] * sy[2 * n + 1]
                        coupling[amplitudeRow + node] += sx[2 * m] * sy[2 * n]
                    }
                    for p in 0..<3 { coupling[row + p * shared + nodeCount] = widthRow[3 * k + p] }
                }
                diagonal = [Double](repeating: 0, count: problem.stepCount)
                for k in 0..<count { for p in 0..<3 { diagonal[3 * k + p] = blocks[9 * k + 4 * p] } }
                for node in 0..<nodeCount { diagonal[3 * count + node] = background.diagonal[node] }
                diagonal[problem.stepCount - 1] = widthRow[problem.stepCount - 1]

                factors = blocks
                for k in 0..<count {
                    for p in 0..<3 { factors[9 * k + 4 * p] *= 1 + lambda }
                    if !Problem.cholesky(&factors, at: 9 * k, size: 3) {
                        for i in 0..<9 { factors[9 * k + i] = i % 4 == 0 ? max(blocks[9 * k + i], 1e-12).squareRoot() : 0 }
                    }
                }
                solved = coupling
                var column = [Double](repeating: 0, count: 3)
                for k in 0..<count {
                    for j in 0..<shared {
                        for p in 0..<3 { column[p] = coupling[(3 * k + p) * shared + j] }
                        Problem.choleskySolve(factors, at: 9 * k, size: 3, &column)
                        for p in 0..<3 { solved[(3 * k + p) * shared + j] = column[p] }
                    }
                }
                // G: node against node is separable too (a product of the hats' overlaps along x and along y).
                var g = [Double](repeating: 0, count: shared * shared)
                let gx = background.overlapX, gy = background.overlapY, nodesY = nodeCount / nodesX
                for a in 0..<nodeCount {
                    for b in 0..<nodeCount {
                        g[a * shared + b] = gx[(a % nodesX) * nodesX + b % nodesX] * gy[(a / nodesX) * nodesY + b / nodesX]
                    }
                    g[a * shared + nodeCount] = widthRow[3 * count + a]
                    g[nodeCount * shared + a] = widthRow[3 * count + a]
                }
                g[shared * shared - 1] = widthRow[problem.stepCount - 1]
                for a in 0..<shared { g[a * shared + a] *= 1 + lambda }
                // S = G − CᵀD⁻¹C.
                for row in 0..<(3 * count) {
                    let c = row * shared
                    for a in 0..<shared where coupling[c + a] != 0 {
                        let value = coupling[c + a]
                        for b in 0..<shared { g[a * shared + b] -= value * solved[c + b] }
                    }
                }
                schur = g
                if !Problem.cholesky(&schur, size: shared) {
                    // Not positive definite (a degenerate region): fall back to S's diagonal.
                    schur = [Double](repeating: 0, count: shared * shared)
                    for a in 0..<shared { schur[a * shared + a] = max(abs(g[a * shared + a]), 1e-12).squareRoot() }
                }
            }

            /// Along one axis of a column's window: Σe², Σe·d and Σd² of its factors e and d (the offset times e), and
            /// into `hat`, set afresh, the sums of e and d weighted by each background node's hat: hat[2m], hat[2m + 1].
            private static func axisSums(_ e: [Double], _ d: [Double], from f: Int, over range: Range<Int>,
                                         nodes: [Int], weights: [Double], into hat: inout [Double])
                -> (ee: Double, ed: Double, dd: Double) {
                for i in hat.indices { hat[i] = 0 }
                var ee = 0.0, ed = 0.0, dd = 0.0
                for i in 0..<range.count {
                    let e = e[f + i], d = d[f + i]
                    ee += e * e; ed += e * d; dd += d * d
                    let m = nodes[range.lowerBound + i], u = weights[range.lowerBound + i]
                    hat[2 * m] += (1 - u) * e; hat[2 * m + 1] += (1 - u) * d
                    hat[2 * m + 2] += u * e; hat[2 * m + 3] += u * d
                }
                return (ee, ed, dd)
            }

            /// The preconditioned vector: the arrow system solved exactly.
            func apply(_ v: [Double]) -> [Double] {
                var out = v
                for k in 0..<count { Problem.choleskySolve(factors, at: 9 * k, size: 3, &out, from: 3 * k) }
                let base = 3 * count
                var z = Array(v[base...])
                for row in 0..<base {
                    let value = out[row]
                    for a in 0..<shared { z[a] -= coupling[row * shared + a] * value }
                }
                Problem.choleskySolve(schur, size: shared, &z)
                for row in 0..<base {
                    var correction = 0.0
                    for a in 0..<shared { correction += solved[row * shared + a] * z[a] }
                    out[row] -= correction
                }
                for a in 0..<shared { out[base + a] = z[a] }
                return out
            }
        }

        /// In-place Cholesky factor (lower triangle) of the n×n symmetric matrix stored row-major at m[o...];
        /// false if it is not positive definite.
        static func cholesky(_ m: inout [Double], at o: Int = 0, size n: Int) -> Bool {
            for j in 0..<n {
                var d = m[o + j * n + j]
                for k in 0..<j { d -= m[o + j * n + k] * m[o + j * n + k] }
                guard d > 0 && d.isFinite else { return false }
                let l = d.squareRoot()
                m[o + j * n + j] = l
                for i in (j + 1)..<n {
                    var s = m[o + i * n + j]
                    for k in 0..<j { s -= m[o + i * n + k] * m[o + j * n + k] }
                    m[o + i * n + j] = s / l
                }
            }
            return true
        }

        /// Solves L·Lᵀ·x = v in place for the factor at m[o...] and the n entries of v from `s`.
        static func choleskySolve(_ m: [Double], at o: Int = 0, size n: Int, _ v: inout [Double], from s: Int = 0) {
            for i in 0..<n {
                var t = v[s + i]
                for k in 0..<i { t -= m[o + i * n + k] * v[s + k] }
                v[s + i] = t / m[o + i * n + i]
            }
            for i in stride(from: n - 1, through: 0, by: -1) {
                var t = v[s + i]
                for k in (i + 1)..<n { t -= m[o + k * n + i] * v[s + k] }
                v[s + i] = t / m[o + i * n + i]
            }
        }

        func cost(_ r: [Double]) -> Double { r.reduce(0) { $0 + $1 * $1 } }

        /// The background that best explains the data under the starting columns (a linear solve), so the first
        /// Gauss–Newton step starts from a consistent model.
        mutating func solveBackgroundAlone() {
            let windows = Windows(columns, sigma: sigma, fit: fit)
            let r = residual(windows, columns: columns, nodes: nodes)
            var b = [Double](repeating: 0, count: nodes.count)
            fit.background.accumulate(r, into: &b, at: 0)
            let background = fit.background
            let x = conjugateGradients(b, tolerance: 1e-12, limit: 200) { v in
                var t = [Double](repeating: 0, count: fit.width * fit.height)
                background.add(v, scale: 1, into: &t)
                var q = [Double](repeating: 0, count: v.count)
                background.accumulate(t, into: &q, at: 0)
                return q
            } precondition: { v in
                zip(v, background.diagonal).map { $0 / max($1, 1e-12) }
            }
            for i in nodes.indices { nodes[i] += x[i] }
        }

        mutating func gaussNewton(iterations: Int) {
            var windows = Windows(columns, sigma: sigma, fit: fit)
            var r = residual(windows, columns: columns, nodes: nodes)
            var currentCost = cost(r)
            var lambda = 1e-3
            var done = 0, attempts = 0
            while done < iterations && attempts < 3 * iterations {
                attempts += 1
                let step = solveStep(r, windows, lambda: lambda)
                var trialColumns = columns
                var largestMove = 0.0
                for k in columns.indices {
                    let c = columns[k]
                    let moved = ColumnGaussian(x: c.x + step[3 * k], y: c.y + step[3 * k + 1],
                                               amplitude: amplitudeOwner[k] == k
                                                ? c.amplitude + step[3 * k + 2] : trialColumns[amplitudeOwner[k]].amplitude,
                                               sigma: c.sigma)
                    guard moved.x.isFinite && moved.y.isFinite && moved.amplitude.isFinite else { continue }
                    trialColumns[k] = moved
                    largestMove = max(largestMove, abs(step[3 * k]), abs(step[3 * k + 1]))
                }
                let sigmaStep = step[stepCount - 1]
                let trialSigma = sigmaStep.isFinite
                    ? min(fit.sigmaRange.upperBound, max(fit.sigmaRange.lowerBound, sigma + sigmaStep)) : sigma
                var trialNodes = nodes
                for i in nodes.indices where step[3 * count + i].isFinite { trialNodes[i] += step[3 * count + i] }
                let trialWindows = Windows(trialColumns, sigma: trialSigma, fit: fit)
                let trialResidual = residual(trialWindows, columns: trialColumns, nodes: trialNodes)
                let trialCost = cost(trialResidual)
                if trialCost <= currentCost {
                    // Converged: further steps would move nothing by a measurable amount.
                    let converged = largestMove < 1e-3 && abs(trialSigma - sigma) < 1e-3
                    columns = trialColumns; nodes = trialNodes; sigma = trialSigma; windows = trialWindows
                    r = trialResidual; currentCost = trialCost
                    lambda = max(lambda / 5, 1e-9)
                    done += 1
                    if converged { break }
                } else {
                    lambda *= 10
                }
            }
        }

        /// One damped Gauss–Newton step: (JᵀJ + λ·diag JᵀJ)·step = Jᵀr, solved only roughly (ten iterations): a
        /// step only has to go downhill, and the next one finishes what this one left.
        func solveStep(_ r: [Double], _ windows: Windows, lambda: Double) -> [Double] {
            let preconditioner = Preconditioner(self, windows, lambda: lambda)
            let diagonal = preconditioner.diagonal
            return conjugateGradients(transposed(r, windows), tolerance: 1e-6, limit: 10) { v in
                var q = transposed(forward(v, windows), windows)
                for i in q.indices { q[i] += lambda * diagonal[i] * v[i] }
                return q
            } precondition: { preconditioner.apply($0) }
        }

        /// The standard error of column k's amplitude per unit of pixel noise, √(JᵀJ)⁻¹ at (k, k), with the
        /// preconditioner's inverse standing in for the exact one: it leaves out only what the neighbouring columns
        /// could also explain, which makes the error a little small — and a significance test on it a little lenient.
        func amplitudeError(of k: Int, _ preconditioner: Preconditioner) -> Double {
            var unit = [Double](repeating: 0, count: stepCount)
            unit[3 * k + 2] = 1
            return max(0, preconditioner.apply(unit)[3 * k + 2]).squareRoot()
        }

        /// R² of the model over the pixels within `radius` of a column's centre.
        func rSquared(near c: ColumnGaussian, radius: Double, residual r: [Double]) -> Double {
            let lx = max(0, Int((c.x - radius).rounded(.up)) - fit.originX)
            let hx = min(fit.width - 1, Int((c.x + radius).rounded(.down)) - fit.originX)
            let ly = max(0, Int((c.y - radius).rounded(.up)) - fit.originY)
            let hy = min(fit.height - 1, Int((c.y + radius).rounded(.down)) - fit.originY)
            guard lx <= hx && ly <= hy else { return 0 }
            var n = 0.0, sum = 0.0, sumSquares = 0.0, residualSquares = 0.0
            for y in ly...hy {
                for x in lx...hx {
                    let dx = Double(x + fit.originX) - c.x, dy = Double(y + fit.originY) - c.y
                    guard dx * dx + dy * dy <= radius * radius else { continue }
                    let value = fit.data[y * fit.width + x]
                    n += 1; sum += value; sumSquares += value * value
                    residualSquares += r[y * fit.width + x] * r[y * fit.width + x]
                }
            }
            let total = sumSquares - sum * sum / max(n, 1)
            return total > 0 ? min(1, max(0, 1 - residualSquares / total)) : 0
        }
    }

    /// Each column's window (its Gaussian out to 4σ, clipped to the region) and the separable factors of the
    /// Gaussian and its derivatives there: e(d) = exp(−d²/2σ²), d·e(d) and d²·e(d), along x and along y.
    private struct Windows {
        var xs: [Range<Int>] = [], ys: [Range<Int>] = []
        /// Where column k's factors start in the x (y) factor arrays.
        var xFactor: [Int] = [], yFactor: [Int] = []
        var ex: [Double] = [], xex: [Double] = [], x2ex: [Double] = []
        var ey: [Double] = [], yey: [Double] = [], y2ey: [Double] = []
        var widest = 0

        /// The factors as raw buffers, for the inner loops of J and Jᵀ.
        struct Factors {
            let ex, xex, x2ex, ey, yey, y2ey: UnsafeBufferPointer<Double>
        }

        func withFactors<Result>(_ body: (Factors) -> Result) -> Result {
            ex.withUnsafeBufferPointer { ex in
                xex.withUnsafeBufferPointer { xex in
                    x2ex.withUnsafeBufferPointer { x2ex in
                        ey.withUnsafeBufferPointer { ey in
                            yey.withUnsafeBufferPointer { yey in
                                y2ey.withUnsafeBufferPointer { y2ey in
                                    body(Factors(ex: ex, xex: xex, x2ex: x2ex, ey: ey, yey: yey, y2ey: y2ey))
                                }
                            }
                        }
                    }
                }
            }
        }

        init(_ columns: [ColumnGaussian], sigma: Double, fit: JointColumnFit) {
            let reach = (4 * sigma).rounded(.up), half = 0.5 / (sigma * sigma)
            func factors(_ range: Range<Int>, origin: Int, centre: Double,
                         _ e: inout [Double], _ de: inout [Double], _ d2e: inout [Double]) {
                for i in range {
                    let d = Double(origin + i) - centre
                    let value = Double.exp(-d * d * half)
                    e.append(value); de.append(d * value); d2e.append(d * d * value)
                }
            }
            for c in columns {
                let lx = max(0, Int((c.x - reach).rounded(.down)) - fit.originX)
                let hx = min(fit.width, Int((c.x + reach).rounded(.up)) - fit.originX + 1)
                let ly = max(0, Int((c.y - reach).rounded(.down)) - fit.originY)
                let hy = min(fit.height, Int((c.y + reach).rounded(.up)) - fit.originY + 1)
                // A column wholly outside the region gets an empty window.
                let x = lx < hx ? lx..<hx : 0..<0, y = ly < hy ? ly..<hy : 0..<0
                xs.append(x); ys.append(y)
                xFactor.append(ex.count); yFactor.append(ey.count)
                factors(x, origin: fit.originX, centre: c.x, &ex, &xex, &x2ex)
                factors(y, origin: fit.originY, centre: c.y, &ey, &yey, &y2ey)
                widest = max(widest, x.count)
            }
        }
    }
}

/// A background bilinear between nodes on a regular grid over a region.
private struct BilinearGrid {
    let width: Int, height: Int
    let nodesX: Int
    /// Per pixel column (row): the node to its left (above) and the weight of the one after it.
    let nodeX: [Int], weightX: [Double]
    let nodeY: [Int], weightY: [Double]
    /// Each node's diagonal entry of JᵀJ: the sum of its squared weights.
    let diagonal: [Double]
    /// Along x (y): the overlap Σ hₘ·hₘ' of every pair of node hats (nodesX² entries, row-major).
    let overlapX: [Double], overlapY: [Double]
    var nodeCount: Int { diagonal.count }

    init(width: Int, height: Int, nodeSpacing: Double) {
        self.width = width; self.height = height
        func nodes(_ length: Int) -> (count: Int, node: [Int], weight: [Double], overlap: [Double]) {
            let cells = max(1, Int((Double(length - 1) / nodeSpacing).rounded()))
            let step = Double(max(1, length - 1)) / Double(cells)
            var node = [Int](repeating: 0, count: length), weight = [Double](repeating: 0, count: length)
            var overlap = [Double](repeating: 0, count: (cells + 1) * (cells + 1))
            for i in 0..<length {
                let u = Double(i) / step
                let m = min(cells - 1, Int(u))
                node[i] = m
                weight[i] = u - Double(m)
                let w = weight[i]
                overlap[m * (cells + 1) + m] += (1 - w) * (1 - w)
                overlap[m * (cells + 1) + m + 1] += (1 - w) * w
                overlap[(m + 1) * (cells + 1) + m] += (1 - w) * w
                overlap[(m + 1) * (cells + 1) + m + 1] += w * w
            }
            return (cells + 1, node, weight, overlap)
        }
        let nodesY: Int
        (nodesX, nodeX, weightX, overlapX) = nodes(width)
        (nodesY, nodeY, weightY, overlapY) = nodes(height)
        var diagonal = [Double](repeating: 0, count: nodesX * nodesY)
        for n in 0..<nodesY {
            for m in 0..<nodesX { diagonal[n * nodesX + m] = overlapX[m * nodesX + m] * overlapY[n * nodesY + n] }
        }
        self.diagonal = diagonal
    }

    /// Adds scale × the background with these node values to an image of the region.
    func add(_ nodes: [Double], scale: Double, into image: inout [Double]) {
        // Row by row: first the background along the row at each node column, then across.
        var along = [Double](repeating: 0, count: nodesX)
        image.withUnsafeMutableBufferPointer { image in
            for y in 0..<height {
                let n = nodeY[y], v = weightY[y]
                for m in 0..<nodesX {
                    along[m] = scale * (nodes[n * nodesX + m] * (1 - v) + nodes[(n + 1) * nodesX + m] * v)
                }
                for x in 0..<width {
                    let m = nodeX[x], u = weightX[x]
                    image[y * width + x] += along[m] * (1 - u) + along[m + 1] * u
                }
            }
        }
    }

    /// Adds each node's weighted sum of the image (the transpose of `add`) to g[offset + node].
    func accumulate(_ image: [Double], into g: inout [Double], at offset: Int) {
        guard width > 0 else { return }
        var along = [Double](repeating: 0, count: nodesX)
        image.withUnsafeBufferPointer { image in
            along.withUnsafeMutableBufferPointer { along in
                nodeX.withUnsafeBufferPointer { nodeX in
                    weightX.withUnsafeBufferPointer { weightX in
                        for y in 0..<height {
                            for m in 0..<nodesX { along[m] = 0 }
                            let row = y * width
                            // Summed in registers along each run of pixels between two nodes: adding to memory pixel
                            // by pixel made every add wait for the one before.
                            var m = nodeX[0], left = 0.0, right = 0.0
                            for x in 0..<width {
                                if nodeX[x] != m {
                                    along[m] += left; along[m + 1] += right
                                    m = nodeX[x]; left = 0; right = 0
                                }
                                let u = weightX[x], value = image[row + x]
                                left += value * (1 - u); right += value * u
                            }
                            along[m] += left; along[m + 1] += right
                            let n = nodeY[y], v = weightY[y]
                            for m in 0..<nodesX {
                                g[offset + n * nodesX + m] += along[m] * (1 - v)
                                g[offset + (n + 1) * nodesX + m] += along[m] * v
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Column positions bucketed by cell, for finding the ones near a point.
struct SiteGrid {
    private struct Cell: Hashable { var i: Int, j: Int }
    private let cellSize: Double
    private var cells: [Cell: [Int]] = [:]

    init(cellSize: Double) { self.cellSize = max(1, cellSize) }

    private func cell(_ x: Double, _ y: Double) -> Cell {
        Cell(i: Int((x / cellSize).rounded(.down)), j: Int((y / cellSize).rounded(.down)))
    }

    mutating func insert(_ index: Int, x: Double, y: Double) { cells[cell(x, y), default: []].append(index) }

    /// The indices of the columns within `radius` (at most two cells) of (x, y).
    func indices(nearX x: Double, y: Double, within radius: Double, in columns: [ColumnGaussian]) -> [Int] {
        let centre = cell(x, y)
        var found: [Int] = []
        for dj in -2...2 {
            for di in -2...2 {
                for k in cells[Cell(i: centre.i + di, j: centre.j + dj)] ?? [] {
                    let dx = columns[k].x - x, dy = columns[k].y - y
                    if dx * dx + dy * dy < radius * radius { found.append(k) }
                }
            }
        }
        return found.sorted()
    }
}

/// Preconditioned conjugate gradients for a symmetric positive definite system given only as `apply`.
/// Stops when the preconditioned residual norm² falls by `tolerance`, or after `limit` iterations.
func conjugateGradients(_ rhs: [Double], tolerance: Double, limit: Int, apply: ([Double]) -> [Double],
                        precondition: ([Double]) -> [Double]) -> [Double] {
    var x = [Double](repeating: 0, count: rhs.count), residual = rhs
    var z = precondition(residual), direction = z
    var rz = zip(residual, z).reduce(0) { $0 + $1.0 * $1.1 }
    let target = tolerance * rz
    for _ in 0..<limit where rz > target && rz.isFinite {
        let q = apply(direction)
        let curvature = zip(direction, q).reduce(0) { $0 + $1.0 * $1.1 }
        guard curvature > 0 else { break }
        let alpha = rz / curvature
        for i in x.indices { x[i] += alpha * direction[i]; residual[i] -= alpha * q[i] }
        z = precondition(residual)
        let next = zip(residual, z).reduce(0) { $0 + $1.0 * $1.1 }
        for i in direction.indices { direction[i] = z[i] + next / rz * direction[i] }
        rz = next
    }
    return x
}
