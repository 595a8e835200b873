/// The preconditioner for the joint fit's damped normal equations (JᵀWJ + λ·diag JᵀWJ)·step = JᵀWr: that matrix
/// with the couplings between different columns left out. What is left is an "arrow": a 3×3 block D per column (its x,
/// y and amplitude against each other) bordered by the parameters every column shares a trade with — the background
/// nodes and the width — through the coupling C, with their own block G. It is inverted exactly through the Schur
/// complement S = G − CᵀD⁻¹C, which is small (one row per node, plus one for the width).
///
/// Every entry is a sum over a column's window, a rectangle, so without weights each is a product of a sum along x
/// and one along y. Per-pixel weights break that product; each entry takes instead its sum without weights times
/// the mean weight it sees (`JointFitProblem.meanWeights`): the weights vary smoothly, so that is close, and a
/// preconditioner only has to be close (conjugate gradients still solve the exact system). The width's entries are
/// exact.
struct JointFitPreconditioner {
    let layout: ParameterLayout
    /// Cholesky factors of the damped column blocks D, one after another (`blockStart`).
    private(set) var blockFactors: [Double]
    /// C: one row per column parameter, one column per shared parameter (row-major), and D⁻¹C.
    private(set) var coupling: [Double], blockSolvedCoupling: [Double]
    /// Cholesky factor of S (shared × shared).
    private(set) var schurFactor: [Double]
    /// diag JᵀWJ, for the damping.
    private(set) var diagonal: [Double]

    /// A column's block: its own parameters against each other, row-major, in the order of its slot.
    private static let blockSize = ParameterLayout.perColumn * ParameterLayout.perColumn
    private static func blockStart(_ column: Int) -> Int { column * blockSize }
    /// Where the block's diagonal entry for the column's own parameter `own` (its place in the slot) sits.
    private static func blockDiagonal(_ column: Int, _ own: Int) -> Int {
        blockStart(column) + own * (ParameterLayout.perColumn + 1)
    }

    /// Σg², Σg·m and Σm² of a column's factors g and first moments m along one axis of its window.
    private struct WindowSums {
        var gaussianSquared = 0.0, gaussianMoment = 0.0, momentSquared = 0.0
    }

    init(_ problem: JointFitProblem, _ windows: ColumnWindows, damping: Double) {
        let background = problem.fit.background
        layout = problem.layout
        let count = layout.columnCount, nodeCount = layout.nodeCount, shared = layout.sharedCount
        let nodesAcross = background.x.nodeCount, nodesDown = background.y.nodeCount
        var blocks = [Double](repeating: 0, count: Self.blockStart(count))
        coupling = [Double](repeating: 0, count: layout.columnParameterCount * shared)
        // The width's couplings are exact: JᵀW of its own column of J.
        var widthColumn = [Double](repeating: 0, count: layout.count)
        widthColumn[layout.width] = 1
        let widthRow = problem.transposed(problem.weighted(problem.forward(widthColumn, windows)), windows)
        let meanWeights = problem.meanWeights(windows)
        // Per node m along an axis: the column's factors ([2m]) and first moments ([2m + 1]) summed under its hat.
        var xHatSums = [Double](repeating: 0, count: 2 * nodesAcross)
        var yHatSums = [Double](repeating: 0, count: 2 * nodesDown)
        for k in 0..<count {
            let x = Self.windowSums(
                windows.x.gaussian, windows.x.firstMoment, from: windows.xStart[k],
                over: windows.xRange[k], axis: background.x, into: &xHatSums)
            let y = Self.windowSums(
                windows.y.gaussian, windows.y.firstMoment, from: windows.yStart[k],
                over: windows.yRange[k], axis: background.y, into: &yHatSums)
            // The centre's derivatives carry the amplitude over σ².
            let s = problem.columns[k].amplitude / (problem.sigma * problem.sigma)
            let movable = problem.isHeld[k] ? 0.0 : 1.0, weight = meanWeights.columns[k]
            // JᵀWJ within the column: x, y and amplitude against each other. A held centre's own entries are a
            // placeholder 1, its couplings 0.
            let xx = movable == 0 ? 1 : weight * s * s * x.momentSquared * y.gaussianSquared
            let xy = weight * movable * s * s * x.gaussianMoment * y.gaussianMoment
            let xAmplitude = weight * movable * s * x.gaussianMoment * y.gaussianSquared
            let yy = movable == 0 ? 1 : weight * s * s * x.gaussianSquared * y.momentSquared
            let yAmplitude = weight * movable * s * x.gaussianSquared * y.gaussianMoment
            let amplitudeAmplitude = weight * x.gaussianSquared * y.gaussianSquared
            let block = [xx, xy, xAmplitude, xy, yy, yAmplitude, xAmplitude, yAmplitude, amplitudeAmplitude]
            let owner = problem.amplitudeOwner[k]
            if owner == k {
                for i in 0..<Self.blockSize { blocks[Self.blockStart(k) + i] += block[i] }
            } else {
                // A ghost: its amplitude is its owner's (an earlier column), its own block a placeholder.
                for own in 0..<ParameterLayout.perColumn { blocks[Self.blockDiagonal(k, own)] = 1 }
                blocks[Self.blockDiagonal(owner, ParameterLayout.Own.amplitude.rawValue)] += amplitudeAmplitude
            }
            let xRow = layout.x(k) * shared, yRow = layout.y(k) * shared
            let amplitudeRow = layout.amplitude(owner) * shared
            for node in 0..<nodeCount {
                let m = node % nodesAcross, n = node / nodesAcross
                coupling[xRow + node] = weight * movable * s * xHatSums[2 * m + 1] * yHatSums[2 * n]
                coupling[yRow + node] = weight * movable * s * xHatSums[2 * m] * yHatSums[2 * n + 1]
                coupling[amplitudeRow + node] += weight * xHatSums[2 * m] * yHatSums[2 * n]
            }
            for parameter in layout.slot(of: k) {
                coupling[parameter * shared + layout.sharedWidth] = widthRow[parameter]
            }
        }
        diagonal = [Double](repeating: 0, count: layout.count)
        for k in 0..<count {
            for own in 0..<ParameterLayout.perColumn {
                diagonal[layout.slotStart(of: k) + own] = blocks[Self.blockDiagonal(k, own)]
            }
        }
        for node in 0..<nodeCount {
            diagonal[layout.node(node)] = meanWeights.nodes[node] * background.squaredWeightSums[node]
        }
        diagonal[layout.width] = widthRow[layout.width]

        blockFactors = blocks
        for k in 0..<count {
            for own in 0..<ParameterLayout.perColumn { blockFactors[Self.blockDiagonal(k, own)] *= 1 + damping }
            if !Cholesky.factor(&blockFactors, at: Self.blockStart(k), size: ParameterLayout.perColumn) {
                // Not positive definite: fall back to the block's diagonal.
                for i in Self.blockStart(k)..<Self.blockStart(k + 1) { blockFactors[i] = 0 }
                for own in 0..<ParameterLayout.perColumn {
                    blockFactors[Self.blockDiagonal(k, own)] = max(blocks[Self.blockDiagonal(k, own)], 1e-12)
                        .squareRoot()
                }
            }
        }
        blockSolvedCoupling = coupling
        var column = [Double](repeating: 0, count: ParameterLayout.perColumn)
        for k in 0..<count {
            let first = layout.slotStart(of: k)
            for j in 0..<shared {
                for own in 0..<ParameterLayout.perColumn { column[own] = coupling[(first + own) * shared + j] }
                Cholesky.solve(blockFactors, at: Self.blockStart(k), size: ParameterLayout.perColumn, &column)
                for own in 0..<ParameterLayout.perColumn {
                    blockSolvedCoupling[(first + own) * shared + j] = column[own]
                }
            }
        }
        // G: node against node is separable too (a product of the hats' overlaps along x and along y), times the
        // mean weight under the two hats.
        var schur = [Double](repeating: 0, count: shared * shared)
        let xOverlap = background.x.overlap, yOverlap = background.y.overlap
        for a in 0..<nodeCount {
            for b in 0..<nodeCount {
                schur[a * shared + b] =
                    (meanWeights.nodes[a] * meanWeights.nodes[b]).squareRoot()
                    * xOverlap[(a % nodesAcross) * nodesAcross + b % nodesAcross]
                    * yOverlap[(a / nodesAcross) * nodesDown + b / nodesAcross]
            }
            schur[a * shared + layout.sharedWidth] = widthRow[layout.node(a)]
            schur[layout.sharedWidth * shared + a] = widthRow[layout.node(a)]
        }
        schur[shared * shared - 1] = widthRow[layout.width]
        for a in 0..<shared { schur[a * shared + a] *= 1 + damping }
        // S = G − CᵀD⁻¹C.
        for row in 0..<layout.columnParameterCount {
            let start = row * shared
            for a in 0..<shared where coupling[start + a] != 0 {
                let value = coupling[start + a]
                for b in 0..<shared { schur[a * shared + b] -= value * blockSolvedCoupling[start + b] }
            }
        }
        schurFactor = schur
        if !Cholesky.factor(&schurFactor, size: shared) {
            // Not positive definite (a degenerate region): fall back to S's diagonal.
            schurFactor = [Double](repeating: 0, count: shared * shared)
            for a in 0..<shared { schurFactor[a * shared + a] = max(abs(schur[a * shared + a]), 1e-12).squareRoot() }
        }
    }

    /// Along one axis of a column's window: the sums of its factors g and first moments m, and into `hatSums`, set
    /// afresh, g and m summed under each background node's hat.
    private static func windowSums(
        _ gaussian: [Double], _ firstMoment: [Double], from start: Int,
        over range: Range<Int>, axis: BilinearBackground.Axis,
        into hatSums: inout [Double]
    ) -> WindowSums {
        for i in hatSums.indices { hatSums[i] = 0 }
        var sums = WindowSums()
        for i in 0..<range.count {
            let g = gaussian[start + i], m = firstMoment[start + i]
            sums.gaussianSquared += g * g; sums.gaussianMoment += g * m; sums.momentSquared += m * m
            let node = axis.nodeBefore[range.lowerBound + i], after = axis.weightAfter[range.lowerBound + i]
            hatSums[2 * node] += (1 - after) * g; hatSums[2 * node + 1] += (1 - after) * m
            hatSums[2 * node + 2] += after * g; hatSums[2 * node + 3] += after * m
        }
        return sums
    }

    /// The preconditioned vector: the arrow system solved exactly.
    func apply(_ v: [Double]) -> [Double] {
        let shared = layout.sharedCount, columnParameters = layout.columnParameterCount
        var out = v
        for k in 0..<layout.columnCount {
            Cholesky.solve(
                blockFactors, at: Self.blockStart(k), size: ParameterLayout.perColumn, &out,
                from: layout.slotStart(of: k))
        }
        var sharedPart = Array(v[layout.firstNode...])
        for row in 0..<columnParameters {
            let value = out[row]
            for a in 0..<shared { sharedPart[a] -= coupling[row * shared + a] * value }
        }
        Cholesky.solve(schurFactor, size: shared, &sharedPart)
        for row in 0..<columnParameters {
            var correction = 0.0
            for a in 0..<shared { correction += blockSolvedCoupling[row * shared + a] * sharedPart[a] }
            out[row] -= correction
        }
        for a in 0..<shared { out[layout.firstNode + a] = sharedPart[a] }
        return out
    }
}
