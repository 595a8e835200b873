/// Turns candidates into refined columns, in three passes:
///
/// 1. each candidate alone: a Gaussian on a plane fitted to the raw samples within 0.45·d;
/// 2. each surviving column again, after subtracting its neighbours' first-pass Gaussians from the data, so
///    overlapping tails, a vacancy next door or the image edge do not pull the centre. With the neighbours gone the
///    window can be wider, min(4σ, 0.6·d): wide enough that the plane's slopes are pinned by the background around
///    the column rather than traded against its centre (in a 2.5σ window that trade costs half as much error again
///    at high noise). This pass and the next weight each pixel by its noise, when the image's noise model is known
///    (`NoiseModel`): at a counting detector a peak pixel is several times noisier than the background around it.
/// 3. the same, with the plane's slopes held at the mean of the second-pass slopes of the column and its neighbours
///    within 2·d, where it has at least two. Even in a 4σ window the slopes still trade against the centre, at
///    about 6 % more centre error; the background is smooth over a few spacings, so its neighbours' windows pin the
///    slopes far better than the column's own.
///
/// Columns whose centre lies just outside the image take part as neighbours (their tails reach in) but are not
/// reported.
///
/// Work is done on demand and remembered, so a tap refines only the columns around it — with exactly the steps,
/// and so the result, of refining the whole image. A candidate's result depends only on candidates within
/// `(passes − 1)·geometry.neighbourSearch + geometry.duplicateSearch` pixels of it.
final class ColumnRefiner {
    let image: GrayImage
    let geometry: ColumnGeometry
    let candidates: [ColumnCandidate]
    private let grid: CandidateGrid
    private let fitter = GaussianFitter()
    private var firstFits: [GaussianPlaneFit?]
    private var fitted: [Bool]
    private var keptCache: [Bool?]
    /// Passes after the first: later[k − 1][i] is pass k of candidate i, once computed.
    private var later: [[Box?]]
    let passes: Int
    private let minimumAmplitude: Double
    private let noiseModel: NoiseModel?
    private struct Box { var fit: GaussianPlaneFit? }

    init(
        image: GrayImage, geometry: ColumnGeometry, noise: Double, noiseModel: NoiseModel? = nil,
        candidates: [ColumnCandidate], passes: Int = ColumnGeometry.passes
    ) {
        self.passes = max(1, passes)
        self.noiseModel = noiseModel
        minimumAmplitude = ColumnGeometry.minimumContrast * noise
        later = Array(repeating: Array(repeating: nil, count: candidates.count), count: self.passes - 1)
        self.image = image
        self.geometry = geometry
        self.candidates = candidates
        grid = CandidateGrid(candidates, cellSize: max(4, geometry.spacing))
        firstFits = Array(repeating: nil, count: candidates.count)
        fitted = Array(repeating: false, count: candidates.count)
        keptCache = Array(repeating: nil, count: candidates.count)
    }

    /// The first-pass fit of candidate i, if it is column-like.
    func firstFit(_ i: Int) -> GaussianPlaneFit? {
        if fitted[i] { return firstFits[i] }
        let c = candidates[i]
        let start = GaussianFitter.Start(x: c.startX, y: c.startY, sigma: geometry.sigmaGuess)
        let fit = fitter.fit(
            image, centreX: c.x, centreY: c.y, radius: geometry.firstWindow, start: start,
            subtracting: [])
        let result = fit.flatMap { accepts($0, from: c, significance: ColumnGeometry.firstPassSignificance) ? $0 : nil }
        firstFits[i] = result
        fitted[i] = true
        return result
    }

    /// Candidate i is column-like and no stronger column-like candidate sits within the duplicate distance.
    func isKept(_ i: Int) -> Bool {
        if let known = keptCache[i] { return known }
        var kept = false
        if let fit = firstFit(i) {
            kept = true
            let c = candidates[i]
            grid.forEach(nearX: Double(c.x), y: Double(c.y), within: geometry.duplicateSearch, candidates) { q in
                guard kept, q != i, let other = firstFit(q) else { return }
                let ex = other.x - fit.x, ey = other.y - fit.y
                if ex * ex + ey * ey < geometry.duplicateDistance * geometry.duplicateDistance
                    && (other.amplitude > fit.amplitude || (other.amplitude == fit.amplitude && q < i))
                {
                    kept = false
                }
            }
        }
        keptCache[i] = kept
        return kept
    }

    /// The refined column for candidate i, or nil if it is not a column (or a weaker duplicate of one, or its
    /// centre is outside the image).
    func refine(_ i: Int) -> AtomColumn? {
        guard let fit = fit(i, pass: passes - 1),
            fit.x >= -0.5 && fit.x <= Double(image.width) - 0.5 && fit.y >= -0.5 && fit.y <= Double(image.height) - 0.5
        else { return nil }
        return AtomColumn(
            x: fit.x, y: fit.y, peak: fit.amplitude, quality: min(1, max(0, fit.rSquared)), sigma: fit.sigma)
    }

    /// Candidate i's final fit, wherever its centre lies; nil if it is not a column.
    func localColumn(_ i: Int) -> LocalColumn? {
        fit(i, pass: passes - 1).map {
            LocalColumn(gaussian: $0.gaussian, pixelX: candidates[i].x, pixelY: candidates[i].y)
        }
    }

    /// Pass k ≥ 1: the fit of candidate i with its neighbours' pass k − 1 Gaussians subtracted.
    func fit(_ i: Int, pass: Int) -> GaussianPlaneFit? {
        if pass == 0 { return firstFit(i) }
        if let known = later[pass - 1][i] { return known.fit }
        var result: GaussianPlaneFit?
        if isKept(i), let previous = fit(i, pass: pass - 1) {
            let c = candidates[i]
            let window = geometry.secondWindow(sigma: previous.sigma)
            let wx = Int(previous.x.rounded()), wy = Int(previous.y.rounded())
            var neighbours: [(index: Int, gaussian: ColumnGaussian)] = []
            var slopes: [(index: Int, x: Double, y: Double)] = [(i, previous.slopeX, previous.slopeY)]
            let slopeReach = ColumnGeometry.slopeNeighbourhood * geometry.spacing
            grid.forEach(nearX: Double(c.x), y: Double(c.y), within: geometry.neighbourSearch, candidates) { q in
                guard q != i, isKept(q), let other = fit(q, pass: pass - 1) else { return }
                let ex = other.x - Double(wx), ey = other.y - Double(wy)
                let reach = window + 4 * other.sigma
                if ex * ex + ey * ey < reach * reach { neighbours.append((q, other.gaussian)) }
                let sx = other.x - previous.x, sy = other.y - previous.y
                if pass >= 2 && sx * sx + sy * sy <= slopeReach * slopeReach {
                    slopes.append((q, other.slopeX, other.slopeY))
                }
            }
            // A fixed order, so the subtraction and the sums round the same however the neighbours were found.
            neighbours.sort { $0.index < $1.index }
            slopes.sort { $0.index < $1.index }
            var start = GaussianFitter.Start(
                x: previous.x, y: previous.y, sigma: previous.sigma, amplitude: previous.amplitude,
                offset: previous.plane(atX: wx, y: wy), slopeX: previous.slopeX, slopeY: previous.slopeY)
            if slopes.count - 1 >= ColumnGeometry.minimumSlopeNeighbours {
                // With fewer neighbours (a corner, a lone column) the column's own window must do.
                start.slopeX = slopes.map(\.x).reduce(0, +) / Double(slopes.count)
                start.slopeY = slopes.map(\.y).reduce(0, +) / Double(slopes.count)
                start.holdsSlopes = true
            }
            result = fitter.fit(
                image, centreX: wx, centreY: wy, radius: window, start: start,
                subtracting: neighbours.map(\.gaussian), noise: noiseModel)
            if let fit = result, !accepts(fit, from: c, significance: ColumnGeometry.minimumSignificance) {
                result = nil
            }
        }
        later[pass - 1][i] = .some(Box(fit: result))
        return result
    }

    /// A fit describes a column: standing out of the noise, significant, well explained, of a plausible width and
    /// near its candidate.
    private func accepts(_ fit: GaussianPlaneFit, from c: ColumnCandidate, significance: Double) -> Bool {
        let ex = fit.x - Double(c.x), ey = fit.y - Double(c.y)
        return fit.amplitude > 0 && fit.amplitude >= minimumAmplitude
            && fit.sigma >= geometry.minimumSigma && fit.sigma <= geometry.maximumSigma
            && ex * ex + ey * ey <= geometry.maximumShift * geometry.maximumShift
            && fit.significance >= significance
            && fit.rSquared >= ColumnGeometry.minimumQuality
    }
}

/// Candidates bucketed by pixel position, for finding the ones near a point.
struct CandidateGrid: Sendable {
    private let cellSize: Double
    private let originX: Int, originY: Int
    private let columns: Int, rows: Int
    /// Candidates of cell k: order[start[k]..<start[k + 1]], in ascending index.
    private let start: [Int]
    private let order: [Int]

    init(_ candidates: [ColumnCandidate], cellSize: Double) {
        self.cellSize = cellSize
        let minX = candidates.map(\.x).min() ?? 0, maxX = candidates.map(\.x).max() ?? 0
        let minY = candidates.map(\.y).min() ?? 0, maxY = candidates.map(\.y).max() ?? 0
        originX = minX; originY = minY
        columns = Int(Double(maxX - minX) / cellSize) + 1
        rows = Int(Double(maxY - minY) / cellSize) + 1
        var counts = [Int](repeating: 0, count: columns * rows + 1)
        let columnCount = columns
        let cells = candidates.map { c in
            Int(Double(c.y - minY) / cellSize) * columnCount + Int(Double(c.x - minX) / cellSize)
        }
        for cell in cells { counts[cell + 1] += 1 }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var order = [Int](repeating: 0, count: candidates.count)
        for (i, cell) in cells.enumerated() {
            order[fill[cell]] = i
            fill[cell] += 1
        }
        start = counts
        self.order = order
    }

    /// Calls `body` with the index of every candidate whose pixel is within `radius` of (x, y).
    func forEach(
        nearX x: Double, y: Double, within radius: Double, _ candidates: [ColumnCandidate],
        _ body: (Int) -> Void
    ) {
        guard !candidates.isEmpty else { return }
        let c0 = max(0, Int(((x - radius - Double(originX)) / cellSize).rounded(.down)))
        let c1 = min(columns - 1, Int(((x + radius - Double(originX)) / cellSize).rounded(.down)))
        let r0 = max(0, Int(((y - radius - Double(originY)) / cellSize).rounded(.down)))
        let r1 = min(rows - 1, Int(((y + radius - Double(originY)) / cellSize).rounded(.down)))
        guard c0 <= c1 && r0 <= r1 else { return }
        for row in r0...r1 {
            for column in c0...c1 {
                let cell = row * columns + column
                for k in start[cell]..<start[cell + 1] {
                    let i = order[k]
                    let ex = Double(candidates[i].x) - x, ey = Double(candidates[i].y) - y
                    if ex * ex + ey * ey <= radius * radius { body(i) }
                }
            }
        }
    }
}
