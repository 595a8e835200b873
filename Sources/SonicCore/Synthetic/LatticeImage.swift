import RealModule

/// A synthetic atomic-resolution image: Gaussian atom columns on a lattice over a sloping background,
/// with shot and read noise. The true column centres are kept, for checking anything that measures them.
public struct LatticeImage: Sendable {
    /// One atom column site in the unit cell: fractional position and peak height above background.
    public struct Site: Sendable {
        public var u: Double, v: Double, height: Double
        public init(u: Double, v: Double, height: Double) { self.u = u; self.v = v; self.height = height }
    }

    public var width: Int
    public var height: Int
    /// Lattice vectors in pixels, and the position of the cell origin.
    public var a: (x: Double, y: Double)
    public var b: (x: Double, y: Double)
    public var origin: (x: Double, y: Double)
    public var sites: [Site]
    /// Gaussian width of a column, in pixels.
    public var sigma: Double
    /// Background level at the image centre, and its change per pixel in x and y.
    public var background: Double
    public var backgroundSlope: (x: Double, y: Double)
    /// Electrons per intensity unit for shot noise (0 = none), and the read-noise standard deviation.
    public var doseScale: Double
    public var readNoise: Double
    public var seed: UInt64

    public init(width: Int, height: Int, a: (x: Double, y: Double), b: (x: Double, y: Double),
                origin: (x: Double, y: Double), sites: [Site], sigma: Double, background: Double,
                backgroundSlope: (x: Double, y: Double), doseScale: Double, readNoise: Double, seed: UInt64) {
        self.width = width; self.height = height; self.a = a; self.b = b; self.origin = origin
        self.sites = sites; self.sigma = sigma; self.background = background
        self.backgroundSlope = backgroundSlope; self.doseScale = doseScale; self.readNoise = readNoise
        self.seed = seed
    }

    /// Every column centre (image coordinates) and its peak height, inside the image.
    public var columns: [(x: Double, y: Double, height: Double)] { columns(margin: 0) }

    /// Column centres up to `margin` pixels outside the image too.
    private func columns(margin: Double) -> [(x: Double, y: Double, height: Double)] {
        // Enough cells to cover the image from any origin and any lattice orientation.
        let reach = Int((Double(width + height + 2 * Int(margin.rounded(.up)) + abs(Int(origin.x)) + abs(Int(origin.y)))
            / min(Self.length(a), Self.length(b))).rounded(.up)) + 2
        var result: [(x: Double, y: Double, height: Double)] = []
        for i in -reach...reach {
            for j in -reach...reach {
                for site in sites {
                    let p = (Double(i) + site.u, Double(j) + site.v)
                    let x = origin.x + p.0 * a.x + p.1 * b.x
                    let y = origin.y + p.0 * a.y + p.1 * b.y
                    if x >= -0.5 - margin && x < Double(width) - 0.5 + margin
                        && y >= -0.5 - margin && y < Double(height) - 0.5 + margin {
                        result.append((x, y, site.height))
                    }
                }
            }
        }
        return result
    }

    /// Renders the noise-free intensities, adds noise and quantizes to 16 bits.
    public func render() -> GrayImage {
        var intensity = [Double](repeating: 0, count: width * height)
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        for y in 0..<height {
            for x in 0..<width {
                intensity[y * width + x] = background + backgroundSlope.x * (Double(x) - cx)
                    + backgroundSlope.y * (Double(y) - cy)
            }
        }
        let radius = Int((4 * sigma).rounded(.up))
        let twoSigmaSquared = 2 * sigma * sigma
        // Columns just outside the image still light its edge.
        for column in columns(margin: Double(radius)) {
            let xs = max(0, Int(column.x.rounded()) - radius)...min(width - 1, Int(column.x.rounded()) + radius)
            let ys = max(0, Int(column.y.rounded()) - radius)...min(height - 1, Int(column.y.rounded()) + radius)
            for y in ys {
                for x in xs {
                    let dx = Double(x) - column.x, dy = Double(y) - column.y
                    intensity[y * width + x] += column.height * Double.exp(-(dx * dx + dy * dy) / twoSigmaSquared)
                }
            }
        }
        var random = SeededRandom(seed: seed)
        let samples = intensity.map { value -> UInt16 in
            var noisy = value
            if doseScale > 0 { noisy = random.poisson(max(0, value) * doseScale) / doseScale }
            if readNoise > 0 { noisy += readNoise * random.gaussian() }
            return UInt16(min(max(noisy.rounded(), 0), 65535))
        }
        return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
    }

    private static func length(_ v: (x: Double, y: Double)) -> Double { (v.x * v.x + v.y * v.y).squareRoot() }
}
