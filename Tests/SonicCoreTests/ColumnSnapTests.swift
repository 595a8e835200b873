import Testing

@testable import SonicCore

/// Taps snap to what `findAll` finds.
extension ColumnFinderTests {
    /// Taps up to 0.6 spacing from a column, with a radius of 0.6 spacing: the brightest true column within the
    /// radius comes back (when the tapped column is the only one there, that column), refined as by findAll.
    @Test(arguments: [
        LatticeScenario(arrangement: .square, size: 256, spacing: 24, sigma: 3, noise: .high, angleDegrees: 19.1),
        LatticeScenario(
            arrangement: .twoSublattice(lightRatio: 0.3), size: 256, spacing: 20, sigma: 3, noise: .low,
            angleDegrees: 33.3)
    ])
    func snapReturnsTheTappedColumn(_ scenario: LatticeScenario) throws {
        let lattice = scenario.withVacancies
        let finder = ColumnFinder(image: lattice.render())
        let all = finder.findAll()
        let truth = lattice.columns(margin: 3 * scenario.sigma)
        let interior = truth.filter { scenario.distanceToEdge($0.x, $0.y) > scenario.spacing }
        let radius = 0.6 * scenario.spacing
        var random = SeededRandom(seed: 17)
        var errors: [Double] = []
        var onlyOne = 0
        for _ in 0..<40 {
            let target = interior[Int(random.next() % UInt64(interior.count))]
            let r = radius * random.unitInterval(), angle = 2 * Double.pi * random.unitInterval()
            let tap = (x: target.x + r * Double.cos(angle), y: target.y + r * Double.sin(angle))
            let column = try #require(finder.snap(x: tap.x, y: tap.y, radius: radius), "tap \(tap)")
            let (k, error) = nearest(truth.map { ($0.x, $0.y) }, to: column)
            #expect(error <= 0.3 * scenario.spacing)
            let within = truth.filter { distance(($0.x, $0.y), tap) <= radius }
            #expect(truth[k].height == within.map(\.height).max(), "the brightest within the radius")
            if within.count == 1 {
                onlyOne += 1
                #expect(truth[k].x == target.x && truth[k].y == target.y, "the tapped column")
            }
            errors.append(error)
            // The same column as findAll's, to the last digits.
            let same = all.min {
                distance(($0.x, $0.y), (column.x, column.y)) < distance(($1.x, $1.y), (column.x, column.y))
            }
            #expect(same.map { distance(($0.x, $0.y), (column.x, column.y)) } ?? 1 < 1e-9)
        }
        #expect(onlyOne >= 20)
        #expect(errors.reduce(0, +) / Double(errors.count) <= scenario.noise.errorBound)
    }

    @Test func snapAgreesWithFindAllEverywhere() {
        // Columns next to the edges and next to vacancies included.
        let scenario = LatticeScenario(
            arrangement: .hexagonal, size: 200, spacing: 18, sigma: 2.5, noise: .high,
            angleDegrees: 44.4, vacancyFraction: 0.1)
        let finder = ColumnFinder(image: scenario.withVacancies.render())
        let all = finder.findAll()
        #expect(all.count > 80)
        for (i, column) in all.enumerated() where i % 3 == 0 {
            let snapped = finder.snap(x: column.x + 0.7, y: column.y - 0.4, radius: 0.3 * scenario.spacing)
            #expect(snapped == column)
        }
    }

    @Test func snapAgreesWithFindAllAcrossJointTiles() throws {
        // Overlapping columns, refined jointly tile by tile: taps on both sides of the tile borders.
        let scenario = LatticeScenario(
            arrangement: .square, size: 300, spacing: 12, sigma: 3.5, noise: .high,
            angleDegrees: 12.5, vacancyFraction: 0.1)
        let finder = ColumnFinder(image: scenario.withVacancies.render())
        #expect(finder.jointly)
        let tiling = JointTiling(
            geometry: ColumnGeometry(spacing: try #require(finder.spacing)), noise: finder.noise,
            noiseModel: finder.noiseModel, imageWidth: scenario.size, imageHeight: scenario.size)
        #expect(tiling.tileColumns == 2 && tiling.tileRows == 2)
        let border = Double(tiling.core(.init(column: 1, row: 1)).xs.lowerBound) - 0.5
        let all = finder.findAll()
        #expect(all.count > 400)
        let nearBorders = all.filter { abs($0.x - border) < 8 || abs($0.y - border) < 8 }
        #expect(nearBorders.count > 20)
        for (i, column) in nearBorders.enumerated() where i % 4 == 0 {
            let snapped = finder.snap(x: column.x + 0.7, y: column.y - 0.4, radius: 0.3 * scenario.spacing)
            #expect(snapped == column)
        }
    }

    @Test func snapFindsNothingAtVacanciesOrOnBareBackground() throws {
        let scenario = LatticeScenario(
            arrangement: .twoSublattice(lightRatio: 0.3), size: 320, spacing: 20, sigma: 3,
            noise: .high, angleDegrees: 14.9)
        // Single vacancies, and a hole of bare background 2.5 spacings across the point (100, 220).
        var lattice = scenario.withVacancies
        for site in lattice.sitePositions(margin: 0)
        where distance((site.x, site.y), (100, 220)) < 2.5 * scenario.spacing {
            lattice.vacancies.insert(site.index)
        }
        let finder = ColumnFinder(image: lattice.render())
        let vacancies = lattice.vacancyPositions
        #expect(vacancies.count > 15)
        let radius = 0.6 * scenario.spacing
        for vacancy in vacancies {
            #expect(finder.snap(x: vacancy.x, y: vacancy.y, radius: radius) == nil, "vacancy \(vacancy)")
        }
        for (x, y) in [(100.0, 220.0), (90, 215), (112, 226)] {
            #expect(finder.snap(x: x, y: y, radius: radius) == nil)
        }
        // The columns around the hole are still found.
        let column = try #require(lattice.columns.first { distance(($0.x, $0.y), (100, 220)) < 3.5 * scenario.spacing })
        #expect(finder.snap(x: column.x + 2, y: column.y + 1, radius: 5) != nil)
        #expect(finder.findAll().allSatisfy { distance(($0.x, $0.y), (100, 220)) > 2 * scenario.spacing })
    }
}
