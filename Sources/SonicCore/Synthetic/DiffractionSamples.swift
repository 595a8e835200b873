import RealModule

/// A diffraction pattern made for testing the overview: a bright direct beam over a diffuse background falling
/// away from it, and either spots on a reciprocal lattice or rings, with counting and read noise; calibrated in
/// reciprocal nanometres a pixel.
public struct DiffractionSample: Sendable {
    public struct Spot: Sendable {
        public var x: Double, y: Double
        /// The spot's peak over the background, in counts.
        public var height: Double
    }

    public struct Ring: Sendable {
        public var radius: Double
        /// Its peak over the background, in counts.
        public var height: Double
    }

    public var name: String
    public var noise: OverviewSamples.Noise
    public var width: Int, height: Int
    /// The direct beam's centre.
    public var centre: (x: Double, y: Double)
    public var spots: [Spot]
    public var rings: [Ring]
    /// The reciprocal lattice's vectors in pixels, for a spot pattern.
    public var g1: (x: Double, y: Double), g2: (x: Double, y: Double)
    public var reciprocalPerPixel: Double
    public var dose: Double, readNoise: Double
    public var seed: UInt64

    static let beamHeight = 60_000.0, beamSigma = 2.5
    static let spotSigma = 1.8, ringSigma = 1.5

    /// d spacing in picometres of a reciprocal length of `pixels`.
    public func dPicometres(_ pixels: Double) -> Double { 1000 / (pixels * reciprocalPerPixel) }

    public func render() -> GrayImage {
        var samples = [UInt16](repeating: 0, count: width * height)
        var random = SeededRandom(seed: seed)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - centre.x, dy = Double(y) - centre.y
                let r2 = dx * dx + dy * dy, r = r2.squareRoot()
                var value = 200 + 3000 / (1 + r2 / (40 * 40))
                value += Self.beamHeight * Double.exp(-r2 / (2 * Self.beamSigma * Self.beamSigma))
                for ring in rings {
                    let off = r - ring.radius
                    value += ring.height * Double.exp(-off * off / (2 * Self.ringSigma * Self.ringSigma))
                }
                for spot in spots where abs(spot.x - Double(x)) < 8 && abs(spot.y - Double(y)) < 8 {
                    let sx = Double(x) - spot.x, sy = Double(y) - spot.y
                    value += spot.height * Double.exp(-(sx * sx + sy * sy) / (2 * Self.spotSigma * Self.spotSigma))
                }
                let noisy = random.poisson(value * dose) / dose + readNoise * random.gaussian()
                samples[y * width + x] = UInt16(min(max(noisy.rounded(), 0), 65535))
            }
        }
        return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
    }
}

/// Diffraction patterns whose every spot and ring is known: a single crystal's spots on a square and on a hexagonal
/// reciprocal lattice, and a polycrystal's rings (gold's first five), each at low and high noise.
public enum DiffractionSamples {
    public static let size = 512

    public static func all(_ noise: OverviewSamples.Noise) -> [DiffractionSample] {
        [spots(noise, hexagonal: false), spots(noise, hexagonal: true), rings(noise)]
    }

    /// Spots of SrTiO₃'s [001] zone (a square reciprocal lattice, 2.561 reciprocal nanometres, 38 pixels, turned
    /// 7°), or of a hexagonal one as large turned 12°: every spot whose node lies within 230 pixels of the beam and
    /// 8 of the image's edge, each 2000 to 20 000 counts high, fading outwards with a structure factor drawn once.
    public static func spots(_ noise: OverviewSamples.Noise, hexagonal: Bool) -> DiffractionSample {
        let length = 38.0
        let angle = (hexagonal ? 12.0 : 7.0) * Double.pi / 180
        let between = hexagonal ? Double.pi / 3 : Double.pi / 2
        let g1 = (length * Double.cos(angle), length * Double.sin(angle))
        let g2 = (length * Double.cos(angle + between), length * Double.sin(angle + between))
        let centre = (255.3, 258.7)
        var random = SeededRandom(seed: hexagonal ? 71 : 72)
        var spots: [DiffractionSample.Spot] = []
        for i in -8...8 {
            for j in -8...8 where i != 0 || j != 0 {
                let x = centre.0 + Double(i) * g1.0 + Double(j) * g2.0
                let y = centre.1 + Double(i) * g1.1 + Double(j) * g2.1
                let r = Double.hypot(x - centre.0, y - centre.1)
                guard r <= 230, x >= 8, y >= 8, x <= Double(size - 9), y <= Double(size - 9) else { continue }
                let fading = Double.exp(-r / 120)
                let structure = 0.4 + 0.6 * random.unitInterval()
                spots.append(.init(x: x, y: y, height: max(2000, 20_000 * fading * structure)))
            }
        }
        return DiffractionSample(
            name: "\(hexagonal ? "hexagonal" : "square") spots \(noise.rawValue) noise", noise: noise, width: size,
            height: size, centre: centre, spots: spots, rings: [], g1: g1, g2: g2,
            reciprocalPerPixel: 1000 / 390.5 / length, dose: dose(noise), readNoise: readNoise(noise),
            seed: (hexagonal ? 80 : 90) &+ noise.seed)
    }

    /// Gold's first five rings, (111), (200), (220), (311) and (222): d 235.4, 203.9, 144.2, 123 and 117.7 pm, the
    /// first 60 pixels from the beam.
    public static func rings(_ noise: OverviewSamples.Noise) -> DiffractionSample {
        let first = 60.0
        let sums = [3.0, 4, 8, 11, 12]
        let heights = [3000.0, 1500, 1200, 1000, 400]
        let rings = zip(sums, heights).map { sum, height in
            DiffractionSample.Ring(radius: first * (sum / 3).squareRoot(), height: height)
        }
        return DiffractionSample(
            name: "rings \(noise.rawValue) noise", noise: noise, width: size, height: size, centre: (260.4, 251.8),
            spots: [], rings: rings, g1: (0, 0), g2: (0, 0), reciprocalPerPixel: 1000 / 235.45 / first,
            dose: dose(noise), readNoise: readNoise(noise), seed: 100 &+ noise.seed)
    }

    /// At low noise every count is an electron; at high noise every 30 counts are, with read noise: the weakest
    /// spot then stands about 7 times the noise above the background round it.
    static func dose(_ noise: OverviewSamples.Noise) -> Double { noise == .low ? 1 : 1.0 / 30 }
    static func readNoise(_ noise: OverviewSamples.Noise) -> Double { noise == .low ? 10 : 50 }
}
