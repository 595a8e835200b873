import Testing

@testable import SonicCore

/// Lattices whose noise is mostly counting noise: about 40 electrons at a column's peak height (20 000 units, so
/// 500 units per electron), read noise of 0.05× that height, over a background of 0.1–0.2× it with a ramp. A
/// peak pixel is about three times as noisy as a background pixel.
struct CountingNoiseScenario: Sendable, CustomStringConvertible {
    var arrangement: LatticeImage.Arrangement
    var spacing: Double
    var sigma: Double
    var angleDegrees: Double
    var seed: UInt64
    var size = 256

    static let peak = 20_000.0
    static let dose = 40 / peak
    static let readNoise = 0.05 * peak

    var description: String { "\(arrangement) d=\(spacing) σ=\(sigma) \(angleDegrees)°" }

    func lattice(seed offset: UInt64) -> LatticeImage {
        LatticeImage(
            arrangement, width: size, height: size, spacing: spacing, angle: angleDegrees * Double.pi / 180,
            origin: (5.37, 9.81), sigma: sigma, peak: Self.peak, background: 3_000, backgroundSlope: (3.1, -2.3),
            doseScale: Self.dose, readNoise: Self.readNoise, seed: seed &+ offset)
    }

    /// More than a spacing inside the edges.
    func isInterior(_ x: Double, _ y: Double) -> Bool {
        min(x, y, Double(size - 1) - x, Double(size - 1) - y) > spacing
    }
}

@Suite struct CountingNoiseTests {
    static let scenarios: [CountingNoiseScenario] = [
        CountingNoiseScenario(arrangement: .square, spacing: 20, sigma: 2.5, angleDegrees: 13.7, seed: 1),
        CountingNoiseScenario(arrangement: .square, spacing: 22, sigma: 3, angleDegrees: 31.3, seed: 2),
        CountingNoiseScenario(arrangement: .hexagonal, spacing: 20, sigma: 2.5, angleDegrees: 21.4, seed: 3),
        CountingNoiseScenario(arrangement: .hexagonal, spacing: 22, sigma: 3, angleDegrees: 7.9, seed: 4)
    ]

    /// Over four noise draws of the scenario, the interior columns' mean centre error over the Cramér–Rao bound's
    /// mean there. One image's hundred-odd columns leave that ratio uncertain by about 5 %; four, by about 2.5 %.
    /// These draws come out at 0.97–1.00. Over twelve sets of four draws each scenario averages 0.99–1.01, but single
    /// sets range over 0.91–1.06 (one of the 48 above 1.05), so other seeds can cross the bound by chance. With
    /// equal weights these draws come out at 1.11–1.16; weighted but with each window's own plane slopes, at
    /// 1.04–1.07.
    @Test(arguments: scenarios)
    func centreErrorsComeNearTheBoundUnderCountingNoise(_ scenario: CountingNoiseScenario) {
        let ratio = meanErrorOverBound(scenario, jointly: false)
        #expect(ratio <= 1.05, "\(scenario): mean centre error \(ratio)× the bound")
    }

    /// Overlapping columns (σ 0.2–0.25× the spacing), refined jointly.
    static let overlappingScenarios: [CountingNoiseScenario] = [
        CountingNoiseScenario(arrangement: .square, spacing: 16, sigma: 3.5, angleDegrees: 13.7, seed: 5),
        CountingNoiseScenario(arrangement: .square, spacing: 16, sigma: 4, angleDegrees: 31.3, seed: 6),
        CountingNoiseScenario(arrangement: .hexagonal, spacing: 18, sigma: 3.6, angleDegrees: 21.4, seed: 7),
        CountingNoiseScenario(arrangement: .hexagonal, spacing: 16, sigma: 4, angleDegrees: 7.9, seed: 8)
    ]

    /// As above, where the joint fit refines the columns: the bound is the joint model's, every column's centre and
    /// height, the shared width and the background together. These draws come out at 0.96–1.03; with equal weights
    /// in the joint fit, at 1.00–1.08.
    @Test(arguments: overlappingScenarios)
    func jointCentreErrorsUnderCountingNoise(_ scenario: CountingNoiseScenario) {
        let ratio = meanErrorOverBound(scenario, jointly: true)
        #expect(ratio <= 1.05, "\(scenario): mean centre error \(ratio)× the bound")
    }

    /// Over four noise draws of the scenario, the interior columns' mean centre error over the bound's mean there;
    /// every interior column must be found, and refined jointly or one at a time as `jointly` says.
    private func meanErrorOverBound(_ scenario: CountingNoiseScenario, jointly: Bool) -> Double {
        var errors: [Double] = [], bounds: [Double] = []
        for draw in 0..<UInt64(4) {
            let lattice = scenario.lattice(seed: 10 * draw)
            let finder = ColumnFinder(image: lattice.render())
            #expect(finder.jointly == jointly, "\(scenario): refined jointly \(finder.jointly)")
            let found = finder.findAll()
            let truth = lattice.columns(margin: 3 * lattice.sigma).map { (x: $0.x, y: $0.y) }
            var matched = 0
            for column in found {
                let (k, d) = nearest(truth, to: column)
                if d <= 0.3 * scenario.spacing && scenario.isInterior(truth[k].x, truth[k].y) {
                    errors.append(d)
                    matched += 1
                }
            }
            let bound = cramerRaoBound(lattice).filter { scenario.isInterior($0.x, $0.y) }
            #expect(matched == bound.count, "\(scenario): \(matched) of \(bound.count) interior columns found")
            bounds += bound.map(\.expectedError)
        }
        return (errors.reduce(0, +) / Double(errors.count)) / (bounds.reduce(0, +) / Double(bounds.count))
    }
}

@Suite struct NoiseModelTests {
    /// A ramp from 2 000 to 30 000 units, shot noise of `unit` units per electron plus read noise.
    private func ramp(unit: Double, readNoise: Double, seed: UInt64) -> GrayImage {
        var random = SeededRandom(seed: seed)
        let size = 256
        var samples: [UInt16] = []
        for y in 0..<size {
            for x in 0..<size {
                let level = 2_000 + 28_000 * Double(x + y) / Double(2 * (size - 1))
                let value = random.poisson(level / unit) * unit + readNoise * random.gaussian()
                samples.append(UInt16(min(max(value.rounded(), 0), 65535)))
            }
        }
        return GrayImage(width: size, height: size, bitDepth: 16, samples: samples)
    }

    @Test(arguments: [(500.0, 1_000.0, UInt64(1)), (50, 300, 2), (4, 40, 3)])
    func gainAndReadNoiseOfARamp(unit: Double, readNoise: Double, seed: UInt64) throws {
        let model = try #require(NoiseModel.estimate(ramp(unit: unit, readNoise: readNoise, seed: seed)))
        #expect(abs(model.gain / unit - 1) < 0.1, "gain \(model.gain), true \(unit)")
        // The read noise is what is left at the dark end once the shot noise is taken off: the smaller its share,
        // the less certain.
        let readVariance = readNoise * readNoise
        #expect(abs(model.offset - readVariance) < 0.25 * (readVariance + 2_000 * unit), "offset \(model.offset)")
    }

    /// On the lattices, where the columns' flanks and peaks are the bright pixels, the gain to within 15 %; the
    /// read-noise variance (a fifth of the background's variance) to within 40 %.
    @Test(arguments: CountingNoiseTests.scenarios)
    func gainAndReadNoiseOfALattice(_ scenario: CountingNoiseScenario) throws {
        let model = try #require(NoiseModel.estimate(scenario.lattice(seed: 0).render()))
        let gain = 1 / CountingNoiseScenario.dose, readVariance = CountingNoiseScenario.readNoise
        #expect(abs(model.gain / gain - 1) < 0.15, "gain \(model.gain), true \(gain)")
        #expect(abs(model.offset / (readVariance * readVariance) - 1) < 0.4, "offset \(model.offset)")
    }

    @Test func noModelWhereTheNoiseDoesNotGrowWithTheLevel() {
        let flat = GrayImage(width: 256, height: 256, bitDepth: 16, samples: .init(repeating: 5000, count: 256 * 256))
        #expect(NoiseModel.estimate(flat) == nil)
        // Read noise alone: as noisy at 30 000 as at 2 000.
        #expect(NoiseModel.estimate(ramp(unit: 1e-9, readNoise: 300, seed: 4)) == nil)
        let tiny = GrayImage(width: 20, height: 20, bitDepth: 16, samples: (0..<400).map { UInt16($0 * 100) })
        #expect(NoiseModel.estimate(tiny) == nil)
    }

    /// A float image in arbitrary units, offset below zero: the same model in its units (the offset takes up the
    /// shift of the zero), so the fits weigh its pixels as they weigh the counts'.
    @Test func aFloatImageGetsTheModelOfItsCounts() throws {
        let counts = ramp(unit: 500, readNoise: 1_000, seed: 5)
        let unit = 1e-5, shift = -0.04
        let scaled = GrayImage(
            width: counts.width, height: counts.height, sampleType: .float32,
            samples: counts.samples.map { Float(Double($0) * unit + shift) })
        let reference = try #require(NoiseModel.estimate(counts))
        let model = try #require(NoiseModel.estimate(scaled))
        for level in [2_000.0, 10_000, 30_000] {
            let expected = reference.variance(atMean: level) * unit * unit
            #expect(abs(model.variance(atMean: level * unit + shift) / expected - 1) < 0.01)
        }
    }
}
