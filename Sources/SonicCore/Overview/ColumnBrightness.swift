import RealModule

/// How the columns' brightness changes over the image as a whole: a specimen growing thicker one way, or a part of it
/// brighter or dimmer than the rest.
public struct LargeScaleIntensity: Sendable, Equatable {
    /// The columns grow brighter towards `towards` (a unit vector, y down), by `change` across the crystal (0.8:
    /// 80 % brighter at the bright end than at the dim one).
    public struct Gradient: Sendable, Equatable {
        public var towards: PixelVector
        public var change: Double
        public var significance: Double
    }

    /// The columns in one ninth of the image (`place`: "upper left", "centre") are brighter (`change` > 0) or dimmer
    /// than the gradient has them.
    public struct Region: Sendable, Equatable {
        public var centre: ImagePoint
        public var place: String
        public var change: Double
        public var significance: Double
    }

    public var gradient: Gradient?
    public var region: Region?
}

/// The columns' integrated intensities read against the noise: the columns that stand out from their sublattice
/// around them, and how the brightness changes over the image as a whole.
///
/// Each column's intensity is compared with what its sublattice holds around it — a smooth surface over the image
/// (a level for each sublattice times a quadratic all share, fitted as below), moved by the median of how far the
/// sublattice's columns within `neighbourhood` cells of it lie off it — in standard errors: the Cramér–Rao bound the image's counting noise sets on it (`CountingNoise`), scaled by how
/// widely the sublattice's columns actually scatter in those units (a median absolute deviation: never less than
/// the noise, more where the columns differ of themselves). A column stands out when it lies further off than noise
/// would put one of all the columns tested (`Significance`).
///
/// The large-scale change is a level for each sublattice and a gradient all share, fitted to the logarithms of the
/// intensities by weighted least squares, robustly (Tukey's biweight), so the columns that stand out do not tilt
/// it; and the ninth of the image whose columns lie furthest off it. Either is said when it stands out from the
/// noise and is larger than the columns scatter one by one and than `smallestChange`.
struct ColumnBrightness {
    struct Outlier {
        /// The column's index in the analysis.
        var index: Int
        /// Its intensity over what its sublattice holds around it.
        var relative: Double
        /// How far it stands out, in standard deviations of the noise (negative: dimmer).
        var significance: Double
    }

    /// A column is compared with its sublattice's columns within this many cells (about 20 of them).
    static let neighbourhood = 2.5
    /// Less than this change over the image (5 %) is not said, though it stand out from the noise: a plane through
    /// the logarithms misses about that much of a real thickness change, which would otherwise be heard as a region
    /// of its own.
    static let smallestChange = 0.05
    /// A column less than this much brighter or dimmer than its sublattice there (5 %) is not said, however clearly it
    /// stands out from the counting noise: its fit's window, cut by the image's edge or reaching amorphous material,
    /// misjudges a column by that much.
    static let smallestContrast = 0.05

    var outliers: [Outlier] = []
    var largeScale = LargeScaleIntensity()
    /// How much wider than the counting noise each sublattice's columns scatter (at least 1), by sublattice number.
    var scatter: [Int: Double] = [:]
    private let analysis: LatticeAnalysis
    private var grid: SiteGrid
    private let spots: [ColumnGaussian]
    private let reach: Double
    private var trend: Trend?
    /// How far each column lies off the fit, in logarithms (not a number for a column the fit does not know).
    private var offTrend: [Double] = []

    /// Whether a column's fit can be trusted: on a sublattice, far enough inside the image that its whole Gaussian is
    /// in it, with its eight neighbours on its sublattice (along ±a, ±b and the diagonals, the reach of the window its
    /// fit sees) all there, so that no spot of amorphous material beside it, which its fit cannot tell from it, and no
    /// edge of the image leans on it.
    static func isTestable(
        _ column: AnalysedColumn, at row: Int, in analysis: LatticeAnalysis, width: Int, height: Int, spacing: Double
    ) -> Bool {
        guard column.sublattice != nil, column.grain != nil else { return false }
        let p = PixelVector(x: column.column.x, y: column.column.y)
        let links = analysis.neighbours[row]
        guard isInside(p, width: width, height: height, spacing: spacing), links.allSatisfy({ $0 != nil }) else {
            return false
        }
        // The diagonals: ±b from the neighbours along ±a.
        return [links[0]!, links[1]!].allSatisfy {
            analysis.neighbours[$0][2] != nil && analysis.neighbours[$0][3] != nil
        }
    }

    /// Whether `p` lies at least half a spacing inside the image: a column there has all its Gaussian in it.
    static func isInside(_ p: PixelVector, width: Int, height: Int, spacing: Double) -> Bool {
        let margin = 0.5 * spacing
        return p.x >= margin && p.y >= margin && p.x <= Double(width - 1) - margin && p.y <= Double(height - 1) - margin
    }

    init(_ analysis: LatticeAnalysis, noise: CountingNoise, width: Int, height: Int, spacing: Double) {
        self.analysis = analysis
        let cell = max(analysis.a?.length ?? spacing, analysis.b?.length ?? spacing)
        reach = Self.neighbourhood * cell
        grid = SiteGrid(cellSize: reach / 2)
        spots = analysis.columns.map {
            ColumnGaussian(
                x: $0.column.x, y: $0.column.y, amplitude: $0.column.integratedIntensity, sigma: $0.column.sigma)
        }
        let rows = analysis.columns.indices.filter {
            Self.isTestable(analysis.columns[$0], at: $0, in: analysis, width: width, height: height, spacing: spacing)
                && spots[$0].amplitude > 0
        }
        guard rows.count >= 10 else { return }
        let errors = rows.map { noise.relativeError(of: analysis.columns[$0].column) }
        guard let plane = Trend(analysis, rows: rows, errors: errors, width: width, height: height, quadratic: false),
            let fit = Trend(analysis, rows: rows, errors: errors, width: width, height: height, quadratic: true)
        else { return }
        largeScale = plane.described
        trend = fit
        // Every column of a sublattice the fit knows, by how far it lies off the fit, for the local comparisons.
        offTrend = spots.indices.map { k in
            guard let number = analysis.columns[k].sublattice, spots[k].amplitude > 0,
                let expected = fit.logIntensity(sublattice: number, at: PixelVector(x: spots[k].x, y: spots[k].y))
            else { return .nan }
            return Double.log(spots[k].amplitude) - expected
        }
        for k in spots.indices where !offTrend[k].isNaN { grid.insert(k, x: spots[k].x, y: spots[k].y) }
        var standardized: [(index: Int, value: Double, residual: Double)] = []
        for (k, index) in rows.enumerated() where errors[k].isFinite && errors[k] > 0 {
            let c = analysis.columns[index]
            guard
                let around = localOffset(
                    sublattice: c.sublattice!, at: PixelVector(x: c.column.x, y: c.column.y), leaving: index)
            else { continue }
            let residual = offTrend[index] - around
            standardized.append((index, residual / errors[k], residual))
        }
        let everyone = Significance.robustScale(standardized.map(\.value))
        for number in Set(standardized.map { analysis.columns[$0.index].sublattice! }) {
            let own = standardized.filter { analysis.columns[$0.index].sublattice == number }.map(\.value)
            scatter[number] = max(1, own.count >= 20 ? Significance.robustScale(own) : everyone)
        }
        let threshold = Significance.threshold(tests: standardized.count)
        for entry in standardized {
            let z = entry.value / scatter[analysis.columns[entry.index].sublattice!]!
            if abs(z) > threshold && abs(Double.exp(entry.residual) - 1) >= Self.smallestContrast {
                outliers.append(Outlier(index: entry.index, relative: Double.exp(entry.residual), significance: z))
            }
        }
    }

    /// The median of how far sublattice `number`'s columns within the neighbourhood of `point` (but the column
    /// `leaving`) lie off the fit, in logarithms; nil where fewer than five are there.
    private func localOffset(sublattice number: Int, at point: PixelVector, leaving: Int? = nil) -> Double? {
        let around = grid.indices(nearX: point.x, y: point.y, within: reach, in: spots).filter {
            $0 != leaving && analysis.columns[$0].sublattice == number
        }
        guard around.count >= 5 else { return nil }
        return LatticeAnalysis.median(around.map { offTrend[$0] })
    }

    /// The integrated intensity sublattice `number` holds around `point`; nil where the fit does not know the
    /// sublattice or too few of its columns are near.
    func localIntensity(sublattice number: Int, at point: PixelVector) -> Double? {
        guard let expected = trend?.logIntensity(sublattice: number, at: point),
            let offset = localOffset(sublattice: number, at: point)
        else { return nil }
        return Double.exp(expected + offset)
    }

    /// A level for each sublattice and a surface all share — a plane, or a quadratic — fitted to the logarithms of the
    /// tested columns' intensities; and what of the plane stands out.
    private struct Trend {
        var levels: [Int: Double] = [:]
        /// The surface's coefficients on `shape`.
        var surface: [Double] = []
        let width: Double, height: Double
        var described = LargeScaleIntensity()

        /// A point's place about the image's centre, in widths and heights, and the surface's terms there.
        func shape(_ point: PixelVector) -> [Double] {
            let u = (point.x - (width - 1) / 2) / width, v = (point.y - (height - 1) / 2) / height
            return surface.count == 2 ? [u, v] : [u, v, u * u, u * v, v * v]
        }

        func logIntensity(sublattice number: Int, at point: PixelVector) -> Double? {
            levels[number].map { level in level + zip(shape(point), surface).map { $0 * $1 }.reduce(0, +) }
        }

        init?(_ analysis: LatticeAnalysis, rows: [Int], errors: [Double], width: Int, height: Int, quadratic: Bool) {
            self.width = Double(width)
            self.height = Double(height)
            let sublattices = Array(Set(rows.map { analysis.columns[$0].sublattice! })).sorted()
            let logs = rows.map { Double.log(analysis.columns[$0].column.integratedIntensity) }
            let which = rows.map { sublattices.firstIndex(of: analysis.columns[$0].sublattice!)! }
            surface = [Double](repeating: 0, count: quadratic ? 5 : 2)
            let shapes = rows.map {
                shape(PixelVector(x: analysis.columns[$0].column.x, y: analysis.columns[$0].column.y))
            }
            let terms = surface.count
            let count = sublattices.count + terms
            func basis(_ k: Int) -> [Double] {
                var row = [Double](repeating: 0, count: count)
                row[which[k]] = 1
                for t in 0..<terms { row[sublattices.count + t] = shapes[k][t] }
                return row
            }
            // Iteratively reweighted least squares: each column weighed by its noise, and by Tukey's biweight on how
            // far it lies off, in units of the bulk's scatter.
            var weights = errors.map { $0.isFinite && $0 > 0 ? 1 / ($0 * $0) : 0 }
            var parameters = [Double](repeating: 0, count: count)
            var normal: [Double] = []
            var residuals = [Double](repeating: 0, count: rows.count)
            var scale = 1.0
            for _ in 0..<10 {
                normal = [Double](repeating: 0, count: count * count)
                var right = [Double](repeating: 0, count: count)
                for k in rows.indices where weights[k] > 0 {
                    let row = basis(k)
                    for i in 0..<count {
                        right[i] += weights[k] * row[i] * logs[k]
                        for j in 0..<count { normal[i * count + j] += weights[k] * row[i] * row[j] }
                    }
                }
                guard Cholesky.factor(&normal, size: count) else { return nil }
                Cholesky.solve(normal, size: count, &right)
                parameters = right
                for k in rows.indices {
                    residuals[k] = logs[k] - zip(basis(k), parameters).map { $0 * $1 }.reduce(0, +)
                }
                let standardized = rows.indices.map {
                    errors[$0].isFinite && errors[$0] > 0 ? residuals[$0] / errors[$0] : 0
                }
                scale = max(Significance.robustScale(standardized), 1e-9)
                for k in rows.indices where errors[k].isFinite && errors[k] > 0 {
                    let u = standardized[k] / (RobustLattice.cutoff * scale)
                    weights[k] = abs(u) < 1 ? (1 - u * u) * (1 - u * u) / (errors[k] * errors[k]) : 0
                }
            }
            for (k, number) in sublattices.enumerated() { levels[number] = parameters[k] }
            surface = Array(parameters[sublattices.count...])
            guard !quadratic else { return }
            // The change is said across the whole crystal, every column of it, not only those the fit could trust.
            let everywhere = analysis.columns.map { shape(PixelVector(x: $0.column.x, y: $0.column.y)) }
            described = ColumnBrightness.described(
                gradient: surface, normal: normal, size: count, scale: scale, residuals: residuals,
                points: rows.map { analysis.columns[$0].column }, across: everywhere.map { $0[0] },
                down: everywhere.map { $0[1] }, width: width, height: height)
        }
    }

    /// The gradient, where it stands out from the noise and changes the columns more than they scatter one by one;
    /// and the ninth of the image that stands out most from it, the same way.
    fileprivate static func described(
        gradient parameters: [Double], normal: [Double], size: Int, scale: Double, residuals: [Double],
        points: [AtomColumn], across: [Double], down: [Double], width: Int, height: Int
    ) -> LargeScaleIntensity {
        var result = LargeScaleIntensity()
        // Tests: the gradient and the nine regions.
        let threshold = Significance.threshold(tests: 10)
        let spread = Significance.robustScale(residuals)
        let smallest = max(spread, Double.log(1 + smallestChange))
        let length = (parameters[0] * parameters[0] + parameters[1] * parameters[1]).squareRoot()
        if length > 0 {
            let unit = [parameters[0] / length, parameters[1] / length]
            // The gradient's variance along itself: uᵀ·(XᵀWX)⁻¹·u, in units of the bulk's scatter.
            var solved = [Double](repeating: 0, count: size)
            solved[size - 2] = unit[0]
            solved[size - 1] = unit[1]
            Cholesky.solve(normal, size: size, &solved)
            let variance = (unit[0] * solved[size - 2] + unit[1] * solved[size - 1]) * scale * scale
            let trend = zip(across, down).map { parameters[0] * $0 + parameters[1] * $1 }
            let range = (trend.max() ?? 0) - (trend.min() ?? 0)
            let significance = variance > 0 ? length / variance.squareRoot() : 0
            if significance > threshold && range > smallest {
                let towards = PixelVector(x: parameters[0] / Double(width), y: parameters[1] / Double(height))
                result.gradient = .init(
                    towards: (1 / towards.length) * towards, change: Double.exp(range) - 1, significance: significance)
            }
        }
        var best: LargeScaleIntensity.Region?
        for place in Places.regions {
            let members = points.indices.filter {
                Places.region(of: ImagePoint(x: points[$0].x, y: points[$0].y), width: width, height: height) == place
            }
            guard members.count >= 5 else { continue }
            // The median, so the columns that stand out in it do not move it; its standard error is 1.25 times the
            // mean's.
            let median = Significance.median(members.map { residuals[$0] })
            let significance = median / (1.253 * spread / Double(members.count).squareRoot())
            guard abs(significance) > threshold, abs(median) > smallest,
                abs(significance) > abs(best?.significance ?? 0)
            else { continue }
            let centre = ImagePoint(
                x: members.map { points[$0].x }.reduce(0, +) / Double(members.count),
                y: members.map { points[$0].y }.reduce(0, +) / Double(members.count))
            best = .init(centre: centre, place: place, change: Double.exp(median) - 1, significance: significance)
        }
        result.region = best
        return result
    }
}
