/// One atom column, as measured in the image.
public struct AtomColumn: Sendable, Equatable {
    /// Centre in image coordinates (sub-pixel; (0, 0) is the centre of the top-left pixel, y down).
    public var x: Double
    public var y: Double
    /// Fitted Gaussian amplitude above the local background, in raw sample units.
    public var peak: Double
    /// 0…1: R² of the local model fit — how column-like the spot is.
    public var quality: Double

    public init(x: Double, y: Double, peak: Double, quality: Double) {
        self.x = x; self.y = y; self.peak = peak; self.quality = quality
    }
}

/// Finds the atom columns of an atomic-resolution image.
///
/// - Spacing: the nearest-neighbour distance, from the first clear peak of the autocorrelation of a central crop
///   (`SpacingEstimator`); nil when the image shows no lattice.
/// - Detection: a band-pass tuned to the spacing (Gaussian σ ≈ d/8 minus σ ≈ 0.4·d), local maxima over 0.35·d, above
///   3 noise standard deviations of the band-passed image (noise from a median absolute deviation, `NoiseLevel`).
/// - Refinement: Gaussian-on-a-plane least-squares fits to the raw samples, then refits with the neighbours'
///   Gaussians subtracted; fits that fail, drift, or are not significant and column-like are dropped
///   (`ColumnRefiner`).
///
/// `snap` runs the same steps on a patch around the tap, so it returns what `findAll` returns for that column.
public struct ColumnFinder: Sendable {
    let image: GrayImage
    /// Estimated nearest-neighbour column spacing in pixels; nil if the image shows no lattice.
    public let spacing: Double?
    /// Estimated per-pixel noise standard deviation, in raw sample units.
    let noise: Double

    public init(image: GrayImage) {
        self.image = image
        spacing = SpacingEstimator.estimate(image)
        noise = NoiseLevel.estimate(image)
    }

    /// Every atom column in the image, refined; in row-major order of their candidate pixels. Empty when the image
    /// shows no lattice.
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
        let refiner = ColumnRefiner(image: image, geometry: geometry, noise: noise, candidates: candidates)
        return candidates.indices.compactMap { refiner.refine($0) }
    }

    /// The column at a tapped point: the brightest column-like local maximum whose refined centre is within
    /// `radius` pixels of (x, y); nil if there is none. Looks only at a patch a few spacings wide around the point.
    /// On an image without a lattice it still looks for an isolated column, at the scale of the radius.
    public func snap(x: Double, y: Double, radius: Double) -> AtomColumn? {
        guard x.isFinite && y.isFinite && radius.isFinite && radius >= 0 else { return nil }
        // Without a lattice, the radius sets the scale (within reason: a spacing of at most 128 px).
        let geometry = ColumnGeometry(spacing: spacing ?? min(128, max(8, radius / 0.6)))
        let targetReach = radius + 2
        let reach = targetReach + Double(ColumnGeometry.passes - 1) * geometry.neighbourSearch + geometry.duplicateSearch
        let left = max(0, x - reach), right = min(Double(image.width - 1), x + reach)
        let top = max(0, y - reach), bottom = min(Double(image.height - 1), y + reach)
        guard left <= right && top <= bottom else { return nil }
        let xs = Int(left.rounded(.down))..<(Int(right.rounded(.up)) + 1)
        let ys = Int(top.rounded(.down))..<(Int(bottom.rounded(.up)) + 1)
        let detector = ColumnDetector(geometry: geometry, noise: noise)
        let candidates = detector.candidates(in: image, xs: xs, ys: ys)
        let refiner = ColumnRefiner(image: image, geometry: geometry, noise: noise, candidates: candidates)
        var best: AtomColumn?
        for (i, c) in candidates.enumerated() {
            let cx = Double(c.x) - x, cy = Double(c.y) - y
            guard cx * cx + cy * cy <= targetReach * targetReach, let column = refiner.refine(i) else { continue }
            let ex = column.x - x, ey = column.y - y
            guard ex * ex + ey * ey <= radius * radius else { continue }
            if best.map({ column.peak > $0.peak }) ?? true { best = column }
        }
        return best
    }
}
