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

    func cost(_ residual: [Double]) -> Double { residual.reduce(0) { $0 + $1 * $1 } }

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
    mutating func gaussNewton(iterations: Int) {
        var windows = ColumnWindows(columns, sigma: sigma, fit: fit)
        var residual = self.residual(windows, columns: columns, nodes: nodes)
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
                if converged { break }
            } else {
                damping *= 10
            }
        }
    }

    /// One damped Gauss–Newton step: (JᵀJ + λ·diag JᵀJ)·step = Jᵀr, solved only roughly (ten iterations): a
    /// step only has to go downhill, and the next one finishes what this one left.
    func solveStep(_ residual: [Double], _ windows: ColumnWindows, damping: Double) -> [Double] {
        let preconditioner = JointFitPreconditioner(self, windows, damping: damping)
        let diagonal = preconditioner.diagonal
        return conjugateGradients(transposed(residual, windows), tolerance: 1e-6, limit: 10) { v in
            var product = transposed(forward(v, windows), windows)
            for i in product.indices { product[i] += damping * diagonal[i] * v[i] }
            return product
        } precondition: {
            preconditioner.apply($0)
        }
    }

    /// The standard error of column k's amplitude per unit of pixel noise, √(JᵀJ)⁻¹ at (k, k), with the
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
