import RealModule

/// Particles on a support, made for testing the overview: spheres seen through, so each is brightest at its middle
/// (its thickness), blurred a little, over an even background with counting and read noise. The truth is each
/// particle's centre and diameter, and which pairs touch.
public struct ParticleSample: Sendable {
    public struct Particle: Sendable {
        public var x: Double, y: Double
        /// In pixels.
        public var diameter: Double

        public init(x: Double, y: Double, diameter: Double) { self.x = x; self.y = y; self.diameter = diameter }
    }

    public var name: String
    public var noise: OverviewSamples.Noise
    public var width: Int, height: Int
    public var particles: [Particle]
    /// Pairs of indices into `particles` that touch.
    public var touching: [(Int, Int)]
    public var pixelSize: PixelSize?
    /// Counts over the background per pixel of a particle's thickness.
    public var contrast: Double
    public var background: Double
    /// Electrons per count, and the read noise in counts.
    public var dose: Double, readNoise: Double
    public var seed: UInt64

    /// The noise-free intensities (each particle's thickness, sampled four by four within a pixel, then blurred by
    /// the probe), with counting and read noise, quantized to 16 bits.
    public func render() -> GrayImage {
        var thickness = [Double](repeating: 0, count: width * height)
        let sub = 4
        for p in particles {
            let r = p.diameter / 2
            let x0 = max(0, Int((p.x - r).rounded(.down)) - 1), x1 = min(width - 1, Int((p.x + r).rounded(.up)) + 1)
            let y0 = max(0, Int((p.y - r).rounded(.down)) - 1), y1 = min(height - 1, Int((p.y + r).rounded(.up)) + 1)
            guard x0 <= x1 && y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    var sum = 0.0
                    for j in 0..<sub {
                        for i in 0..<sub {
                            let dx = Double(x) - 0.5 + (Double(i) + 0.5) / Double(sub) - p.x
                            let dy = Double(y) - 0.5 + (Double(j) + 0.5) / Double(sub) - p.y
                            let inside = r * r - dx * dx - dy * dy
                            if inside > 0 { sum += 2 * inside.squareRoot() }
                        }
                    }
                    thickness[y * width + x] += sum / Double(sub * sub)
                }
            }
        }
        let blurred = Plane(width: width, height: height, values: thickness).smoothed(sigma: 1)
        var random = SeededRandom(seed: seed)
        let samples = blurred.values.map { t -> UInt16 in
            let value = background + contrast * t
            let noisy = random.poisson(value * dose) / dose + readNoise * random.gaussian()
            return UInt16(min(max(noisy.rounded(), 0), 65535))
        }
        return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
    }
}

/// Particle images whose every particle is known: scattered ones of many sizes, and touching pairs, each at low
/// and high noise, the same on every run.
public enum ParticleSamples {
    public static let size = 384
    /// 200 pm a pixel: the particles are 2.4 to 8 nanometres across.
    public static let pixelSize = PixelSize(picometres: 200)!

    public static func all(_ noise: OverviewSamples.Noise) -> [ParticleSample] { [scattered(noise), touching(noise)] }

    /// Fourteen particles 12 to 40 pixels across, none touching, at places drawn once from a seeded generator.
    public static func scattered(_ noise: OverviewSamples.Noise) -> ParticleSample {
        var random = SeededRandom(seed: 14)
        var particles: [ParticleSample.Particle] = []
        let diameters = (0..<14).map { 12 + 28 * Double($0) / 13 }
        for diameter in diameters.reversed() {
            while true {
                let margin = diameter / 2 + 6
                let x = margin + (Double(size) - 2 * margin) * random.unitInterval()
                let y = margin + (Double(size) - 2 * margin) * random.unitInterval()
                let clear = particles.allSatisfy {
                    Double.hypot($0.x - x, $0.y - y) > ($0.diameter + diameter) / 2 + 8
                }
                if clear {
                    particles.append(.init(x: x, y: y, diameter: diameter))
                    break
                }
            }
        }
        return sample("scattered particles", noise, particles, touching: [])
    }

    /// Three pairs of particles touching (18 and 24, 30 and 30, 14 and 20 pixels across) and three alone.
    public static func touching(_ noise: OverviewSamples.Noise) -> ParticleSample {
        func pair(_ x: Double, _ y: Double, _ d1: Double, _ d2: Double, angle: Double) -> [ParticleSample.Particle] {
            let apart = (d1 + d2) / 2, c = Double.cos(angle), s = Double.sin(angle)
            return [.init(x: x, y: y, diameter: d1), .init(x: x + apart * c, y: y + apart * s, diameter: d2)]
        }
        let particles =
            pair(60.3, 70.8, 18, 24, angle: 0.3) + pair(220.6, 90.2, 30, 30, angle: 1.2)
            + pair(90.1, 290.4, 14, 20, angle: -0.7)
            + [
                .init(x: 300.4, y: 250.7, diameter: 36), .init(x: 190.2, y: 330.5, diameter: 16),
                .init(x: 320.8, y: 50.3, diameter: 22)
            ]
        return sample("touching particles", noise, particles, touching: [(0, 1), (2, 3), (4, 5)])
    }

    /// At low noise every count is an electron over a background of 1000 (a 12-pixel particle stands 1000 above
    /// it: 30 times the noise); at high noise every 20 counts are, with read noise (the smallest stands 6 times the
    /// noise above the background).
    static func sample(
        _ name: String, _ noise: OverviewSamples.Noise, _ particles: [ParticleSample.Particle], touching: [(Int, Int)]
    ) -> ParticleSample {
        ParticleSample(
            name: "\(name) \(noise.rawValue) noise", noise: noise, width: size, height: size, particles: particles,
            touching: touching, pixelSize: pixelSize, contrast: 1000.0 / 12, background: 1000,
            dose: noise == .low ? 1 : 1.0 / 20, readNoise: noise == .low ? 20 : 100,
            seed: 30 &+ noise.seed &+ UInt64(particles.count))
    }
}
