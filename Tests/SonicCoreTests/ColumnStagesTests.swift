import Testing

@testable import SonicCore

/// The column search's stages, each on its own: the spacing, the filters, the residual's peaks, the synthetic
/// lattices the other tests measure against.
@Suite struct ColumnStagesTests {
    /// A weak sublattice shows in the autocorrelation only as a shoulder on the central peak (wide columns) or as a
    /// peak weaker than its flank's noise (high noise): the spacing is still its distance, not the strong columns'.
    @Test(arguments: [(5.0, 16.0, 20.8, UInt64(2)), (5, 16, 5.5, 3), (5, 40, 17.9, 2), (4, 40, 17.9, 2)])
    func weakSublatticeSetsTheSpacing(_ sigma: Double, _ spacing: Double, _ angle: Double, _ seed: UInt64) throws {
        let scenario = LatticeScenario(
            arrangement: .twoSublattice(lightRatio: 0.5), size: 256, spacing: spacing, sigma: sigma,
            noise: .high, angleDegrees: angle, seed: seed)
        let estimate = try #require(SpacingEstimator.estimate(scenario.lattice().render()))
        #expect(abs(estimate / spacing - 1) < 0.01, "spacing \(estimate) for \(spacing)")
    }

    /// Columns far apart leave the autocorrelation flat between its peaks, where noise makes shoulders of its own;
    /// a shoulder counts only when the cell averaged over the image shows a column there.
    @Test(arguments: [2.0, 3, 4, 5])
    func noiseMakesNoSublattice(_ sigma: Double) throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            let scenario = LatticeScenario(
                arrangement: .twoSublattice(lightRatio: 0.3), size: 384, spacing: 40, sigma: sigma,
                noise: .high, angleDegrees: 3.1 + 13.3 * Double(seed), seed: seed)
            let estimate = try #require(SpacingEstimator.estimate(scenario.withVacancies.render()))
            #expect(abs(estimate / 40 - 1) < 0.003, "\(scenario): spacing \(estimate)")
        }
    }

    /// The residual's matched filter: a lone bump comes out where it is and as high as it is; noise alone, never
    /// five standard errors high.
    @Test func residualPeaksAreColumnHeightsAboveTheNoise() {
        let width = 64, height = 48, sigma = 3.0, noise = 10.0
        var random = SeededRandom(seed: 5)
        var bare = [Double](repeating: 0, count: width * height)
        for k in bare.indices { bare[k] = noise * random.gaussian() }
        var bump = bare
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - 30.4, dy = Double(y) - 20.7
                bump[y * width + x] += 100 * Double.exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
            }
        }
        func peaks(_ residual: [Double]) -> [ResidualPeaks.Peak] {
            ResidualPeaks.find(
                in: residual, width: width, height: height, sigma: sigma, noise: noise, minimumHeight: 0,
                significance: 5, suppression: 4)
        }
        let found = peaks(bump)
        #expect(found.count == 1)
        if let peak = found.first {
            #expect(abs(peak.x - 30.4) < 0.3 && abs(peak.y - 20.7) < 0.3, "at \(peak.x), \(peak.y)")
            #expect(abs(peak.height / 100 - 1) < 0.1, "height \(peak.height)")
        }
        #expect(peaks(bare).isEmpty)
    }

    @Test func syntheticLatticesKeepTheirGroundTruth() {
        let square = LatticeScenario(arrangement: .square, size: 200, spacing: 20, sigma: 2, noise: .low).lattice()
        let sites = square.sitePositions(margin: 0)
        let removed = sites[sites.count / 2]
        var holed = square
        holed.vacancies = [removed.index]
        holed.doseScale = 0; holed.readNoise = 0; holed.backgroundSlope = (0, 0)
        #expect(holed.columns.count == square.columns.count - 1)
        #expect(holed.vacancyPositions.count == 1)
        #expect(holed.vacancyPositions[0].x == removed.x && holed.vacancyPositions[0].y == removed.y)
        let image = holed.render()
        // Bare background (within the neighbours' far tails) where the column was.
        #expect(abs(Double(image[Int(removed.x.rounded()), Int(removed.y.rounded())]) - 5000) < 5)

        // Nearest-neighbour distances: the asked spacing; hexagonal has six neighbours, the two-sublattice four.
        for (arrangement, neighbours) in [
            (LatticeImage.Arrangement.square, 4), (.hexagonal, 6),
            (.twoSublattice(lightRatio: 0.4), 4)
        ] {
            let lattice = LatticeScenario(arrangement: arrangement, size: 200, spacing: 20, sigma: 2, noise: .low)
                .lattice()
            let columns = lattice.columns
            let centre = columns.min { distance(($0.x, $0.y), (100, 100)) < distance(($1.x, $1.y), (100, 100)) }!
            let distances = columns.map { distance(($0.x, $0.y), (centre.x, centre.y)) }.filter { $0 > 0 }
            #expect(abs(distances.min()! - 20) < 1e-9)
            #expect(distances.filter { abs($0 - 20) < 1e-6 }.count == neighbours)
        }
    }

    @Test func autocorrelationMatchesTheDirectSum() {
        var random = SeededRandom(seed: 8)
        let w = 5, h = 3
        let data = (0..<(w * h)).map { _ in random.gaussian() }
        let fft = FFT2D(width: 16, height: 8)
        let result = fft.autocorrelation(of: data, dataWidth: w, dataHeight: h)
        for ty in -(h - 1)...(h - 1) {
            for tx in -(w - 1)...(w - 1) {
                var direct = 0.0
                for y in 0..<h {
                    for x in 0..<w where (0..<w).contains(x + tx) && (0..<h).contains(y + ty) {
                        direct += data[y * w + x] * data[(y + ty) * w + x + tx]
                    }
                }
                #expect(abs(result[((ty + 8) % 8) * 16 + (tx + 16) % 16] - direct) < 1e-12)
            }
        }
    }

    @Test func bandPassIsTheSameInAPatchAsInTheWholeImage() {
        let image = LatticeScenario(arrangement: .hexagonal, size: 160, spacing: 16, sigma: 2, noise: .high).lattice()
            .render()
        let filter = BandPass(spacing: 16)
        let whole = filter.filter(image, xs: 0..<160, ys: 0..<160, outColumns: 0..<160, outRows: 0..<160)
        let s = filter.support
        // A patch cut inside the image: equal to the last bit away from its cut sides.
        let patch = filter.filter(
            image, xs: 30..<(70 + 2 * s), ys: 0..<(50 + s), outColumns: (30 + s)..<(70 + s),
            outRows: 0..<50)
        var equal = true
        for y in 0..<50 {
            for x in 0..<40 where patch[y * 40 + x] != whole[y * 160 + x + 30 + s] { equal = false }
        }
        #expect(equal)
    }

    @Test func noiseLevelIsTheGaussianSigma() {
        var random = SeededRandom(seed: 9)
        // Noise on a steep ramp: the mask ignores planes.
        let samples = (0..<(300 * 300)).map { i in
            UInt16((10_000 + Double(i % 300) * 20 + 100 * random.gaussian()).rounded())
        }
        let estimate = NoiseLevel.estimate(GrayImage(width: 300, height: 300, bitDepth: 16, samples: samples))
        #expect(abs(estimate / 100 - 1) < 0.05, "\(estimate)")
    }
}
