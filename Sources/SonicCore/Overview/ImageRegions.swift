import RealModule

/// What an image holds where it shows no lattice, no particles and no diffraction pattern: its bright and dark
/// regions, an even rise of brightness across it, or noise alone.
///
/// Read from the means of small blocks (a 64th of the image's shorter side), each against the noise such a mean
/// has, so noise is called noise and only regions that stand out from it are said.
public struct ImageRegions: Sendable, Equatable {
    public enum Layout: Sendable, Equatable {
        /// Nothing stands out from the noise.
        case noise
        /// The brightness rises evenly (a plane explains nearly all of it) towards this way: "the upper right".
        case gradient(towards: String)
        /// One bright region, where it lies: "the top third", "the upper left corner".
        case region(place: String)
        /// Bright bands across the image (or down it), this many.
        case bandsAcross(Int)
        case bandsDown(Int)
        /// Bright patches, this many, the largest in this ninth.
        case patches(Int, largest: String)
    }

    public let layout: Layout
    /// The bright part's share of the image (0 for noise and a gradient).
    public let brightShare: Double
    /// Whether the dark part is even: its blocks differ no more than the noise lets them.
    public let evenRest: Bool

    /// A plane explaining this share of the blocks' variance makes the image an even rise.
    static let planeShare = 0.9
    /// A band spans this share of the image one way and at most half of it the other.
    static let bandSpan = 0.8
    static let blocksAcross = 64

    init(layout: Layout, brightShare: Double, evenRest: Bool) {
        self.layout = layout; self.brightShare = brightShare; self.evenRest = evenRest
    }

    /// The regions of `image` (working units, per-pixel noise `noise`).
    init(_ image: GrayImage, noise: Double) {
        let w = image.width, h = image.height
        let block = max(1, min(w, h) / Self.blocksAcross)
        let gw = w / block, gh = h / block
        guard gw >= 2 && gh >= 2 else {
            self.init(layout: .noise, brightShare: 0, evenRest: true)
            return
        }
        var means = [Double](repeating: 0, count: gw * gh)
        for y in 0..<(gh * block) {
            for x in 0..<(gw * block) { means[(y / block) * gw + x / block] += Double(image[x, y]) }
        }
        means = means.map { $0 / Double(block * block) }
        let deviation = noise / Double(block)
        let threshold = Significance.threshold(tests: means.count) * deviation
        let middle = Plane.median(means)
        guard means.contains(where: { abs($0 - middle) > threshold }) else {
            self.init(layout: .noise, brightShare: 0, evenRest: true)
            return
        }
        // An even rise: a plane over the blocks explains nearly all their variance.
        let cx = Double(gw - 1) / 2, cy = Double(gh - 1) / 2
        let average = means.reduce(0, +) / Double(means.count)
        var sxx = 0.0, syy = 0.0, sxv = 0.0, syv = 0.0, total = 0.0
        for (k, v) in means.enumerated() {
            let x = Double(k % gw) - cx, y = Double(k / gw) - cy
            sxx += x * x; syy += y * y; sxv += x * (v - average); syv += y * (v - average)
            total += (v - average) * (v - average)
        }
        let gx = sxv / sxx, gy = syv / syy
        let explained = (gx * sxv + gy * syv) / max(total, 1e-12)
        if explained >= Self.planeShare {
            let ways = ["right", "lower right", "bottom", "lower left", "left", "upper left", "top", "upper right"]
            let k = (Int((Double.atan2(y: gy, x: gx) * 180 / Double.pi / 45).rounded()) + 8) % 8
            self.init(layout: .gradient(towards: ways[k]), brightShare: 0, evenRest: true)
            return
        }
        // Bright and dark: the split that best separates the blocks' means (Otsu's).
        let sorted = means.sorted()
        var best = (score: -1.0, cut: sorted[0])
        var lowSum = 0.0
        let allSum = sorted.reduce(0, +)
        for k in 0..<(sorted.count - 1) {
            lowSum += sorted[k]
            let n0 = Double(k + 1), n1 = Double(sorted.count - k - 1)
            let difference = lowSum / n0 - (allSum - lowSum) / n1
            let score = n0 * n1 * difference * difference
            if score > best.score { best = (score, sorted[k]) }
        }
        let bright = means.map { $0 > best.cut }
        let share = Double(bright.filter { $0 }.count) / Double(means.count)
        let dark = means.filter { $0 <= best.cut }
        let even = Significance.robustScale(dark) <= 3 * deviation
        // The bright blocks' connected parts, each with its extent in blocks.
        var part = [Int](repeating: -1, count: means.count)
        var parts: [(minX: Int, maxX: Int, minY: Int, maxY: Int, blocks: [Int])] = []
        for start in means.indices where bright[start] && part[start] < 0 {
            var stack = [start], blocks: [Int] = []
            part[start] = parts.count
            while let k = stack.popLast() {
                blocks.append(k)
                let x = k % gw, y = k / gw
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && nx < gw && ny >= 0 && ny < gh && bright[ny * gw + nx] && part[ny * gw + nx] < 0 {
                    part[ny * gw + nx] = parts.count
                    stack.append(ny * gw + nx)
                }
            }
            let xs = blocks.map { $0 % gw }, ys = blocks.map { $0 / gw }
            parts.append((xs.min()!, xs.max()!, ys.min()!, ys.max()!, blocks))
        }
        let layout: Layout
        func across(_ p: (minX: Int, maxX: Int, minY: Int, maxY: Int, blocks: [Int])) -> Bool {
            Double(p.maxX - p.minX + 1) >= Self.bandSpan * Double(gw) && p.maxY - p.minY + 1 <= gh / 2
        }
        func down(_ p: (minX: Int, maxX: Int, minY: Int, maxY: Int, blocks: [Int])) -> Bool {
            Double(p.maxY - p.minY + 1) >= Self.bandSpan * Double(gh) && p.maxX - p.minX + 1 <= gw / 2
        }
        if parts.count == 1 {
            let place = Places.extent(fraction: share, width: w, height: h) { p in
                let bx = min(gw - 1, max(0, Int(p.x + 0.5) / block)), by = min(gh - 1, max(0, Int(p.y + 0.5) / block))
                return bright[by * gw + bx]
            }
            layout = .region(place: place)
        } else if parts.allSatisfy(across) {
            layout = .bandsAcross(parts.count)
        } else if parts.allSatisfy(down) {
            layout = .bandsDown(parts.count)
        } else {
            let largest = parts.max { $0.blocks.count < $1.blocks.count }!
            let x = Double(largest.blocks.map { $0 % gw }.reduce(0, +)) / Double(largest.blocks.count)
            let y = Double(largest.blocks.map { $0 / gw }.reduce(0, +)) / Double(largest.blocks.count)
            layout = .patches(
                parts.count,
                largest: Places.region(
                    of: ImagePoint(x: (x + 0.5) * Double(block) - 0.5, y: (y + 0.5) * Double(block) - 0.5), width: w,
                    height: h))
        }
        self.init(layout: layout, brightShare: share, evenRest: even)
    }
}
