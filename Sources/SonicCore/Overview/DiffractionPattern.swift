import RealModule

/// A diffraction pattern as the overview reads it: the direct beam, the spots around it and the reciprocal lattice
/// they lie on, or the rings.
///
/// An image is taken for one when its file calibrates it in reciprocal lengths, or when one bright beam outshines
/// all else and spots on a lattice (with their Friedel mates across the beam) or even rings lie around it.
public struct DiffractionPattern: Sendable {
    public struct Spot: Sendable, Equatable {
        public var position: ImagePoint
        /// Its integrated intensity over the background round it, in the file's units times pixels.
        public var intensity: Double
    }

    /// The reciprocal lattice the spots lie on: its two shortest vectors, in pixels.
    public struct SpotLattice: Sendable {
        public var g1: PixelVector, g2: PixelVector
        public var kind: LatticeDescription.Kind
        /// The angle between g1 and g2, in degrees (90 or more).
        public var gamma: Double
        /// How far g1 is turned from the x axis, clockwise as seen, within the lattice's symmetry.
        public var rotation: Double
        /// How many of the spots it indexes.
        public var indexed: Int
    }

    /// The direct beam's centre: where the lattice's origin (or the rings' centre) lies; nil where the beam is not in
    /// the image (a calibrated pattern's crop).
    public let centre: ImagePoint?
    /// Strongest first.
    public let spots: [Spot]
    public let lattice: SpotLattice?
    /// The rings' radii in pixels, innermost first; empty for a spot pattern.
    public let rings: [Double]
    /// Reciprocal nanometres a pixel, from the file's calibration.
    public let reciprocalPerPixel: Double?
    /// Without a beam: the pattern's bright and dark regions.
    public let regions: ImageRegions?

    init(
        centre: ImagePoint?, spots: [Spot] = [], lattice: SpotLattice? = nil, rings: [Double] = [],
        reciprocalPerPixel: Double?, regions: ImageRegions? = nil
    ) {
        self.centre = centre; self.spots = spots; self.lattice = lattice; self.rings = rings
        self.reciprocalPerPixel = reciprocalPerPixel; self.regions = regions
    }

    /// d spacing, in picometres, of a reciprocal length of `pixels`: nil without a calibration.
    public func dPicometres(_ pixels: Double) -> Double? {
        reciprocalPerPixel.map { 1000 / (pixels * $0) }
    }

    /// The pattern of the image `finder` searched, d spacings with a reciprocal calibration (reciprocal nanometres a
    /// pixel); nil where the image is not a diffraction pattern.
    public init?(finder: ColumnFinder, reciprocalPerPixel: Double?) {
        guard
            let pattern = Self.find(
                in: finder.image, noise: finder.noise, scale: finder.range.scale,
                reciprocalPerPixel: reciprocalPerPixel)
        else { return nil }
        self = pattern
    }

    static let smoothing = 1.0
    /// Without a reciprocal calibration the beam must outshine the rest: fewer pixels than this share reach a
    /// quarter of its height.
    static let beamShare = 0.01
    /// A spot is the brightest within this many pixels.
    static let spotReach = 3
    /// A spot lies on the lattice when within this many pixels (or this share of the shortest vector) of a node.
    static let nodeReach = 1.5, nodeShare = 0.08
    /// Without a calibration a lattice must index at least this many spots, and this share of them.
    static let fewestIndexed = 6, indexedShare = 0.7
    /// A ring's sectors each hold at least this share of its mean rise: a ring, not a few spots.
    static let sectorShare = 0.25, sectors = 12

    /// The pattern of `image` (working units, per-pixel noise `noise`, `scale` file units per working unit); nil
    /// where the image is not a diffraction pattern.
    static func find(in image: GrayImage, noise: Double, scale: Double, reciprocalPerPixel: Double?)
        -> DiffractionPattern?
    {
        let calibrated = reciprocalPerPixel != nil
        let w = image.width, h = image.height
        guard w >= 16 && h >= 16 else { return nil }
        let plane = Plane(image).smoothed(sigma: smoothing)
        let n = plane.values.count
        let floor = Plane.median(plane.values)
        guard let brightest = plane.values.indices.max(by: { plane.values[$0] < plane.values[$1] }) else { return nil }
        let beamHeight = plane.values[brightest] - floor
        guard beamHeight > 0 else { return nil }
        if !calibrated {
            let bright = plane.values.reduce(0) { $0 + ($1 - floor > 0.25 * beamHeight ? 1 : 0) }
            guard Double(bright) < beamShare * Double(n) else { return nil }
        }
        guard let beam = Self.beam(plane, at: brightest, floor: floor, height: beamHeight) else {
            // A calibrated pattern without its beam (a crop): told by its regions.
            return calibrated
                ? DiffractionPattern(
                    centre: nil, reciprocalPerPixel: reciprocalPerPixel, regions: ImageRegions(image, noise: noise))
                : nil
        }
        // The radial median about the beam: the diffuse background and the rings, not the spots.
        let radial = Self.radialMedian(plane, about: beam)
        // The beam's reach: four times where the radial median falls below half its height.
        let halfWidth = Double(radial.firstIndex { $0 - floor < 0.5 * beamHeight } ?? 1)
        let excluded = max(4, 4 * halfWidth)
        let spots = Self.spots(plane, about: beam, radial: radial, excluded: excluded, scale: scale)
        let fitted = Self.lattice(spots.map(\.position), about: beam)
        if let fitted, fitted.lattice.indexed >= (calibrated ? 4 : fewestIndexed),
            Double(fitted.lattice.indexed) >= indexedShare * Double(spots.count)
        {
            return DiffractionPattern(
                centre: fitted.centre, spots: spots, lattice: fitted.lattice, reciprocalPerPixel: reciprocalPerPixel)
        }
        let rings = Self.rings(image, about: beam, excluded: excluded)
        guard calibrated || rings.count >= 2 else { return nil }
        return DiffractionPattern(
            centre: beam, spots: rings.isEmpty ? spots : [], rings: rings, reciprocalPerPixel: reciprocalPerPixel)
    }

    /// The beam's centre: the centroid of what rises above half its height within `beamReach` pixels (or a
    /// sixteenth of the image) of its brightest pixel; nil where that part reaches the image's edge or the reach's (no beam, or one cut by the edge).
    static func beam(_ plane: Plane, at brightest: Int, floor: Double, height: Double) -> ImagePoint? {
        let bx = brightest % plane.width, by = brightest / plane.width
        let reach = max(beamReach, min(plane.width, plane.height) / 16)
        var sum = 0.0, sx = 0.0, sy = 0.0
        for y in (by - reach)...(by + reach) {
            for x in (bx - reach)...(bx + reach) {
                let inside = x >= 0 && y >= 0 && x < plane.width && y < plane.height
                let weight = inside ? plane[x, y] - floor - 0.5 * height : 0
                let rim =
                    abs(x - bx) == reach || abs(y - by) == reach || x == 0 || y == 0 || x == plane.width - 1
                    || y == plane.height - 1
                guard weight > 0 else { continue }
                if rim { return nil }
                sum += weight; sx += weight * Double(x); sy += weight * Double(y)
            }
        }
        return sum > 0 ? ImagePoint(x: sx / sum, y: sy / sum) : nil
    }

    static let beamReach = 10

    /// The median of each whole-pixel radius about `centre`.
    static func radialMedian(_ plane: Plane, about centre: ImagePoint) -> [Double] {
        var bins: [[Double]] = []
        for y in 0..<plane.height {
            for x in 0..<plane.width {
                let r = Int(Double.hypot(Double(x) - centre.x, Double(y) - centre.y).rounded())
                while bins.count <= r { bins.append([]) }
                bins[r].append(plane[x, y])
            }
        }
        var medians = bins.map { $0.isEmpty ? Double.nan : Plane.median($0) }
        for r in medians.indices where medians[r].isNaN { medians[r] = r > 0 ? medians[r - 1] : 0 }
        return medians
    }

    /// The spots: local maxima of the image less its radial median, further from the beam than `excluded`, standing
    /// out from the noise of their own ring of radii; strongest first.
    static func spots(_ plane: Plane, about centre: ImagePoint, radial: [Double], excluded: Double, scale: Double)
        -> [Spot]
    {
        let w = plane.width, h = plane.height
        var residual = plane.values
        var radius = [Int](repeating: 0, count: residual.count)
        for y in 0..<h {
            for x in 0..<w {
                let r = Int(Double.hypot(Double(x) - centre.x, Double(y) - centre.y).rounded())
                radius[y * w + x] = r
                residual[y * w + x] -= radial[r]
            }
        }
        // The noise at each radius, from the residual's spread over a ring at least 400 pixels large.
        var byRadius = [[Double]](repeating: [], count: radial.count)
        for k in residual.indices { byRadius[radius[k]].append(residual[k]) }
        var deviation = [Double](repeating: 0, count: radial.count)
        for r in radial.indices {
            var pooled: [Double] = [], reach = 0
            while pooled.count < 400 && reach < radial.count {
                pooled = (max(0, r - reach)...min(radial.count - 1, r + reach)).flatMap { byRadius[$0] }
                reach += 1
            }
            deviation[r] = max(1e-9, Significance.robustScale(pooled))
        }
        let threshold = Significance.threshold(tests: plane.tests(sigma: smoothing))
        var spots: [Spot] = []
        let reach = spotReach
        for y in reach..<(h - reach) {
            for x in reach..<(w - reach) {
                let k = y * w + x
                let value = residual[k]
                guard value > threshold * deviation[radius[k]], Double(radius[k]) > excluded else { continue }
                var isPeak = true
                search: for dy in -reach...reach {
                    for dx in -reach...reach where dx != 0 || dy != 0 {
                        let other = residual[k + dy * w + dx]
                        if other > value || (other == value && dy * w + dx < 0) {
                            isPeak = false
                            break search
                        }
                    }
                }
                guard isPeak else { continue }
                var sum = 0.0, sx = 0.0, sy = 0.0, integral = 0.0
                for dy in -reach...reach {
                    for dx in -reach...reach where dx * dx + dy * dy <= reach * reach {
                        let v = residual[k + dy * w + dx]
                        integral += v
                        if abs(dx) <= 2 && abs(dy) <= 2 && v > 0 {
                            sum += v; sx += v * Double(dx); sy += v * Double(dy)
                        }
                    }
                }
                spots.append(
                    Spot(
                        position: ImagePoint(x: Double(x) + sx / sum, y: Double(y) + sy / sum),
                        intensity: integral * scale))
            }
        }
        return spots.sorted { $0.intensity > $1.intensity }
    }

    /// The lattice that indexes most of the spots (the smallest cell among equals), from pairs of the spots nearest
    /// the beam; its vectors and the centre then fitted to every spot it indexes, by least squares.
    static func lattice(_ spots: [ImagePoint], about beam: ImagePoint) -> (centre: ImagePoint, lattice: SpotLattice)? {
        let vectors = spots.map { PixelVector(x: $0.x - beam.x, y: $0.y - beam.y) }
        let nearest = vectors.sorted { $0.length < $1.length }.prefix(10)
        func indices(_ a: PixelVector, _ b: PixelVector, origin: PixelVector) -> [(Int, Int, Int)] {
            let det = LatticeAnalysis.cross(a, b)
            let reach = max(nodeReach, nodeShare * min(a.length, b.length))
            var found: [(Int, Int, Int)] = []
            for (k, v) in vectors.enumerated() {
                let p = v - origin
                let i = ((p.x * b.y - p.y * b.x) / det).rounded(), j = ((a.x * p.y - a.y * p.x) / det).rounded()
                guard i != 0 || j != 0 else { continue }
                let node = i * a + j * b
                if (p - node).length <= reach { found.append((k, Int(i), Int(j))) }
            }
            return found
        }
        var best: (a: PixelVector, b: PixelVector, count: Int, area: Double)?
        for (m, a) in nearest.enumerated() {
            for b in nearest.dropFirst(m + 1) {
                let area = abs(LatticeAnalysis.cross(a, b))
                guard area > 0.2 * a.length * b.length else { continue }
                let count = indices(a, b, origin: .zero).count
                if best.map({ count > $0.count || (count == $0.count && area < $0.area - 1e-6) }) ?? true {
                    best = (a, b, count, area)
                }
            }
        }
        guard let best, best.count >= 3 else { return nil }
        var (a, b) = reduced(best.a, best.b)
        var origin = PixelVector.zero
        var indexed: [(Int, Int, Int)] = []
        for _ in 0..<2 {
            indexed = indices(a, b, origin: origin)
            guard indexed.count >= 3, let fit = fitted(indexed.map { (vectors[$0.0], $0.1, $0.2) }) else { return nil }
            (origin, a, b) = fit
        }
        let (oa, ob) = LatticeAnalysis.oriented(a, b)
        let shape = LatticeDescription.shape(oa, ob)
        return (
            ImagePoint(x: beam.x + origin.x, y: beam.y + origin.y),
            SpotLattice(
                g1: oa, g2: ob, kind: shape.kind, gamma: shape.gamma, rotation: shape.rotation,
                indexed: indexed.count)
        )
    }

    /// The shortest basis of the lattice `a` and `b` span (Lagrange–Gauss reduction).
    static func reduced(_ first: PixelVector, _ second: PixelVector) -> (PixelVector, PixelVector) {
        var (a, b) = first.length <= second.length ? (first, second) : (second, first)
        for _ in 0..<32 {
            let k = (LatticeAnalysis.dot(a, b) / LatticeAnalysis.dot(a, a)).rounded()
            b = b - k * a
            if b.length >= a.length { break }
            swap(&a, &b)
        }
        return (a, b)
    }

    /// The origin and vectors that put each spot (its vector from the beam, and its indices) nearest its node, by
    /// least squares; nil where the indices do not fix them.
    static func fitted(_ spots: [(PixelVector, Int, Int)]) -> (PixelVector, PixelVector, PixelVector)? {
        // Normal equations for [origin, a, b] in each coordinate: the same matrix for x and y.
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var vx = [0.0, 0, 0], vy = [0.0, 0, 0]
        for (v, i, j) in spots {
            let row = [1, Double(i), Double(j)]
            for p in 0..<3 {
                for q in 0..<3 { m[p][q] += row[p] * row[q] }
                vx[p] += row[p] * v.x
                vy[p] += row[p] * v.y
            }
        }
        guard let x = Cramer.solve(m, vx), let y = Cramer.solve(m, vy) else { return nil }
        return (PixelVector(x: x[0], y: y[0]), PixelVector(x: x[1], y: y[1]), PixelVector(x: x[2], y: y[2]))
    }

    /// The rings about `centre`: radii where the radial mean of the raw image rises above the valleys beside it by
    /// more than its noise allows, highest within 2 pixels, all round (every sector), each radius to a fraction of a
    /// pixel.
    static func rings(_ image: GrayImage, about centre: ImagePoint, excluded: Double) -> [Double] {
        let w = image.width, h = image.height
        let largest = Int(min(centre.x, centre.y, Double(w - 1) - centre.x, Double(h - 1) - centre.y))
        guard largest > Int(excluded) + 8 else { return [] }
        var sum = [Double](repeating: 0, count: largest + 1), sumSquares = sum, count = sum
        var sectorSum = [[Double]](repeating: [Double](repeating: 0, count: sectors), count: largest + 1)
        var sectorCount = sectorSum
        for y in 0..<h {
            for x in 0..<w {
                let dx = Double(x) - centre.x, dy = Double(y) - centre.y
                let r = Int(Double.hypot(dx, dy).rounded())
                guard r <= largest else { continue }
                let v = Double(image[x, y])
                sum[r] += v; sumSquares[r] += v * v; count[r] += 1
                let sector = min(
                    sectors - 1, Int((Double.atan2(y: dy, x: dx) + Double.pi) / (2 * Double.pi) * Double(sectors)))
                sectorSum[r][sector] += v
                sectorCount[r][sector] += 1
            }
        }
        let mean = sum.indices.map { count[$0] > 0 ? sum[$0] / count[$0] : 0 }
        let error = sum.indices.map { r -> Double in
            guard count[r] > 1 else { return .infinity }
            let variance = max(0, sumSquares[r] / count[r] - mean[r] * mean[r])
            return (variance / count[r]).squareRoot()
        }
        // A ring's rise: above the higher of the valleys within six pixels on either side (its prominence), so a
        // background falling away from the beam rises nowhere.
        let reach = 6
        func valley(_ r: Int) -> Double {
            max(mean[max(0, r - reach)..<r].min() ?? mean[r], mean[(r + 1)...min(largest, r + reach)].min() ?? mean[r])
        }
        // The least of six noisy values lies about two errors low.
        let threshold = Significance.threshold(tests: largest) + 2
        var radii: [Double] = []
        let first = Int(excluded.rounded(.up)) + 2
        guard first + 3 <= largest - 3 else { return [] }
        for r in first...(largest - 3) {
            let floor = valley(r)
            let rise = mean[r] - floor
            guard rise > threshold * error[r], (r - 2...r + 2).allSatisfy({ $0 == r || mean[$0] < mean[r] }) else {
                continue
            }
            // All round: every sector's mean over the ring's three radii rises above the valleys.
            let round = (0..<sectors).allSatisfy { s in
                let total = (r - 1...r + 1).reduce(0.0) { $0 + sectorSum[$1][s] }
                let pixels = (r - 1...r + 1).reduce(0.0) { $0 + sectorCount[$1][s] }
                return pixels > 0 && total / pixels - floor > sectorShare * rise
            }
            guard round else { continue }
            let (left, middle, right) = (mean[r - 1], mean[r], mean[r + 1])
            let curvature = left - 2 * middle + right
            let offset = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (left - right) / curvature)) : 0
            radii.append(Double(r) + offset)
        }
        return radii
    }
}
