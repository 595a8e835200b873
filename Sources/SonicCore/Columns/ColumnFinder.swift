import Dispatch

/// One atom column, as measured in the image.
public struct AtomColumn: Sendable, Equatable {
    /// Centre in image coordinates (sub-pixel; (0, 0) is the centre of the top-left pixel, y down).
    public var x: Double
    public var y: Double
    /// Fitted Gaussian amplitude above the local background, in the file's sample units.
    public var peak: Double
    /// 0…1: R² of the model fit around the column — how column-like the spot is.
    public var quality: Double
    /// The fitted Gaussian's width (standard deviation) in pixels.
    public var sigma: Double

    public init(x: Double, y: Double, peak: Double, quality: Double, sigma: Double) {
        self.x = x; self.y = y; self.peak = peak; self.quality = quality; self.sigma = sigma
    }

    /// The Gaussian's volume, peak × 2πσ²: what the column scatters in all, in the file's units times pixels.
    public var integratedIntensity: Double { peak * 2 * Double.pi * sigma * sigma }
}

/// Finds the atom columns of an atomic-resolution image.
///
/// - Spacing: the nearest-neighbour distance, from the first clear peak of the autocorrelation of a central crop
///   (`SpacingEstimator`); nil when the image shows no lattice.
/// - Detection: a band-pass tuned to the spacing (Gaussian σ ≈ d/8 minus σ ≈ 0.4·d), local maxima over 0.35·d, above
///   3 noise standard deviations of the band-passed image (noise from a median absolute deviation, `NoiseLevel`).
/// - Refinement: Gaussian-on-a-plane least-squares fits to the raw samples, then refits with the neighbours'
///   Gaussians subtracted, each pixel weighted by its noise where the image shows how the noise grows with the
///   level (`NoiseModel`), and once more with the plane's slopes held at those its neighbours measured; fits that
///   fail, drift, or are not significant and column-like are dropped (`ColumnRefiner`).
/// - Where the columns overlap strongly (σ ≥ 0.18·d in a central patch), that refinement is biased; there every
///   column is then refitted jointly with its neighbours, tile by tile, and the candidates it dropped, the empty
///   lattice sites and the bumps the fit leaves in its residual are tried there (`JointTiling`).
///
/// `snap` runs the same steps on a patch around the tap, so it returns what `findAll` returns for that column.
public struct ColumnFinder: Sendable {
    /// The image the search works on: see `WorkingRange`.
    let image: GrayImage
    let range: WorkingRange
    /// Estimated nearest-neighbour column spacing in pixels; nil if the image shows no lattice.
    public let spacing: Double?
    /// Estimated per-pixel noise standard deviation, in working units.
    let noise: Double
    /// How the noise grows with the level, when the image shows it clearly: the fits weight pixels by it.
    let noiseModel: NoiseModel?
    /// The columns overlap enough to be refined jointly.
    let jointly: Bool

    public init(image original: GrayImage) {
        let (image, range) = WorkingRange.map(original)
        self.image = image
        self.range = range
        let spacing = SpacingEstimator.estimate(image)
        let noise = NoiseLevel.estimate(image)
        let noiseModel = NoiseModel.estimate(image)
        self.spacing = spacing
        self.noise = noise
        self.noiseModel = noiseModel
        jointly =
            spacing.map { d in
                (Self.typicalWidth(image, spacing: d, noise: noise, noiseModel: noiseModel) ?? 0)
                    >= ColumnGeometry.jointOverlap * d
            } ?? false
    }

    /// The median width (σ) of the locally refined columns in a central patch six spacings across.
    private static func typicalWidth(_ image: GrayImage, spacing d: Double, noise: Double, noiseModel: NoiseModel?)
        -> Double?
    {
        let geometry = ColumnGeometry(spacing: d)
        let half = Int((3 * d).rounded(.up))
        let xs = max(0, image.width / 2 - half)..<min(image.width, image.width / 2 + half)
        let ys = max(0, image.height / 2 - half)..<min(image.height, image.height / 2 + half)
        let candidates = ColumnDetector(geometry: geometry, noise: noise).candidates(in: image, xs: xs, ys: ys)
        // Widths as the joint fit's start measures them: the line `jointOverlap` draws was measured on those.
        let refiner = ColumnRefiner(
            image: image, geometry: geometry, noise: noise, noiseModel: noiseModel, candidates: candidates,
            passes: ColumnGeometry.jointStartPasses)
        let widths = candidates.indices.compactMap { refiner.localColumn($0)?.gaussian.sigma }.sorted()
        return widths.isEmpty ? nil : widths[widths.count / 2]
    }

    /// Every atom column in the image, refined; in row-major order of the pixels they were found at. Empty when the
    /// image shows no lattice.
    public func findAll() -> [AtomColumn] {
        guard let spacing else { return [] }
        let geometry = ColumnGeometry(spacing: spacing)
        let detector = ColumnDetector(geometry: geometry, noise: noise)
        // Horizontal strips, so the band-passed image never has to be held whole.
        let margin = Int(geometry.suppressionRadius.rounded(.up)) + 1 + geometry.bandPass.support
        let stripHeight = max(64, 4 * margin)
        var candidates: [ColumnCandidate] = []
        var top = 0
        while top < image.height {
            let bottom = min(image.height, top + stripHeight)
            candidates += detector.candidates(in: image, xs: 0..<image.width, ys: top..<bottom)
            top = bottom
        }
        let refiner = ColumnRefiner(
            image: image, geometry: geometry, noise: noise, noiseModel: noiseModel, candidates: candidates,
            passes: jointly ? ColumnGeometry.jointStartPasses : ColumnGeometry.passes)
        let progress = WorkProgress.current
        guard jointly else {
            progress?.begin("fitting the atom columns", steps: candidates.count)
            return candidates.indices.compactMap { candidate in
                defer { progress?.advance() }
                return refiner.refine(candidate).map(range.inFileUnits)
            }
        }
        let (local, unrefined) = Self.split(candidates, by: refiner)
        let tiling = JointTiling(
            geometry: geometry, noise: noise, noiseModel: noiseModel, imageWidth: image.width,
            imageHeight: image.height)
        let tiles = tiling.allTiles
        let results = TileResults(count: tiles.count)
        let image = image
        progress?.begin("fitting the atom columns", steps: tiles.count)
        // Tiles are independent: one per core at a time.
        DispatchQueue.concurrentPerform(iterations: tiles.count) { t in
            results.store(tiling.refine(tiles[t], in: image, local: local, unrefined: unrefined), at: t)
            progress?.advance()
        }
        return Self.inFoundOrder(results.all.flatMap { $0 }).map(range.inFileUnits)
    }

    /// The candidates' local columns, and the pixels of those the local stage could not refine.
    private static func split(
        _ candidates: [ColumnCandidate], by refiner: ColumnRefiner,
        where included: (ColumnCandidate) -> Bool = { _ in true }
    )
        -> (local: [LocalColumn], unrefined: [(x: Int, y: Int)])
    {
        var local: [LocalColumn] = [], unrefined: [(x: Int, y: Int)] = []
        for i in candidates.indices where included(candidates[i]) {
            if let column = refiner.localColumn(i) {
                local.append(column)
            } else {
                unrefined.append((candidates[i].x, candidates[i].y))
            }
        }
        return (local, unrefined)
    }

    private static func inFoundOrder(_ columns: [PlacedColumn]) -> [AtomColumn] {
        columns.sorted {
            ($0.pixelY, $0.pixelX, $0.column.y, $0.column.x) < ($1.pixelY, $1.pixelX, $1.column.y, $1.column.x)
        }
        .map(\.column)
    }

    /// The column at a tapped point: the brightest column-like local maximum whose refined centre is within
    /// `radius` pixels of (x, y); nil if there is none. Looks only at a patch a few spacings wide around the point.
    /// On an image without a lattice it still looks for an isolated column, at the scale of the radius.
    public func snap(x: Double, y: Double, radius: Double) -> AtomColumn? {
        guard x.isFinite && y.isFinite && radius.isFinite && radius >= 0 else { return nil }
        // Without a lattice, the radius sets the scale (within reason: a spacing of at most 128 px).
        let geometry = ColumnGeometry(spacing: spacing ?? min(128, max(8, radius / 0.6)))
        if jointly { return snapJointly(x: x, y: y, radius: radius, geometry: geometry).map(range.inFileUnits) }
        let targetReach = radius + 2
        let reach =
            targetReach + Double(ColumnGeometry.passes - 1) * geometry.neighbourSearch + geometry.duplicateSearch
        let left = max(0, x - reach), right = min(Double(image.width - 1), x + reach)
        let top = max(0, y - reach), bottom = min(Double(image.height - 1), y + reach)
        guard left <= right && top <= bottom else { return nil }
        let xs = Int(left.rounded(.down))..<(Int(right.rounded(.up)) + 1)
        let ys = Int(top.rounded(.down))..<(Int(bottom.rounded(.up)) + 1)
        let detector = ColumnDetector(geometry: geometry, noise: noise)
        let candidates = detector.candidates(in: image, xs: xs, ys: ys)
        let refiner = ColumnRefiner(
            image: image, geometry: geometry, noise: noise, noiseModel: noiseModel, candidates: candidates)
        var best: AtomColumn?
        for (i, c) in candidates.enumerated() {
            let cx = Double(c.x) - x, cy = Double(c.y) - y
            guard cx * cx + cy * cy <= targetReach * targetReach, let column = refiner.refine(i) else { continue }
            let ex = column.x - x, ey = column.y - y
            guard ex * ex + ey * ey <= radius * radius else { continue }
            if best.map({ column.peak > $0.peak }) ?? true { best = column }
        }
        return best.map(range.inFileUnits)
    }

    /// `snap` where columns are refined jointly: the tiles whose columns could end up within the radius.
    private func snapJointly(x: Double, y: Double, radius: Double, geometry: ColumnGeometry) -> AtomColumn? {
        let tiling = JointTiling(
            geometry: geometry, noise: noise, noiseModel: noiseModel, imageWidth: image.width,
            imageHeight: image.height)
        let tiles = tiling.tiles(nearX: x, y: y, within: radius + geometry.maximumShift)
        let results = TileResults(count: tiles.count)
        let image = image, noise = noise, noiseModel = noiseModel
        // The tiles are independent, as in `findAll`: a tap at a tile corner waits for one tile per core.
        DispatchQueue.concurrentPerform(iterations: tiles.count) { t in
            // Every local column whose centre can lie in the tile's region, from a patch wide enough that they come
            // out as in the whole image.
            let (xs, ys) = tiling.region(tiles[t])
            func widened(_ range: Range<Int>, by amount: Double, limit: Int) -> Range<Int> {
                let pixels = Int(amount.rounded(.up))
                return max(0, range.lowerBound - pixels)..<min(limit, range.upperBound + pixels)
            }
            // Candidates that can move into the region, and around them every candidate their fits depend on.
            let inner = geometry.maximumShift + 1
            let outer =
                inner + Double(ColumnGeometry.jointStartPasses - 1) * geometry.neighbourSearch
                + geometry.duplicateSearch
            let detector = ColumnDetector(geometry: geometry, noise: noise)
            let candidates = detector.candidates(
                in: image, xs: widened(xs, by: outer, limit: image.width),
                ys: widened(ys, by: outer, limit: image.height))
            let refiner = ColumnRefiner(
                image: image, geometry: geometry, noise: noise, noiseModel: noiseModel, candidates: candidates,
                passes: ColumnGeometry.jointStartPasses)
            let reachXs = widened(xs, by: inner, limit: image.width),
                reachYs = widened(ys, by: inner, limit: image.height)
            let (local, unrefined) = Self.split(candidates, by: refiner) {
                reachXs.contains($0.x) && reachYs.contains($0.y)
            }
            results.store(tiling.refine(tiles[t], in: image, local: local, unrefined: unrefined), at: t)
        }
        var best: AtomColumn?
        for placed in results.all.joined() {
            let column = placed.column
            let ex = column.x - x, ey = column.y - y
            guard ex * ex + ey * ey <= radius * radius else { continue }
            if best.map({ column.peak > $0.peak }) ?? true { best = column }
        }
        return best
    }
}

/// One slot per tile, each written by exactly one worker and read after all have finished.
private final class TileResults: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<[PlacedColumn]>
    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: [])
    }
    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }
    func store(_ columns: [PlacedColumn], at index: Int) { slots[index] = columns }
    var all: [[PlacedColumn]] { Array(slots) }
}
