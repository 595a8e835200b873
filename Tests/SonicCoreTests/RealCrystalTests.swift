import Foundation
import RealModule
import Testing

@testable import SonicCore

/// A strain sample read as the program reads it: its columns, their lattice, and the overview.
private struct ReadSample {
    let sample: StrainSample
    let overview: ImageOverview
    let analysis: LatticeAnalysis
    let spacing: Double

    init(_ kind: StrainSamples.Kind, _ noise: OverviewSamples.Noise, variant: Int) throws {
        sample = StrainSamples.sample(kind, noise, variant: variant)
        let finder = ColumnFinder(image: sample.render())
        spacing = try #require(finder.spacing)
        let columns = LatticeColumns(finding: finder, pixelSize: PixelSize(picometres: StrainSamples.pixelPicometres))
        analysis = columns.analysis
        overview = ImageOverview(finder: finder, columns: columns)
    }

    /// Each found column with a deformation paired with the true column within 3 px.
    func pairs() -> [(found: AnalysedColumn, truth: StrainTruth.Column)] {
        let truth = sample.truth.columns
        let index = PointGrid(truth.map { PixelVector(x: $0.position.x, y: $0.position.y) }, reach: 10)
        return analysis.columns.compactMap { c in
            guard c.deformation != nil,
                let k = index.nearest(to: PixelVector(x: c.column.x, y: c.column.y), within: 3)
            else { return nil }
            return (c, truth[k])
        }
    }
}

/// Each sample is read once, whichever tests look at it.
private final class ReadSamples: @unchecked Sendable {
    private let lock = NSLock()
    private var read: [String: ReadSample] = [:]

    func sample(_ kind: StrainSamples.Kind, _ noise: OverviewSamples.Noise, variant: Int) throws -> ReadSample {
        let key = "\(kind) \(noise) \(variant)"
        if let known = lock.withLock({ read[key] }) { return known }
        let made = try ReadSample(kind, noise, variant: variant)
        lock.withLock { read[key] = made }
        return made
    }
}

private let samples = ReadSamples()

/// The root mean square of `values` about their median: their scatter once one constant (the reference's) is taken
/// away.
private func scatterAboutMedian(_ values: [Double]) -> Double {
    let centre = LatticeAnalysis.median(values)
    return (values.map { ($0 - centre) * ($0 - centre) }.reduce(0, +) / Double(max(1, values.count))).squareRoot()
}

/// The unseen variants each test also reads: drawn turns, origins and placements (see `StrainSamples`).
private let variants = [0, 11]

@Suite("Real crystals")
struct RealCrystalTests {
    static let cases = OverviewSamples.Noise.allCases.flatMap { noise in variants.map { (noise, $0) } }

    @Test("Strain and rotation at every column, against the truth less one constant", arguments: cases)
    func strainAndRotationFollowTheTruth(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let limit = noise == .low ? 0.003 : 0.008
        for kind in [StrainSamples.Kind.uniform, .interface, .bent, .scanDistortion, .dislocation] {
            let read = try samples.sample(kind, noise, variant: variant)
            let truth = read.sample.truth
            // Away from what no local reading resolves: a dislocation's core, the columns either side of an interface.
            let pairs = read.pairs().filter { pair in
                let p = PixelVector(x: pair.truth.position.x, y: pair.truth.position.y)
                return truth.dislocations.allSatisfy {
                    (PixelVector(x: $0.core.x, y: $0.core.y) - p).length > 2 * truth.spacing
                }
                    && truth.interfaces.allSatisfy {
                        InterfaceSearch.distance(p, toLine: $0.ends) > truth.spacing
                    }
            }
            #expect(pairs.count > 400, "\(kind) \(noise) \(variant): \(pairs.count) columns")
            func scatter(_ part: (Deformation) -> Double) -> Double {
                scatterAboutMedian(pairs.map { part($0.found.deformation!) - part($0.truth.deformation) })
            }
            let exx = scatter(\.exx), eyy = scatter(\.eyy), exy = scatter(\.exy)
            let rotation = scatter(\.rotation) * 180 / Double.pi
            #expect(exx < limit, "\(kind) \(noise) \(variant): exx \(exx)")
            #expect(eyy < limit, "\(kind) \(noise) \(variant): eyy \(eyy)")
            #expect(exy < limit, "\(kind) \(noise) \(variant): exy \(exy)")
            #expect(rotation < 0.3, "\(kind) \(noise) \(variant): rotation \(rotation)°")
        }
    }

    @Test("An interface is found where it is, with its step", arguments: cases)
    func interfaces(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let read = try samples.sample(.interface, noise, variant: variant)
        let truth = try #require(read.sample.truth.interfaces.first)
        let found = read.overview.features.filter { $0.kind == .interface }
        try #require(found.count == 1, "\(noise) \(variant): \(found.count) interfaces")
        let step = try #require(found[0].step)
        #expect(abs(step.exx - truth.step.exx) < 0.002, "\(noise) \(variant): \(step) against \(truth.step)")
        #expect(abs(step.eyy - truth.step.eyy) < 0.002)
        #expect(abs(step.exy - truth.step.exy) < 0.002)
        // The line within half a spacing of the true one all along it.
        for point in pointsAlong(found[0].points, step: 4) {
            let off = InterfaceSearch.distance(PixelVector(x: point.x, y: point.y), toLine: truth.ends)
            #expect(off < 0.5 * read.spacing, "\(noise) \(variant): \(off) px off at \(point)")
        }
    }

    @Test("A dislocation's core is found within half a spacing, with its Burgers vector", arguments: cases)
    func dislocations(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let read = try samples.sample(.dislocation, noise, variant: variant)
        let truth = try #require(read.sample.truth.dislocations.first)
        let found = read.overview.features.filter { $0.kind == .dislocation }
        try #require(found.count == 1, "\(noise) \(variant): \(found.count) dislocations")
        let off = Double.hypot(found[0].position.x - truth.core.x, found[0].position.y - truth.core.y)
        #expect(off < 0.5 * read.spacing, "\(noise) \(variant): core \(off) px off")
        let burgers = try #require(found[0].burgers)
        #expect((burgers - truth.burgers).length < 0.05 * truth.burgers.length, "\(burgers) against \(truth.burgers)")
    }

    @Test("Two grains: their turns, their shares and the boundary between them", arguments: cases)
    func twoGrains(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let read = try samples.sample(.twoGrains, noise, variant: variant)
        let truth = read.sample.truth
        let grains = try #require(read.overview.physics?.grains)
        try #require(grains.count == 2, "\(noise) \(variant): \(grains.count) grains")
        // Each true grain matched by the found one turned nearest it, within the square lattice's quarter turn.
        func apart(_ degrees: Double, _ radians: Double) -> Double {
            let d = (degrees - radians * 180 / Double.pi).truncatingRemainder(dividingBy: 90)
            return min(abs(d), 90 - abs(d))
        }
        for grain in truth.grains {
            let found = try #require(
                grains.min {
                    apart($0.rotationDegrees, grain.orientation) < apart($1.rotationDegrees, grain.orientation)
                })
            #expect(
                apart(found.rotationDegrees, grain.orientation) < 0.5, "\(noise) \(variant): \(found) against \(grain)")
            #expect(
                abs(found.fraction - grain.fraction) < 0.05,
                "\(noise) \(variant): share \(found.fraction) against \(grain.fraction)")
        }
        let boundaries = read.overview.features.filter { $0.kind == .grainBoundary }
        try #require(boundaries.count == 1)
        for point in pointsAlong(boundaries[0].points, step: 4) where point.y > 0.05 * 512 && point.y < 0.95 * 512 {
            let off = InterfaceSearch.distance(PixelVector(x: point.x, y: point.y), toLine: truth.boundary)
            #expect(off < read.spacing, "\(noise) \(variant): boundary \(off) px off at \(point)")
        }
        #expect(read.overview.summary.first?.hasPrefix("Two grains turned") == true, "\(read.overview.summary)")
    }

    @Test("A bent crystal: its turn across it", arguments: cases)
    func bending(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let read = try samples.sample(.bent, noise, variant: variant)
        let range = try #require(read.sample.truth.bending)
        let bending = try #require(read.overview.physics?.bending)
        let said = bending.to - bending.from, truth = (range.upperBound - range.lowerBound) * 180 / Double.pi
        #expect(abs(said - truth) < 0.3, "\(noise) \(variant): turns \(said)° against \(truth)°")
    }

    @Test(
        "Nothing false on a strained, bent, dislocated, two-grain, scan-distorted crystal or beside amorphous material",
        arguments: cases)
    func nothingFalse(_ noise: OverviewSamples.Noise, _ variant: Int) throws {
        let physical: Set<OverviewFeature.Kind> = [.grainBoundary, .interface, .dislocation]
        for kind in StrainSamples.Kind.allCases {
            let read = try samples.sample(kind, noise, variant: variant)
            let truth = read.sample.truth
            // No dopant, vacancy, wall or interstitial: none is there.
            let false_ = read.overview.features.filter { !physical.contains($0.kind) }
            #expect(false_.isEmpty, "\(kind) \(noise) \(variant): \(false_.map(\.label))")
            let expected: [OverviewFeature.Kind: Int] = [
                .interface: truth.interfaces.count, .dislocation: truth.dislocations.count,
                .grainBoundary: truth.grains.count - 1
            ]
            for (physicalKind, count) in expected {
                let found = read.overview.features.filter { $0.kind == physicalKind }.count
                #expect(found == count, "\(kind) \(noise) \(variant): \(found) \(physicalKind)")
            }
            // As many sublattices as the crystal has, and bending only where it is bent.
            #expect(read.analysis.sublatticeCount == truth.sublattices, "\(kind) \(noise) \(variant)")
            #expect((read.overview.physics?.bending != nil) == (truth.bending != nil), "\(kind) \(noise) \(variant)")
        }
    }
}
