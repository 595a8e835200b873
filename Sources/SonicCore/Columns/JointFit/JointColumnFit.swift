/// Fits every column of a region at once: one model of the whole region, a smooth background (`BilinearBackground`)
/// plus one isotropic Gaussian per column, each with its own centre and amplitude and all with one shared width, by
/// damped Gauss–Newton least squares over all of their parameters together (`JointFitProblem`).
///
/// Where columns overlap strongly (σ above about a fifth of the spacing) a dense lattice of wide columns is nearly a
/// flat sheet: amplitudes, widths and background trade against each other. Refitting one column at a time against
/// its neighbours' estimates drifts along that trade and shows it wherever the symmetry breaks (beside a vacancy,
/// at the edge). Solved together, the trade is settled by all the data at once. One width for the region, because
/// the width is set by the probe and the specimen, which the columns of a region share; a width per column keeps
/// part of the trade (see docs/columns.md).
///
/// With a noise model, each pixel is weighted by the inverse of its noise variance at the level the model predicts
/// there, so the fit is the likelihood's under that noise (at a counting detector a peak pixel is several times
/// noisier than the background).
///
/// Each step solves its normal equations by conjugate gradients, never forming the matrix, preconditioned by
/// `JointFitPreconditioner`.
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
        /// For each column asked about, the standard error of its amplitude per unit of pixel noise (with a noise
        /// model: of the noise at the region's mean level).
        var amplitudeErrors: [Double]
        /// The data minus the model, over the region, row by row.
        var residual: [Double]
    }

    /// The region: its top-left pixel in the image, and its size.
    let originX: Int, originY: Int
    let width: Int, height: Int
    /// The region's samples, row by row.
    let data: [Double]
    let background: BilinearBackground
    let sigmaRange: ClosedRange<Double>
    /// How the noise grows with the level; nil weighs every pixel alike.
    let noiseModel: NoiseModel?

    /// - Parameters:
    ///   - xs, ys: the region, in image pixels.
    ///   - nodeSpacing: the background's node spacing in pixels (a few column spacings: smooth, not a column).
    ///   - sigmaRange: the widths the shared σ may take.
    init(
        image: GrayImage, xs: Range<Int>, ys: Range<Int>, nodeSpacing: Double, sigmaRange: ClosedRange<Double>,
        noiseModel: NoiseModel? = nil
    ) {
        originX = xs.lowerBound; originY = ys.lowerBound
        width = xs.count; height = ys.count
        var data = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                data[y * width + x] = Double(image.samples[(originY + y) * image.width + originX + x])
            }
        }
        self.data = data
        background = BilinearBackground(width: width, height: height, nodeSpacing: nodeSpacing)
        self.sigmaRange = sigmaRange
        self.noiseModel = noiseModel
    }

    /// The columns refined together, and the shared width; `roles` says what of each is fitted.
    ///
    /// The amplitude errors of the columns listed in `errorsOf` come from the normal equations at the fitted model,
    /// so the share of the data the background and the width could also explain is accounted for.
    func refine(
        _ start: [ColumnGaussian], roles: [Role], sigma: Double, qualityRadius: Double,
        errorsOf asked: [Int] = [], iterations: Int = 8
    ) -> Result {
        var problem = JointFitProblem(
            fit: self, columns: start, roles: roles,
            sigma: min(sigmaRange.upperBound, max(sigmaRange.lowerBound, sigma)))
        if !start.isEmpty {
            problem.solveBackgroundAlone()
            problem.gaussNewton(iterations: iterations, noise: noiseModel)
        }
        let columns = problem.columns.map {
            ColumnGaussian(x: $0.x, y: $0.y, amplitude: $0.amplitude, sigma: problem.sigma)
        }
        let windows = ColumnWindows(problem.columns, sigma: problem.sigma, fit: self)
        let residual = problem.residual(windows, columns: problem.columns, nodes: problem.nodes)
        let preconditioner = JointFitPreconditioner(problem, windows, damping: 0)
        return Result(
            columns: columns,
            quality: columns.map { problem.rSquared(near: $0, radius: qualityRadius, residual: residual) },
            amplitudeErrors: asked.map { problem.amplitudeError(of: $0, preconditioner) }, residual: residual)
    }

    /// The columns to fit a region with, and their roles: the given ones (which should lie inside the
    /// region) plus lattice-extrapolated columns just outside it, whose tails reach in (a model missing them pulls
    /// every column inside, not just the edge ones). A column p with a neighbour q implies one a step beyond p, at
    /// about 2p − q (atom columns sit on centrosymmetric sites in projection, and that is a site of q's kind); such a
    /// ghost takes q's amplitude. The given columns are free; the ghosts follow them.
    static func withGhosts(
        _ columns: [ColumnGaussian], steps: LatticeSteps,
        xs: Range<Int>, ys: Range<Int>, spacing: Double,
        reach: Double
    ) -> (columns: [ColumnGaussian], roles: [Role]) {
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
                        sites.indices(nearX: gx, y: gy, within: 0.5 * spacing, in: all).isEmpty
                    else { continue }
                    all.append(ColumnGaussian(x: gx, y: gy, amplitude: all[q].amplitude, sigma: all[q].sigma))
                    // A ghost of a ghost takes its height from the same free column.
                    if case .ghost(let source) = roles[q] {
                        roles.append(.ghost(of: source))
                    } else {
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
}
