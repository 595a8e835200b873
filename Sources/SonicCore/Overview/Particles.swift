import RealModule

/// A particle on a support, as the overview finds it.
public struct Particle: Sendable, Equatable {
    /// Its middle: the centroid of its pixels, in image pixels.
    public var position: ImagePoint
    /// The diameter of the disc as large as it, in pixels.
    public var diameter: Double
    /// The particles (indices among the image's) it touches.
    public var touching: [Int]
}

/// Finds the particles on a support: compact patches brighter (or, where the image's tail runs dark, darker) than
/// the even background, standing out from the noise.
///
/// The image is smoothed a little and flooded from its brightest pixel down to just above the background: a patch
/// whose peak rises far enough above where it meets a brighter one is a particle of its own (two touching particles
/// stay two), one that does not belongs to its neighbour. Each particle's size is the area of its pixels above a
/// quarter of its own height, so small faint particles and large bright ones are measured alike.
enum ParticleSearch {
    static let smoothing = 1.5
    /// A particle's edge: this share of its height over the background.
    static let edge = 0.25
    /// The flood reaches down to this many noise deviations (of the smoothed image) above the background.
    static let floodFloor = 3.0
    /// A peak meeting a brighter one is its own particle only when it rises this share of its height above the
    /// meeting place (and clears the noise).
    static let prominence = 0.1
    /// Smaller patches are not called particles: smoothed noise makes patches of about the smoothing's size.
    static let smallestDiameter = 5.0
    /// A particle fills at least this share of the disc across its longest side: bands and streaks are regions.
    static let compactness = 0.3
    /// A particle spans at most this share of the image's longer side: a wider patch is a region.
    static let widest = 0.5
    /// Particles cover less of the image than this: more, and the image is regions.
    static let largestShare = 0.5

    /// The particles of `image` (working units, per-pixel noise `noise`), largest first; nil where the image holds
    /// none, or its bright parts are not particles.
    static func find(in image: GrayImage, noise: Double) -> [Particle]? {
        let plane = Plane(image).smoothed(sigma: smoothing)
        let n = plane.values.count
        guard n > 16 else { return nil }
        let background = Plane.median(plane.values)
        // Particles stand out on the side the image's tail runs: bright in dark-field, dark in bright-field.
        let high = Plane.ranked(plane.values, n - 1 - n / 1000) - background
        let low = background - Plane.ranked(plane.values, n / 1000)
        let sign = high >= low ? 1.0 : -1.0
        let height = plane.values.map { sign * ($0 - background) }
        let deviation = noise * Plane.noiseFactor(sigma: smoothing)
        // As many tests as pixels: the smoothed noise's maxima are more than its independent patches.
        let significant = Significance.threshold(tests: n) * deviation
        let floor = floodFloor * deviation
        let w = plane.width, h = plane.height
        var order = (0..<n).filter { height[$0] > floor }
        order.sort { height[$0] > height[$1] }
        // Union-find over flooded patches: each root holds its peak.
        var label = [Int](repeating: -1, count: n)
        var parent: [Int] = [], peak: [Double] = []
        func root(_ k: Int) -> Int {
            var k = k
            while parent[k] != k {
                parent[k] = parent[parent[k]]
                k = parent[k]
            }
            return k
        }
        var meetings: [(Int, Int)] = []
        for pixel in order {
            let x = pixel % w, y = pixel / w
            var roots: [Int] = []
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
            where nx >= 0 && nx < w && ny >= 0 && ny < h && label[ny * w + nx] >= 0 {
                let r = root(label[ny * w + nx])
                if !roots.contains(r) { roots.append(r) }
            }
            guard !roots.isEmpty else {
                label[pixel] = parent.count
                parent.append(parent.count)
                peak.append(height[pixel])
                continue
            }
            roots.sort { peak[$0] > peak[$1] }
            let main = roots[0]
            label[pixel] = main
            for other in roots.dropFirst() {
                let rise = peak[other] - height[pixel]
                if rise < max(significant, prominence * peak[other]) {
                    parent[other] = main
                } else {
                    meetings.append((main, other))
                }
            }
        }
        // Each significant patch: its pixels above its edge.
        struct Patch {
            var area = 0, sumX = 0.0, sumY = 0.0
            var minX = Int.max, maxX = Int.min, minY = Int.max, maxY = Int.min
        }
        var patches: [Int: Patch] = [:]
        for pixel in order {
            let r = root(label[pixel])
            guard peak[r] >= significant, height[pixel] >= max(floor, edge * peak[r]) else { continue }
            let x = pixel % w, y = pixel / w
            var patch = patches[r] ?? Patch()
            patch.area += 1
            patch.sumX += Double(x)
            patch.sumY += Double(y)
            patch.minX = min(patch.minX, x); patch.maxX = max(patch.maxX, x)
            patch.minY = min(patch.minY, y); patch.maxY = max(patch.maxY, y)
            patches[r] = patch
        }
        guard !patches.isEmpty else { return nil }
        var compactArea = 0, otherArea = 0
        var found: [(root: Int, particle: Particle)] = []
        for (r, patch) in patches {
            let diameter = 2 * (Double(patch.area) / Double.pi).squareRoot()
            let longest = Double(max(patch.maxX - patch.minX, patch.maxY - patch.minY) + 1)
            let filled = Double(patch.area) / (Double.pi / 4 * longest * longest)
            guard filled >= compactness, longest <= widest * Double(max(w, h)) else {
                otherArea += patch.area
                continue
            }
            guard diameter >= smallestDiameter else { continue }
            compactArea += patch.area
            let middle = ImagePoint(x: patch.sumX / Double(patch.area), y: patch.sumY / Double(patch.area))
            found.append((r, Particle(position: middle, diameter: diameter, touching: [])))
        }
        guard !found.isEmpty, otherArea < compactArea, Double(compactArea) < largestShare * Double(n) else {
            return nil
        }
        found.sort { $0.particle.diameter > $1.particle.diameter }
        let index = Dictionary(uniqueKeysWithValues: found.enumerated().map { ($1.root, $0) })
        var particles = found.map(\.particle)
        for (first, second) in meetings {
            guard let i = index[root(first)], let j = index[root(second)], i != j else { continue }
            if !particles[i].touching.contains(j) { particles[i].touching.append(j) }
            if !particles[j].touching.contains(i) { particles[j].touching.append(i) }
        }
        for k in particles.indices { particles[k].touching.sort() }
        return particles
    }
}
