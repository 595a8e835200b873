import RealModule
import Testing

@testable import SonicCore

/// Each found column paired with the true site it lies on (within a quarter of the spacing); columns near no site are
/// left out.
private func matched(_ analysis: LatticeAnalysis, _ truth: LatticeImage, spacing: Double)
    -> [(found: AnalysedColumn, truth: LatticeImage.SitePosition)]
{
    let sites = truth.sitePositions(margin: 0).filter { !$0.isVacant }
    return analysis.columns.compactMap { c in
        let nearest = sites.min {
            Double.hypot($0.x - c.column.x, $0.y - c.column.y) < Double.hypot($1.x - c.column.x, $1.y - c.column.y)
        }
        guard let nearest, Double.hypot(nearest.x - c.column.x, nearest.y - c.column.y) < 0.25 * spacing else {
            return nil
        }
        return (c, nearest)
    }
}

/// Columns at least `margin` pixels inside the image.
private func interior(_ p: LatticeImage.SitePosition, _ image: LatticeImage, margin: Double) -> Bool {
    min(p.x, p.y, Double(image.width - 1) - p.x, Double(image.height - 1) - p.y) >= margin
}

@Suite("Lattice analysis")
struct LatticeAnalysisTests {
    @Test("A doped lattice: one sublattice, the dopants 1.3 times as bright, every column on its site")
    func dopedLattice() throws {
        let truth = PhysicsSamples.dopedLattice()
        let finder = ColumnFinder(image: truth.render())
        let spacing = try #require(finder.spacing)
        let analysis = LatticeAnalysis(finding: finder)
        #expect(analysis.sublatticeCount == 1)
        #expect(abs(try #require(analysis.a).length - 24) < 0.05)
        #expect(abs(try #require(analysis.b).length - 24) < 0.05)
        let pairs = matched(analysis, truth, spacing: spacing)
        #expect(pairs.count >= 100)
        var dopantsSeen = 0
        for (found, site) in pairs where interior(site, truth, margin: 8) {
            #expect(found.sublattice == 1)
            let ratio = try #require(found.relativeIntensity)
            if PhysicsSamples.dopants.contains(site.index) {
                dopantsSeen += 1
                #expect(abs(ratio - PhysicsSamples.dopantFactor) < 0.05, "dopant at \(site.index): \(ratio)")
            } else {
                #expect(abs(ratio - 1) < 0.05, "column at \(site.index): \(ratio)")
            }
            #expect(try #require(found.displacement).length < 0.05, "column at \(site.index)")
        }
        #expect(dopantsSeen == PhysicsSamples.dopants.count)
        // The sites are the true cells, counted from one of them along two lattice vectors.
        let steps = Set(
            pairs.flatMap { p in
                pairs.filter { $0.truth.index.i == p.truth.index.i + 1 && $0.truth.index.j == p.truth.index.j }
                    .map { q in [q.found.site!.n - p.found.site!.n, q.found.site!.m - p.found.site!.m] }
            })
        #expect(steps.count == 1)
        #expect(steps.first.map { abs($0[0]) + abs($0[1]) } == 1)
    }

    @Test("Two polar domains: two sublattices, the light one's displacements found within 0.05 px at low noise")
    func polarDomains() throws {
        let truth = PhysicsSamples.polarDomains(size: 256)
        let finder = ColumnFinder(image: truth.render())
        let spacing = try #require(finder.spacing)
        let analysis = LatticeAnalysis(finding: finder)
        #expect(analysis.sublatticeCount == 2)
        let pairs = matched(analysis, truth, spacing: spacing)
        #expect(pairs.count >= 200)
        var up = 0, down = 0
        for (found, site) in pairs where interior(site, truth, margin: 6) {
            #expect(found.sublattice == site.index.site + 1)
            let shift = truth.shifts[site.index] ?? (0, 0)
            let displacement = try #require(found.displacement)
            #expect(
                Double.hypot(displacement.x - shift.x, displacement.y - shift.y) < 0.05,
                "\(site.index): found (\(displacement.x), \(displacement.y)), true \(shift)")
            if site.index.site == 1 { if shift.y < 0 { up += 1 } else { down += 1 } }
        }
        #expect(up > 20 && down > 20)
    }

    @Test("A honeycomb's two sublattices are told apart though their columns are alike")
    func honeycomb() {
        // Graphene-like: a hexagonal lattice of 20 px with two columns per cell, a third of the way along its
        // long diagonal.
        let a = PixelVector(x: 20, y: 0), b = PixelVector(x: 10, y: 10 * 3.0.squareRoot())
        var columns: [AtomColumn] = []
        for j in 0..<12 {
            for i in -6..<14 {
                for basis in [0.0, 1.0 / 3] {
                    let p = Double(i) * a + Double(j) * b + basis * (a + b)
                    guard p.x >= 0 && p.x < 300 && p.y >= 0 && p.y < 220 else { continue }
                    columns.append(AtomColumn(x: p.x, y: p.y, peak: 1000, quality: 1, sigma: 2))
                }
            }
        }
        let analysis = LatticeAnalysis(columns: columns, spacing: 20 / 3.0.squareRoot(), width: 300, height: 220)
        #expect(analysis.sublatticeCount == 2)
        #expect(abs((analysis.a?.length ?? 0) - 20) < 1e-6)
        #expect(analysis.columns.allSatisfy { ($0.displacement?.length ?? 1) < 1e-6 })
    }

    @Test("A vacancy and an interstitial neither move the lattice nor join a sublattice")
    func interstitial() {
        var columns: [AtomColumn] = []
        for j in 0..<10 {
            for i in 0..<10 where !(i == 4 && j == 4) {
                columns.append(
                    AtomColumn(x: 5 + 16 * Double(i), y: 7 + 16 * Double(j), peak: 500, quality: 1, sigma: 2))
            }
        }
        columns.append(AtomColumn(x: 5 + 16 * 6.5, y: 7 + 16 * 6.5, peak: 300, quality: 1, sigma: 2))
        let analysis = LatticeAnalysis(columns: columns, spacing: 16, width: 160, height: 160)
        #expect(analysis.sublatticeCount == 1)
        #expect(analysis.columns.last?.sublattice == nil)
        #expect(analysis.columns.dropLast().allSatisfy { $0.sublattice == 1 && $0.displacement!.length < 1e-6 })
    }

    @Test("Too few columns give no lattice")
    func noLattice() {
        let few = [AtomColumn(x: 1, y: 2, peak: 1, quality: 1, sigma: 1)]
        let analysis = LatticeAnalysis(columns: few, spacing: 10, width: 10, height: 10)
        #expect(analysis.a == nil && analysis.sublatticeCount == 0 && analysis.columns[0].sublattice == nil)
    }
}
