import RealModule

/// Lattices with physics to hear, and their truth: for the bundled samples (`make-images`) and the tests.
public enum PhysicsSamples {
    /// How much brighter a dopant column is than the others.
    public static let dopantFactor = 1.3
    /// The doped lattice's dopant sites and its one vacancy.
    public static let dopants: [LatticeImage.SiteIndex] = [
        .init(i: 4, j: 5), .init(i: 9, j: 3), .init(i: 6, j: 10), .init(i: 11, j: 9)
    ]
    public static let vacancy = LatticeImage.SiteIndex(i: 8, j: 7)

    /// A 16-bit square lattice as the bundled atomic lattice (a 24 px cell turned 7°, σ 3.2 px, on a ramp), with
    /// four columns `dopantFactor` times as high and one vacancy. `dose` and `readNoise` as in `LatticeImage`.
    public static func dopedLattice(size: Int = 384, dose: Double = 1, readNoise: Double = 20) -> LatticeImage {
        let angle = 7.0 * Double.pi / 180, cell = 24.0
        return LatticeImage(
            width: size, height: size,
            a: (cell * Double.cos(angle), cell * Double.sin(angle)),
            b: (-cell * Double.sin(angle), cell * Double.cos(angle)),
            origin: (11.3, 9.7), sites: [.init(u: 0, v: 0, height: 30_000)], sigma: 3.2, background: 6_000,
            backgroundSlope: (4, -2.5), doseScale: dose, readNoise: readNoise, seed: 20_261_120,
            vacancies: [vacancy], heightFactors: Dictionary(uniqueKeysWithValues: dopants.map { ($0, dopantFactor) }))
    }

    /// The polar sample's pixel size, and how far its light columns are displaced.
    public static let polarPixelPicometres = 18.0
    public static let polarShiftPicometres = 15.0

    /// Two polar domains in a perovskite-like projection (SrTiO₃'s 390.5 pm cell at `polarPixelPicometres` per
    /// pixel, turned 3°): heavy columns at the cell's corners, light ones (0.4× as high) at its centres, each light
    /// column shifted `polarShiftPicometres` along b — towards the top of the image in the middle half of them
    /// (by x), towards the bottom in the outer quarters. As many light columns point up as down, so the middle of
    /// the light sublattice is the heavy cell's centre.
    public static func polarDomains(size: Int = 384, dose: Double = 1, readNoise: Double = 20) -> LatticeImage {
        let angle = 3.0 * Double.pi / 180, cell = 390.5 / polarPixelPicometres
        var image = LatticeImage(
            width: size, height: size,
            a: (cell * Double.cos(angle), cell * Double.sin(angle)),
            b: (-cell * Double.sin(angle), cell * Double.cos(angle)),
            origin: (6.4, 9.1), sites: [.init(u: 0, v: 0, height: 30_000), .init(u: 0.5, v: 0.5, height: 12_000)],
            sigma: 2.6, background: 5_000, backgroundSlope: (2, -1.5), doseScale: dose, readNoise: readNoise,
            seed: 20_261_121)
        let shift = polarShiftPicometres / polarPixelPicometres
        let down = (x: -Double.sin(angle) * shift, y: Double.cos(angle) * shift)
        let light = image.sitePositions(margin: 0).filter { $0.index.site == 1 }.sorted { $0.x < $1.x }
        for (k, site) in light.enumerated() {
            let up = k >= light.count / 4 && k < light.count - light.count / 4
            image.shifts[site.index] = up ? (-down.x, -down.y) : down
        }
        return image
    }
}
