/// The joint fit's unknowns — column centres and amplitudes, the shared width, the background nodes — at their
/// current values, and the damped Gauss–Newton steps that improve them. Vectors of them follow `layout`.
///
/// J is the Jacobian of the model image by the parameters. It is never formed: every Gaussian is a product of an x
/// and a y factor (`ColumnWindows`), so applying J or Jᵀ costs a few operations per pixel under each column.
struct JointFitProblem {
    let fit: JointColumnFit
    var columns: [ColumnGaussian]
    var sigma: Double
    var nodes: [Double]
    let layout: ParameterLayout
    /// Whether a column's centre is held (a trial or a ghost), and the column whose amplitude it takes: its own, or a
    /// ghost's source's.
    let isHeld: [Bool]
    let amplitudeOwner: [Int]
    /// Each pixel's weight in the cost, row by row; nil weighs every pixel alike.
    private(set) var weights: [Double]?
    var count: Int { columns.count }

    init(fit: JointColumnFit, columns: [ColumnGaussian], roles: [JointColumnFit.Role], sigma: Double) {
        self.fit = fit
        isHeld = roles.map { $0 != .free }
        amplitudeOwner = roles.indices.map { k in
            if case .ghost(let source) = roles[k] { return source } else { return k }
        }
        var columns = columns
        for k in columns.indices { columns[k].amplitude = columns[amplitudeOwner[k]].amplitude }
        self.columns = columns
        self.sigma = sigma
        nodes = [Double](repeating: 0, count: fit.background.nodeCount)
        layout = ParameterLayout(columnCount: columns.count, nodeCount: nodes.count)
    }

    /// The data minus the model.
    func residual(_ windows: ColumnWindows, columns: [ColumnGaussian], nodes: [Double]) -> [Double] {
        var residual = fit.data
        fit.background.add(nodes, scale: -1, into: &residual)
        let width = fit.width
        residual.withUnsafeMutableBufferPointer { residual in
            for k in columns.indices {
                let amplitude = columns[k].amplitude
                let across = windows.xRange[k], down = windows.yRange[k]
                let xStart = windows.xStart[k], yStart = windows.yStart[k]
                for j in 0..<down.count {
                    let row = (down.lowerBound + j) * width + across.lowerBound
                    let rowHeight = amplitude * windows.y.gaussian[yStart + j]
                    for i in 0..<across.count { residual[row + i] -= rowHeight * windows.x.gaussian[xStart + i] }
                }
            }
        }
        return residual
    }

    /// Jᵀ applied to an image of the region: for every parameter, the image's sum weighted by that parameter's
    /// derivative of the model (with the residual: the gradient).
    func transposed(_ image: [Double], _ windows: ColumnWindows) -> [Double] {
        var sums = [Double](repeating: 0, count: layout.count)
        var widthSum = 0.0
        let width = fit.width
        image.withUnsafeBufferPointer { image in
            windows.withPointers { x, y in
                for k in 0..<count {
                    let across = windows.xRange[k], down = windows.yRange[k]
                    let xStart = windows.xStart[k], yStart = windows.yStart[k]
                    var amplitudeSum = 0.0, xSum = 0.0, ySum = 0.0, widthPart = 0.0
                    for j in 0..<down.count {
                        let values = image.baseAddress! + (down.lowerBound + j) * width + across.lowerBound
                        let gaussian = x.gaussian.baseAddress! + xStart
                        let firstMoment = x.firstMoment.baseAddress! + xStart
                        let secondMoment = x.secondMoment.baseAddress! + xStart
                        // Along the row: the image weighted by the x factor, its first and its second moment.
                        var byGaussian = 0.0, byFirstMoment = 0.0, bySecondMoment = 0.0
                        for i in 0..<across.count {
                            let value = values[i]
                            byGaussian += value * gaussian[i]; byFirstMoment += value * firstMoment[i]
                            bySecondMoment += value * secondMoment[i]
                        }
                        let rowGaussian = y.gaussian[yStart + j]
                        amplitudeSum += rowGaussian * byGaussian; xSum += rowGaussian * byFirstMoment
                        ySum += y.firstMoment[yStart + j] * byGaussian
                        widthPart += rowGaussian * bySecondMoment + y.secondMoment[yStart + j] * byGaussian
                    }
                    // The derivatives by the centre and the width carry the amplitude over σ² (and σ³).
                    let scale = columns[k].amplitude / (sigma * sigma)
                    if !isHeld[k] { sums[layout.x(k)] = xSum * scale; sums[layout.y(k)] = ySum * scale }
                    sums[layout.amplitude(amplitudeOwner[k])] += amplitudeSum
                    widthSum += widthPart * scale / sigma
                }
            }
        }
        fit.background.accumulate(image, into: &sums, at: layout.firstNode)
        sums[layout.width] = widthSum
        return sums
    }

    /// J applied to a step: the change of the model image.
    func forward(_ step: [Double], _ windows: ColumnWindows) -> [Double] {
        var change = [Double](repeating: 0, count: fit.width * fit.height)
        fit.background.add(Array(step[layout.nodes]), scale: 1, into: &change)
        let widthStep = step[layout.width]
        let width = fit.width
        var rowFactor = [Double](repeating: 0, count: windows.widest)
        change.withUnsafeMutableBufferPointer { change in
            rowFactor.withUnsafeMutableBufferPointer { rowFactor in
                windows.withPointers { x, y in
                    for k in 0..<count {
                        let across = windows.xRange[k], down = windows.yRange[k]
                        let xStart = windows.xStart[k], yStart = windows.yStart[k]
                        let scale = columns[k].amplitude / (sigma * sigma)
                        // How much of each factor the step adds.
                        let amplitudeWeight = step[layout.amplitude(amplitudeOwner[k])]
                        let widthWeight = widthStep * scale / sigma
                        let xWeight = isHeld[k] ? 0 : step[layout.x(k)] * scale
                        let yWeight = isHeld[k] ? 0 : step[layout.y(k)] * scale
                        let gaussian = x.gaussian.baseAddress! + xStart
                        let firstMoment = x.firstMoment.baseAddress! + xStart
                        let secondMoment = x.secondMoment.baseAddress! + xStart
                        // The step's change along a row, before each row's y factor: the same for every row.
                        let profile = rowFactor.baseAddress!
                        for i in 0..<across.count {
                            profile[i] =
                                amplitudeWeight * gaussian[i] + xWeight * firstMoment[i]
                                + widthWeight * secondMoment[i]
                        }
                        for j in 0..<down.count {
                            let values = change.baseAddress! + (down.lowerBound + j) * width + across.lowerBound
                            let rowGaussian = y.gaussian[yStart + j]
                            let rowWeight =
                                yWeight * y.firstMoment[yStart + j] + widthWeight * y.secondMoment[yStart + j]
                            for i in 0..<across.count {
                                values[i] += rowGaussian * profile[i] + rowWeight * gaussian[i]
                            }
                        }
                    }
                }
            }
        }
        return change
    }

    func cost(_ residual: [Double]) -> Double {
        guard let weights else { return residual.reduce(0) { $0 + $1 * $1 } }
        var sum = 0.0
        for i in residual.indices { sum += weights[i] * residual[i] * residual[i] }
        return sum
    }

    /// Steps after which the weights are set again from the model: by then it is close to the fit.
    static let reweightAfter = 3

    /// An image of the region times the weights.
    func weighted(_ image: [Double]) -> [Double] {
        guard let weights else { return image }
        var product = image
        for i in product.indices { product[i] *= weights[i] }
        return product
    }

    /// Weighs each pixel by the inverse of the noise variance at the level the model predicts there (the data
    /// minus `residual`), the variance at the region's mean level over it: the pixel's own value would weigh a
    /// pixel that came out low more and bias the fit towards low values.
    mutating func weighByNoise(_ model: NoiseModel, residual: [Double]) {
        var levels = fit.data
        for i in levels.indices { levels[i] -= residual[i] }
        let reference = model.variance(atMean: levels.reduce(0, +) / Double(max(1, levels.count)))
        weights = levels.map { reference / model.variance(atMean: $0) }
    }

    /// The mean weight each column's entries of JᵀWJ see (over its window, by its Gaussian's square) and each
    /// node's (under its hat): the scales the preconditioner puts on its sums without weights. All 1 without
    /// weights.
    func meanWeights(_ windows: ColumnWindows) -> (columns: [Double], nodes: [Double]) {
        guard let weights else {
            return (
                [Double](repeating: 1, count: count), [Double](repeating: 1, count: fit.background.nodeCount)
            )
        }
        let width = fit.width
        var columnWeights = [Double](repeating: 1, count: count)
        weights.withUnsafeBufferPointer { weights in
            windows.withPointers { x, y in
                for k in 0..<count {
                    let across = windows.xRange[k], down = windows.yRange[k]
                    let xStart = windows.xStart[k], yStart = windows.yStart[k]
                    var weightedSum = 0.0, xSquares = 0.0, ySquares = 0.0
                    for i in 0..<across.count { xSquares += x.gaussian[xStart + i] * x.gaussian[xStart + i] }
                    for j in 0..<down.count {
                        let row = weights.baseAddress! + (down.lowerBound + j) * width + across.lowerBound
                        var alongRow = 0.0
                        for i in 0..<across.count {
                            alongRow += row[i] * x.gaussian[xStart + i] * x.gaussian[xStart + i]
                        }
                        let rowGaussian = y.gaussian[yStart + j]
                        weightedSum += alongRow * rowGaussian * rowGaussian
                        ySquares += rowGaussian * rowGaussian
                    }
                    let total = xSquares * ySquares
                    if total > 0 { columnWeights[k] = weightedSum / total }
                }
            }
        }
        var underHats = [Double](repeating: 0, count: fit.background.nodeCount)
        fit.background.accumulate(weights, into: &underHats, at: 0)
        return (columnWeights, zip(underHats, fit.background.weightSums).map { $1 > 0 ? $0 / $1 : 1 })
    }

    /// The background that best explains the data under the starting columns (a linear solve), so the first
    /// Gauss–Newton step starts from a consistent model.
    mutating func solveBackgroundAlone() {
        let windows = ColumnWindows(columns, sigma: sigma, fit: fit)
        let residual = self.residual(windows, columns: columns, nodes: nodes)
        var rhs = [Double](repeating: 0, count: nodes.count)
        fit.background.accumulate(residual, into: &rhs, at: 0)
        let background = fit.background
        let change = conjugateGradients(rhs, tolerance: 1e-12, limit: 200) { v in
            var image = [Double](repeating: 0, count: fit.width * fit.height)
            background.add(v, scale: 1, into: &image)
            var product = [Double](repeating: 0, count: v.count)
            background.accumulate(image, into: &product, at: 0)
            return product
        } precondition: { v in
            zip(v, background.squaredWeightSums).map { $0 / max($1, 1e-12) }
        }
        for i in nodes.indices { nodes[i] += change[i] }
    }

    /// Damped Gauss–Newton (Levenberg–Marquardt): a step that lowers the cost is taken and the damping eased; one
    /// that does not is retried with more damping.
    ///
    /// With a noise model the pixels are weighted from the starting model, and once more from the model after
    /// `reweightAfter` steps (or at convergence, if sooner), which then goes on under the new weights: a start is
    /// often off somewhere (a trial held at a site with the median height, a column the local stage misplaced), and
    /// weights from it misjudge the noise there.
    mutating func gaussNewton(iterations: Int, noise: NoiseModel?) {
        var windows = ColumnWindows(columns, sigma: sigma, fit: fit)
        var residual = self.residual(windows, columns: columns, nodes: nodes)
        if let noise { weighByNoise(noise, residual: residual) }
        var reweighed = noise == nil
        var currentCost = cost(residual)
        var damping = 1e-3
        var done = 0, attempts = 0
        while done < iterations && attempts < 3 * iterations {
            attempts += 1
            let step = solveStep(residual, windows, damping: damping)
            var trialColumns = columns
            var largestMove = 0.0
            for k in columns.indices {
                let column = columns[k], owner = amplitudeOwner[k]
                let moved = ColumnGaussian(
                    x: column.x + step[layout.x(k)], y: column.y + step[layout.y(k)],
                    amplitude: owner == k
                        ? column.amplitude + step[layout.amplitude(k)] : trialColumns[owner].amplitude,
                    sigma: column.sigma)
                guard moved.x.isFinite && moved.y.isFinite && moved.amplitude.isFinite else { continue }
                trialColumns[k] = moved
                largestMove = max(largestMove, abs(step[layout.x(k)]), abs(step[layout.y(k)]))
            }
            let widthStep = step[layout.width]
            let trialSigma =
                widthStep.isFinite
                ? min(fit.sigmaRange.upperBound, max(fit.sigmaRange.lowerBound, sigma + widthStep)) : sigma
            var trialNodes = nodes
            for i in nodes.indices where step[layout.node(i)].isFinite { trialNodes[i] += step[layout.node(i)] }
            let trialWindows = ColumnWindows(trialColumns, sigma: trialSigma, fit: fit)
            let trialResidual = self.residual(trialWindows, columns: trialColumns, nodes: trialNodes)
            let trialCost = cost(trialResidual)
            if trialCost <= currentCost {
                // Converged: further steps would move nothing by a measurable amount.
                let converged = largestMove < 1e-3 && abs(trialSigma - sigma) < 1e-3
                columns = trialColumns; nodes = trialNodes; sigma = trialSigma; windows = trialWindows
                residual = trialResidual; currentCost = trialCost
                damping = max(damping / 5, 1e-9)
                done += 1
                if let noise, !reweighed && (done == Self.reweightAfter || converged) {
                    weighByNoise(noise, residual: residual)
                    currentCost = cost(residual)
                    reweighed = true
                    continue
                }
                if converged { break }
            } else {
                damping *= 10
            }
        }
    }

    /// One damped Gauss–Newton step: (JᵀWJ + λ·diag JᵀWJ)·step = JᵀWr (W the weights), solved only roughly (ten
    /// iterations): a step only has to go downhill, and the next one finishes what this one left.
    func solveStep(_ residual: [Double], _ windows: ColumnWindows, damping: Double) -> [Double] {
        let preconditioner = JointFitPreconditioner(self, windows, damping: damping)
        let diagonal = preconditioner.diagonal
        return conjugateGradients(transposed(weighted(residual), windows), tolerance: 1e-6, limit: 10) { v in
            var product = transposed(weighted(forward(v, windows)), windows)
            for i in product.indices { product[i] += damping * diagonal[i] * v[i] }
            return product
        } precondition: {
            preconditioner.apply($0)
        }
    }

    /// The standard error of column k's amplitude per unit of pixel noise, √(JᵀWJ)⁻¹ at (k, k), with the
    /// preconditioner's inverse standing in for the exact one: it leaves out only what the neighbouring columns
    /// could also explain, which makes the error a little small — and a significance test on it a little lenient.
    func amplitudeError(of k: Int, _ preconditioner: JointFitPreconditioner) -> Double {
        var unit = [Double](repeating: 0, count: layout.count)
        unit[layout.amplitude(k)] = 1
        return max(0, preconditioner.apply(unit)[layout.amplitude(k)]).squareRoot()
    }

    /// R² of the model over the pixels within `radius` of a column's centre.
    func rSquared(near c: ColumnGaussian, radius: Double, residual: [Double]) -> Double {
        let left = max(0, Int((c.x - radius).rounded(.up)) - fit.originX)
        let right = min(fit.width - 1, Int((c.x + radius).rounded(.down)) - fit.originX)
        let top = max(0, Int((c.y - radius).rounded(.up)) - fit.originY)
        let bottom = min(fit.height - 1, Int((c.y + radius).rounded(.down)) - fit.originY)
        guard left <= right && top <= bottom else { return 0 }
        var n = 0.0, sum = 0.0, sumSquares = 0.0, residualSquares = 0.0
        for y in top...bottom {
            for x in left...right {
                let dx = Double(x + fit.originX) - c.x, dy = Double(y + fit.originY) - c.y
                guard dx * dx + dy * dy <= radius * radius else { continue }
                let value = fit.data[y * fit.width + x]
                n += 1; sum += value; sumSquares += value * value
                residualSquares += residual[y * fit.width + x] * residual[y * fit.width + x]
            }
        }
        let total = sumSquares - sum * sum / max(n, 1)
        return total > 0 ? min(1, max(0, 1 - residualSquares / total)) : 0
    }
}
