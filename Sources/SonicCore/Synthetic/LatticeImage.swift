import RealModule

/// A synthetic atomic-resolution image: Gaussian atom columns on a lattice over a sloping background,
/// with shot and read noise. The true column centres are kept, for checking anything that measures them.
public struct LatticeImage: Sendable {
    /// One atom column site in the unit cell: fractional position and peak height above background.
    public struct Site: Sendable {
        public var u: Double, v: Double, height: Double
        public init(u: Double, v: Double, height: Double) { self.u = u; self.v = v; self.height = height }
    }

    /// One lattice site: the cell (i, j) (multiples of `a` and `b` from the origin) and the index of the site in `sites`.
    public struct SiteIndex: Hashable, Sendable {
        public var i: Int, j: Int, site: Int
        public init(i: Int, j: Int, site: Int = 0) { self.i = i; self.j = j; self.site = site }
    }

    /// A lattice site in the image: where it is, how high its column is, and whether the column is there.
    public struct SitePosition: Sendable {
        public var index: SiteIndex
        public var x: Double, y: Double, height: Double
        public var isVacant: Bool
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
    /// Sites left empty: no column is rendered there, and `columns` leaves them out.
    public var vacancies: Set<SiteIndex>
    /// Columns higher or lower than their site's height (a dopant, a heavier atom): the factor on its height.
    public var heightFactors: [SiteIndex: Double]
    /// Columns off their ideal site (a polar displacement, strain): how far, in pixels.
    public var shifts: [SiteIndex: (x: Double, y: Double)]
    /// The part of the image the crystal fills; nil for all of it. Sites whose ideal position lies outside hold no
    /// column, as where the specimen is amorphous or there is none.
    public var crystal: ImagePolygon?
    /// Gaussians off the lattice, each of its own height and width: interstitial atoms, amorphous material.
    public var blobs: [Blob] = []
    /// How the columns' heights change per pixel from the image centre, as a share of their site's height: a
    /// specimen that grows thicker across the image.
    public var thicknessSlope: (x: Double, y: Double) = (0, 0)

    /// A Gaussian spot off the lattice.
    public struct Blob: Sendable {
        public var x: Double, y: Double, height: Double, sigma: Double
        public init(x: Double, y: Double, height: Double, sigma: Double) {
            self.x = x; self.y = y; self.height = height; self.sigma = sigma
        }
    }

    public init(
        width: Int, height: Int, a: (x: Double, y: Double), b: (x: Double, y: Double),
        origin: (x: Double, y: Double), sites: [Site], sigma: Double, background: Double,
        backgroundSlope: (x: Double, y: Double), doseScale: Double, readNoise: Double, seed: UInt64,
        vacancies: Set<SiteIndex> = [], heightFactors: [SiteIndex: Double] = [:],
        shifts: [SiteIndex: (x: Double, y: Double)] = [:]
    ) {
        self.width = width; self.height = height; self.a = a; self.b = b; self.origin = origin
        self.sites = sites; self.sigma = sigma; self.background = background
        self.backgroundSlope = backgroundSlope; self.doseScale = doseScale; self.readNoise = readNoise
        self.seed = seed; self.vacancies = vacancies; self.heightFactors = heightFactors; self.shifts = shifts
    }

    /// Every column centre (image coordinates) and its peak height, inside the image.
    public var columns: [(x: Double, y: Double, height: Double)] { columns(margin: 0) }

    /// Column centres up to `margin` pixels outside the image too (a column just outside still lights the edge).
    public func columns(margin: Double) -> [(x: Double, y: Double, height: Double)] {
        sitePositions(margin: margin).filter { !$0.isVacant }.map { ($0.x, $0.y, $0.height) }
    }

    /// The positions of the vacant sites inside the image.
    public var vacancyPositions: [(x: Double, y: Double)] {
        sitePositions(margin: 0).filter(\.isVacant).map { ($0.x, $0.y) }
    }

    /// Every lattice site up to `margin` pixels outside the image, occupied or vacant.
    public func sitePositions(margin: Double) -> [SitePosition] {
        // Enough cells to cover the image from any origin and any lattice orientation.
        let reach =
            Int(
                (Double(width + height + 2 * Int(margin.rounded(.up)) + abs(Int(origin.x)) + abs(Int(origin.y)))
                    / min(Self.length(a), Self.length(b))).rounded(.up)) + 2
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        var result: [SitePosition] = []
        for i in -reach...reach {
            for j in -reach...reach {
                for (s, site) in sites.enumerated() {
                    let index = SiteIndex(i: i, j: j, site: s)
                    let p = (Double(i) + site.u, Double(j) + site.v)
                    let ideal = ImagePoint(x: origin.x + p.0 * a.x + p.1 * b.x, y: origin.y + p.0 * a.y + p.1 * b.y)
                    let shift = shifts[index] ?? (0, 0)
                    let x = ideal.x + shift.x, y = ideal.y + shift.y
                    if x >= -0.5 - margin && x < Double(width) - 0.5 + margin
                        && y >= -0.5 - margin && y < Double(height) - 0.5 + margin
                        && crystal?.contains(ideal) ?? true
                    {
                        let thickness = 1 + thicknessSlope.x * (x - cx) + thicknessSlope.y * (y - cy)
                        result.append(
                            SitePosition(
                                index: index, x: x, y: y,
                                height: site.height * (heightFactors[index] ?? 1) * thickness,
                                isVacant: vacancies.contains(index)))
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
                intensity[y * width + x] =
                    background + backgroundSlope.x * (Double(x) - cx)
                    + backgroundSlope.y * (Double(y) - cy)
            }
        }
        // Columns just outside the image still light its edge.
        let spots =
            columns(margin: (4 * sigma).rounded(.up)).map { Blob(x: $0.x, y: $0.y, height: $0.height, sigma: sigma) }
            + blobs
        for spot in spots {
            let radius = Int((4 * spot.sigma).rounded(.up))
            let twoSigmaSquared = 2 * spot.sigma * spot.sigma
            let x0 = max(0, Int(spot.x.rounded()) - radius), x1 = min(width - 1, Int(spot.x.rounded()) + radius)
            let y0 = max(0, Int(spot.y.rounded()) - radius), y1 = min(height - 1, Int(spot.y.rounded()) + radius)
            guard x0 <= x1 && y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    let dx = Double(x) - spot.x, dy = Double(y) - spot.y
                    intensity[y * width + x] += spot.height * Double.exp(-(dx * dx + dy * dy) / twoSigmaSquared)
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

extension LatticeImage {
    /// How the columns are arranged.
    public enum Arrangement: Sendable, Equatable {
        /// One column per square cell.
        case square
        /// Triangular lattice: every column has six nearest neighbours.
        case hexagonal
        /// Perovskite-like projection: heavy columns at the square cell's corners, light ones at its centre,
        /// `lightRatio` times as high.
        case twoSublattice(lightRatio: Double)
    }

    /// A lattice of the given arrangement whose nearest-neighbour column distance is `spacing` pixels,
    /// turned by `angle` radians, with the cell origin at `origin`; `peak` is the height of the (heavy) columns.
    public init(
        _ arrangement: Arrangement, width: Int, height: Int, spacing: Double, angle: Double,
        origin: (x: Double, y: Double), sigma: Double, peak: Double, background: Double,
        backgroundSlope: (x: Double, y: Double) = (0, 0), doseScale: Double, readNoise: Double,
        seed: UInt64, vacancies: Set<SiteIndex> = [], heightFactors: [SiteIndex: Double] = [:],
        shifts: [SiteIndex: (x: Double, y: Double)] = [:]
    ) {
        let c = Double.cos(angle), s = Double.sin(angle)
        let cell: Double, bAngle: Double, sites: [Site]
        switch arrangement {
        case .square:
            cell = spacing; bAngle = Double.pi / 2
            sites = [Site(u: 0, v: 0, height: peak)]
        case .hexagonal:
            cell = spacing; bAngle = Double.pi / 3
            sites = [Site(u: 0, v: 0, height: peak)]
        case .twoSublattice(let lightRatio):
            cell = spacing * 2.0.squareRoot(); bAngle = Double.pi / 2
            sites = [Site(u: 0, v: 0, height: peak), Site(u: 0.5, v: 0.5, height: peak * lightRatio)]
        }
        let cb = Double.cos(angle + bAngle), sb = Double.sin(angle + bAngle)
        self.init(
            width: width, height: height, a: (cell * c, cell * s), b: (cell * cb, cell * sb),
            origin: origin, sites: sites, sigma: sigma, background: background,
            backgroundSlope: backgroundSlope, doseScale: doseScale, readNoise: readNoise, seed: seed,
            vacancies: vacancies, heightFactors: heightFactors, shifts: shifts)
    }
}
