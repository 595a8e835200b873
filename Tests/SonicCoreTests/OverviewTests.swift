import RealModule
import Testing

@testable import SonicCore

/// The distance from `p` to the course through `points` (segment by segment).
func distance(from p: ImagePoint, toCourse points: [ImagePoint]) -> Double {
    guard points.count > 1 else { return points.first.map { Double.hypot(p.x - $0.x, p.y - $0.y) } ?? .infinity }
    return zip(points, points.dropFirst()).map { a, b in
        let dx = b.x - a.x, dy = b.y - a.y
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / max(dx * dx + dy * dy, 1e-12)))
        return Double.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy)
    }.min()!
}

/// Points every `step` pixels along a course.
func pointsAlong(_ points: [ImagePoint], step: Double) -> [ImagePoint] {
    zip(points, points.dropFirst()).flatMap { a, b -> [ImagePoint] in
        let count = max(1, Int((Double.hypot(b.x - a.x, b.y - a.y) / step).rounded(.up)))
        return (0...count).map { k in
            let t = Double(k) / Double(count)
            return ImagePoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
        }
    }
}

/// An overview's features held to a sample's truth: each true feature found within its distance, by a feature of
/// its kind; whatever else was found is false.
struct OverviewAssessment {
    /// How near a found feature must be: 2 px for a column, 4 px for a vacancy, 10 px for a wall (every point of
    /// the true wall that near the found one's course, and every point of that course that near the true wall).
    static func matches(_ found: OverviewFeature, _ truth: OverviewTruth.Feature) -> Bool {
        guard found.kind == truth.kind else { return false }
        switch truth.kind {
        case .domainWall, .grainBoundary, .interface:
            return pointsAlong(truth.points, step: 2).allSatisfy { distance(from: $0, toCourse: found.points) <= 10 }
                && pointsAlong(found.points, step: 2).allSatisfy { distance(from: $0, toCourse: truth.points) <= 10 }
        case .vacancy:
            return Double.hypot(found.position.x - truth.position.x, found.position.y - truth.position.y) <= 4
        case .brightColumn, .dimColumn, .interstitial, .dislocation, .particle, .spot, .ring:
            return Double.hypot(found.position.x - truth.position.x, found.position.y - truth.position.y) <= 2
        }
    }

    var missed: [OverviewTruth.Feature] = []
    var falseFeatures: [OverviewFeature] = []

    init(_ overview: ImageOverview, _ truth: OverviewTruth) {
        var used = Set<Int>()
        for feature in truth.features {
            if let k = overview.features.indices.first(where: {
                !used.contains($0) && Self.matches(overview.features[$0], feature)
            }) {
                used.insert(k)
            } else {
                missed.append(feature)
            }
        }
        falseFeatures = overview.features.indices.filter { !used.contains($0) }.map { overview.features[$0] }
    }
}

@Suite struct OverviewTests {
    static func overview(_ sample: OverviewSample) -> ImageOverview {
        ImageOverview(image: sample.render(), pixelSize: nil)
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func everyFeatureIsFoundWhereItIsWithAtMostOneFalse(_ noise: OverviewSamples.Noise) throws {
        for sample in OverviewSamples.all(noise) {
            let overview = Self.overview(sample)
            let name = "\(sample.name), \(sample.noise) noise"
            let assessment = OverviewAssessment(overview, sample.truth)
            #expect(assessment.missed.isEmpty, "\(name): missed \(assessment.missed)\n\(overview.details)")
            #expect(assessment.falseFeatures.count <= 1, "\(name): false \(assessment.falseFeatures)")
            let crystal = try #require(overview.crystal, "\(name)")
            #expect(abs(crystal.fraction - sample.truth.crystalFraction) <= 0.05, "\(name): \(crystal.fraction)")
            #expect(overview.lattice?.kind == sample.truth.lattice, "\(name)")
            if let towards = sample.truth.brighterTowards {
                let gradient = try #require(overview.largeScale.gradient, "\(name)")
                #expect(gradient.towards.x * towards.x + gradient.towards.y * towards.y > 0.95, "\(name)")
            } else {
                #expect(overview.largeScale.gradient == nil, "\(name): \(overview.summary)")
            }
            #expect(overview.largeScale.region == nil, "\(name): \(overview.summary)")
            let words = overview.summary.joined(separator: " ").split(separator: " ").count
            #expect(words <= ImageOverview.summaryWords, "\(name): \(overview.summary)")
        }
    }

    @Test("The summary's first sentence carries the news", arguments: [OverviewSamples.Noise.low, .high])
    func theSummarysFirstSentenceCarriesTheNews(noise: OverviewSamples.Noise) {
        let sample = OverviewSamples.defects(noise)
        let defects = Self.overview(sample)
        // Every site in the image but the three vacancies, and the two interstitials.
        let columns = sample.scene.columns.count + sample.scene.blobs.count
        #expect(
            defects.summary == [
                "Square lattice with 5 bright columns, 3 dim columns, 3 vacancies and 2 interstitials.",
                "Cell a 24.0 pixels, turned 7 degrees clockwise; \(columns) columns."
            ])
        // The details: the features first, then the lattice in full.
        #expect(defects.details.first?.hasPrefix("Bright column 1 of 5") == true, "\(defects.details)")
        #expect(defects.details[13].hasPrefix("Lattice: square"), "\(defects.details)")
        // The middle band's heavy columns sit 15/18 pixel towards the top, the rest's towards the bottom.
        let polar = Self.overview(OverviewSamples.polarDomains(noise))
        #expect(
            polar.summary.first
                == "Two polar domains: in a band across the middle, sublattice 2 is displaced 0.8 pixels, towards the "
                + "top; in the rest, towards the bottom.", "\(polar.summary)")
        #expect(polar.summary.last == "No column or site stands out.")
        #expect(polar.details.contains("Two domains: walls across the image at a third and two thirds of its height."))
        let amorphous = Self.overview(OverviewSamples.crystalBesideAmorphous(noise))
        #expect(
            amorphous.summary.first
                == "Hexagonal lattice covering the left three fifths of the image, the rest amorphous, with 1 bright "
                + "column and 1 vacancy.", "\(amorphous.summary)")
        #expect(amorphous.extent == "the left three fifths")
        let thicker = Self.overview(OverviewSamples.thickerToTheRight(noise))
        #expect(thicker.extent == "all but the lower right corner")
        #expect(
            thicker.summary.first
                == "Square lattice covering all but the lower right corner of the image, the rest amorphous.",
            "\(thicker.summary)")
        #expect(thicker.summary.last?.hasSuffix("percent brighter towards the right.") == true, "\(thicker.summary)")
        // The columns' heights go from 0.7 to 1.3 times across the image, and so across the crystal's columns: 0.84 more.
        #expect(abs((thicker.largeScale.gradient?.change ?? 0) - 0.84) < 0.05)
    }

    /// A crystal in one corner with nothing but the noise beside it: the rest is said to be empty — at high noise,
    /// at least never amorphous.
    @Test(arguments: OverviewSamples.Noise.allCases)
    func aCrystalBesideNothingHasTheRestEmpty(noise: OverviewSamples.Noise) {
        var scene = LatticeImage(
            .square, width: 384, height: 384, spacing: 24, angle: 7 * Double.pi / 180, origin: (12, 12), sigma: 3.2,
            peak: 20_000, background: 500, backgroundSlope: (0, 0), doseScale: noise.dose, readNoise: noise.readNoise,
            seed: 41)
        scene.crystal = ImagePolygon([
            ImagePoint(x: -0.5, y: -0.5), ImagePoint(x: 191.5, y: -0.5), ImagePoint(x: 191.5, y: 191.5),
            ImagePoint(x: -0.5, y: 191.5)
        ])
        let overview = ImageOverview(image: scene.render(), pixelSize: nil)
        #expect(overview.surroundings != .amorphous, "\(overview.summary)")
        if noise == .low {
            #expect(
                overview.summary.first == "Square lattice covering the upper left corner of the image, the rest empty.",
                "\(overview.summary)")
        }
    }

    @Test func eachFeatureIsLabelledWithItsNumberAndItsPlace() throws {
        let sample = OverviewSamples.defects(.low)
        let overview = Self.overview(sample)
        let vacancies = overview.features.filter { $0.kind == .vacancy }
        #expect(vacancies.count == 3)
        for (k, vacancy) in vacancies.enumerated() {
            let place = Places.region(of: vacancy.position, width: 384, height: 384)
            #expect(vacancy.label == "Vacancy \(k + 1) of 3, \(place)")
        }
        // The first of the truth's vacancies, at (172.6, 271.3), is at the bottom, in the middle third across.
        #expect(Places.region(of: ImagePoint(x: 172.6, y: 271.3), width: 384, height: 384) == "bottom")
        let kinds = overview.features.map(\.kind)
        #expect(kinds == kinds.sorted(), "features in order of importance, kind by kind")
    }

    @Test func theColumnsAndTheColumnModesLeaveTheAmorphousPartOut() throws {
        let sample = OverviewSamples.crystalBesideAmorphous(.high)
        let image = sample.render()
        let columns = LatticeColumns(finding: ColumnFinder(image: image), pixelSize: nil)
        let spacing = columns.spacing
        // Well outside the crystal, whose edge runs from x 238 at the top to x 215 at the bottom.
        let amorphous = sample.scene.blobs.filter { $0.x > 238 + spacing }
        #expect(amorphous.count > 100)
        for blob in amorphous {
            let point = ImagePoint(x: blob.x, y: blob.y)
            #expect(columns.nearest(to: point, within: spacing) == nil, "a column at \(point)")
            #expect(columns.analysis.crystal?.contains(point) == false)
        }
        // Every column well inside the crystal is there.
        let inside = sample.scene.columns.filter { $0.x < 215 - spacing && min($0.x, $0.y, 383 - $0.y) > 4 }
        for column in inside {
            let found = columns.nearest(to: ImagePoint(x: column.x, y: column.y), within: 1)
            #expect(found != nil, "no column at (\(column.x), \(column.y))")
        }
        // In the column-intensity mode the pen is quiet on the amorphous spots, and sounds on the crystal's columns.
        let player = TestPlayer(image, profile: try ColumnModeTests.profile([.columnIntensity]))
        player.set(lattice: columns)
        func sounds(_ x: Double, _ y: Double) -> Bool {
            player.handle(ColumnModeTests.touch(x + 0.5, y + 0.5)).amplitude > 0
        }
        #expect(amorphous.filter { sounds($0.x, $0.y) }.isEmpty)
        #expect(inside.allSatisfy { sounds($0.x, $0.y) })
    }

    /// Columns on a 20 px square lattice at the points of a 384 × 384 image that `holds`.
    static func crystal(_ holds: (Double, Double) -> Bool) throws -> CrystalRegion {
        var columns: [AtomColumn] = []
        for j in 0..<20 {
            for i in 0..<20 {
                let x = 8 + 20 * Double(i), y = 6 + 20 * Double(j)
                if x < 384 && y < 384 && holds(x, y) {
                    columns.append(AtomColumn(x: x, y: y, peak: 1000, quality: 1, sigma: 3))
                }
            }
        }
        return try #require(LatticeAnalysis(columns: columns, spacing: 20, width: 384, height: 384).crystal)
    }

    @Test func whereTheCrystalLiesIsSaidAsABlindReaderFindsIt() throws {
        let cases: [(String, Double, (Double, Double) -> Bool)] = [
            ("the whole image", 1, { _, _ in true }),
            ("the left three fifths", 0.6, { x, _ in x < 230 }),
            ("the top third", 1.0 / 3, { _, y in y < 128 }),
            ("the right half", 0.5, { x, _ in x > 192 }),
            ("all but the lower right corner", 1 - 0.5 * 0.5 * 0.5, { x, y in x + y < 192 + 384 }),
            ("the upper left corner", 0.25, { x, y in x < 192 && y < 192 }),
            ("all but a patch at the centre", 1 - 0.3 * 0.3, { x, y in abs(x - 192) > 58 || abs(y - 192) > 58 })
        ]
        for (words, fraction, holds) in cases {
            let crystal = try Self.crystal(holds)
            #expect(Places.extent(of: crystal) == words)
            #expect(abs(crystal.fraction - fraction) < 0.04, "\(words): \(crystal.fraction)")
        }
        // The outline of the left three fifths: the image's left side, and one halfway between the last columns in
        // (x 228) and the first out (x 248).
        let left = try Self.crystal { x, _ in x < 230 }
        #expect(left.outline.points.count == 4, "\(left.outline.points)")
        #expect(left.outline.points.allSatisfy { $0.x == -0.5 || abs($0.x - 238) < 6 }, "\(left.outline.points)")
        #expect(abs(left.outline.area / (384 * 384) - left.fraction) < 0.02)
    }

    /// The lattice described from made-up columns at n·a + m·b.
    static func described(_ a: PixelVector, _ b: PixelVector) throws -> LatticeDescription {
        var columns: [AtomColumn] = []
        for m in -40...40 {
            for n in -40...40 {
                let x = 192 + Double(n) * a.x + Double(m) * b.x, y = 192 + Double(n) * a.y + Double(m) * b.y
                if x >= 0 && x < 384 && y >= 0 && y < 384 {
                    columns.append(AtomColumn(x: x, y: y, peak: 1000, quality: 1, sigma: 2))
                }
            }
        }
        let spacing = min(a.length, b.length, (a - b).length, (a + b).length)
        return try #require(
            LatticeDescription(LatticeAnalysis(columns: columns, spacing: spacing, width: 384, height: 384)))
    }

    @Test func theFivePlaneLatticesAreToldApart() throws {
        func turned(_ degrees: Double, _ length: Double) -> PixelVector {
            PixelVector(
                x: length * Double.cos(degrees * Double.pi / 180), y: length * Double.sin(degrees * Double.pi / 180))
        }
        let square = try Self.described(turned(-10, 20), turned(80, 20))
        #expect(square.kind == .square && abs(square.gamma - 90) < 1e-6 && abs(square.rotation + 10) < 1e-6)
        #expect(
            Phrases.latticeSummary(square, extent: Places.wholeImage, pixelSize: nil)
                == "Square lattice, a 20.0 pixels, turned 10 degrees anticlockwise, \(square.columns) columns.")
        let hexagonal = try Self.described(turned(25, 20), turned(85, 20))
        // Turned 25°, or −35°: the same lattice, said the shorter way round.
        #expect(
            hexagonal.kind == .hexagonal && abs(hexagonal.gamma - 120) < 1e-6 && abs(hexagonal.rotation - 25) < 1e-6)
        let rectangular = try Self.described(PixelVector(x: 20, y: 0), PixelVector(x: 0, y: 30))
        #expect(rectangular.kind == .rectangular && abs(rectangular.b - 30) < 1e-6)
        #expect(
            Phrases.latticeSummary(rectangular, extent: Places.wholeImage, pixelSize: PixelSize(picometres: 10))
                == "Rectangular lattice, a 200.0 and b 300.0 picometres, not turned, \(rectangular.columns) columns.")
        let centred = try Self.described(PixelVector(x: 20, y: 0), PixelVector(x: 10, y: 26))
        #expect(centred.kind == .centredRectangular)
        let oblique = try Self.described(PixelVector(x: 20, y: 0), PixelVector(x: 6, y: 27))
        #expect(oblique.kind == .oblique)
        #expect(abs(oblique.gamma - (180 - Double.atan2(y: 27, x: 6) * 180 / Double.pi)) < 1e-6)
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func theCountingNoiseForeseesHowFarTheColumnsScatter(_ noise: OverviewSamples.Noise) {
        // A plain square lattice: every column alike, so its intensities scatter by the noise alone.
        var sample = OverviewSamples.defects(noise).scene
        sample.vacancies = []
        sample.heightFactors = [:]
        sample.blobs = []
        let finder = ColumnFinder(image: sample.render())
        let analysis = LatticeAnalysis(finding: finder)
        let noiseModel = CountingNoise(finder, spacing: finder.spacing!)
        let interior = analysis.columns.filter {
            min($0.column.x, $0.column.y, 383 - $0.column.x, 383 - $0.column.y) > 12
        }
        let median = LatticeAnalysis.median(interior.map(\.column.integratedIntensity))
        let standardized = interior.map {
            Double.log($0.column.integratedIntensity / median) / noiseModel.relativeError(of: $0.column)
        }
        let scatter = Significance.robustScale(standardized)
        #expect(scatter > 0.9 && scatter < 1.1, "the columns scatter \(scatter) times as far as foreseen")
    }

    /// A made-up perovskite-like lattice (heavy columns 20 px apart, light ones at the cells' centres) whose light
    /// columns are shifted along y by `shift(x)` pixels.
    static func perovskite(shift: (Double) -> Double) -> LatticeAnalysis {
        var columns: [AtomColumn] = []
        for j in 0..<19 {
            for i in 0..<19 {
                let x = 10 + 20 * Double(i), y = 10 + 20 * Double(j)
                columns.append(AtomColumn(x: x, y: y, peak: 1000, quality: 1, sigma: 2.5))
                columns.append(AtomColumn(x: x + 10, y: y + 10 + shift(x + 10), peak: 400, quality: 1, sigma: 2.5))
            }
        }
        return LatticeAnalysis(columns: columns, spacing: 20 / 2.0.squareRoot(), width: 384, height: 384)
    }

    @Test func aDisplacementThatTurnsOverIsTwoDomainsAndOneThatGrowsEvenlyIsNone() throws {
        let step = try #require(
            PolarDomains.find(in: Self.perovskite { $0 < 192 ? -0.8 : 0.8 }, width: 384, height: 384, spacing: 14.1))
        #expect(step.sublattice == 2 && step.walls.count == 1)
        #expect(Places.course(of: step.walls[0], width: 384, height: 384) == .down(share: "half"))
        #expect(step.walls[0].allSatisfy { abs($0.x - 190) <= 10 }, "\(step.walls[0])")
        let strain = PolarDomains.find(
            in: Self.perovskite { 0.8 * ($0 - 192) / 192 }, width: 384, height: 384, spacing: 14.1)
        #expect(strain == nil)
    }

    @Test func thresholdsAreTheNormalDistributionsTailsSharedAmongTheTests() {
        // Two-sided tails of 0.1 % and 0.001 %.
        #expect(abs(Significance.threshold(tests: 1) - 3.2905) < 1e-3)
        #expect(abs(Significance.threshold(tests: 100) - 4.4172) < 1e-3)
        #expect(abs(Significance.robustScale([1, 2, 3, 4, 100]) - 1.4826) < 1e-9)
    }

    @Test func anImageWithoutALatticeHasNothingToStepThrough() {
        var random = SeededRandom(seed: 5)
        let samples = (0..<(128 * 128)).map { _ in UInt16(1000 + 100 * random.gaussian()) }
        let overview = ImageOverview(
            image: GrayImage(width: 128, height: 128, bitDepth: 16, samples: samples), pixelSize: nil)
        #expect(overview.summary == [Phrases.onlyNoise])
        #expect(overview.features.isEmpty && overview.crystal == nil && overview.lattice == nil)
    }
}
