import RealModule
import Testing

@testable import SonicCore

/// The reciprocal basis of `scene`'s lattice deformed by the gradient `f`: the rows of (F·[a b])⁻¹.
private func reciprocal(_ scene: LatticeImage, deformedBy f: Matrix2 = .identity) -> (PixelVector, PixelVector) {
    let direct = f * Matrix2(columns: PixelVector(x: scene.a.x, y: scene.a.y), PixelVector(x: scene.b.x, y: scene.b.y))
    let g = direct.inverse!
    return (PixelVector(x: g.xx, y: g.xy), PixelVector(x: g.yx, y: g.yy))
}

/// How far each reflection lies from the nearest point of the true reciprocal lattice (g1, g2): its spacing's error
/// as a share and its direction's in degrees; also the points' indices.
private func errors(_ reflections: [Reflection], lattice: (PixelVector, PixelVector))
    -> [(spacing: Double, degrees: Double, n: Int, m: Int)]
{
    let inverse = Matrix2(columns: lattice.0, lattice.1).inverse!
    return reflections.map { r in
        let c = inverse * r.g
        let n = Int(c.x.rounded()), m = Int(c.y.rounded())
        let truth = Double(n) * lattice.0 + Double(m) * lattice.1
        let spacing = abs(r.spacing * truth.length - 1)
        let turn = abs(r.direction - Reflection.direction(of: truth))
        return (spacing, min(turn, 180 - turn), n, m)
    }
}

/// The gradient of a uniform deformation, from its strain and rotation (the strain symmetric, so exactly).
private func gradient(_ d: Deformation) -> Matrix2 {
    Matrix2.rotation(d.rotation) * (.identity + Matrix2(xx: d.exx, xy: d.exy, yx: d.exy, yy: d.eyy))
}

/// A plain noise image: a sloping background with counting and read noise, no lattice.
private func noiseImage(width: Int, height: Int, seed: UInt64) -> GrayImage {
    LatticeImage(
        width: width, height: height, a: (20, 0), b: (0, 20), origin: (0, 0), sites: [], sigma: 3, background: 5_000,
        backgroundSlope: (2.1, -1.7), doseScale: 1.0 / 150, readNoise: 500, seed: seed
    ).render()
}

/// GPA's strain and rotation against the truth at the sample's columns of its first sublattice, away from the edges
/// (by `edgeMargin`) and a lattice spacing from an interface: the root-mean-square difference of each, one constant
/// (the reference's) taken away.
private func gpaErrors(_ sample: StrainSample, _ gpa: GeometricPhase) -> (
    exx: Double, eyy: Double, exy: Double, rotation: Double
) {
    let size = Double(StrainSamples.size - 1), margin = gpa.edgeMargin
    let pairs = sample.truth.columns.compactMap { column -> (Deformation, Deformation)? in
        let p = column.position
        guard column.sublattice == 1, p.x >= margin, p.y >= margin, p.x <= size - margin, p.y <= size - margin
        else { return nil }
        if let interface = sample.truth.interfaces.first {
            let a = interface.ends[0], b = interface.ends[1]
            let distance =
                abs((p.x - a.x) * (b.y - a.y) - (p.y - a.y) * (b.x - a.x)) / Double.hypot(b.x - a.x, b.y - a.y)
            if distance < sample.truth.spacing { return nil }
        }
        return gpa.deformation(at: p).map { ($0, column.deformation) }
    }
    func rms(_ part: (Deformation) -> Double) -> Double {
        let differences = pairs.map { part($0.0) - part($0.1) }
        let mean = differences.reduce(0, +) / Double(differences.count)
        return (differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(differences.count)).squareRoot()
    }
    return (rms(\.exx), rms(\.eyy), rms(\.exy), rms(\.rotation))
}

@Suite("Reciprocal space")
struct ReciprocalTests {
    @Test("A plain lattice's reflections lie on its reciprocal lattice: d within 0.5 %, directions within 0.3°")
    func plainLattice() throws {
        for (arrangement, angle) in [(LatticeImage.Arrangement.square, 4.0), (.hexagonal, -17.0)] {
            let scene = LatticeImage(
                arrangement, width: 384, height: 320, spacing: 18, angle: angle * Double.pi / 180, origin: (5.3, 7.1),
                sigma: 3, peak: 20_000, background: 5_000, doseScale: 1, readNoise: 20, seed: 11)
            let diffractogram = Diffractogram(image: scene.render())
            #expect(diffractogram.size == 512)
            let found = errors(diffractogram.reflections, lattice: reciprocal(scene))
            #expect(found.count >= 6)
            for e in found {
                #expect(e.spacing < 0.005 && e.degrees < 0.3, "\(arrangement) (\(e.n), \(e.m)): \(e)")
            }
            #expect(diffractogram.grains.count == 1)
            #expect(diffractogram.reflections.allSatisfy { $0.grain == 0 })
        }
    }

    @Test(
        "Uniform strain: the reflections lie on the strained lattice's reciprocal lattice",
        arguments: [OverviewSamples.Noise.low, .high], [0, 1, 2, 3])
    func uniformStrain(noise: OverviewSamples.Noise, variant: Int) {
        let sample = StrainSamples.sample(.uniform, noise, variant: variant)
        let strained = reciprocal(sample.scene, deformedBy: gradient(sample.truth.columns[0].deformation))
        let diffractogram = Diffractogram(image: sample.render())
        let found = errors(diffractogram.reflections, lattice: strained)
        // The four first-order reflections and more.
        #expect(found.filter { abs($0.n) + abs($0.m) == 1 }.count == 2)
        #expect(found.count >= 10)
        for e in found { #expect(e.spacing < 0.005 && e.degrees < 0.3, "(\(e.n), \(e.m)): \(e)") }
    }

    @Test("Pure noise shows no reflection, of any size")
    func noise() {
        for (width, height, seed) in [(512, 512, UInt64(1)), (300, 200, 2), (256, 384, 3)] {
            let diffractogram = Diffractogram(image: noiseImage(width: width, height: height, seed: seed))
            #expect(diffractogram.reflections.isEmpty, "\(width)×\(height)")
            #expect(diffractogram.grains.isEmpty)
        }
    }

    @Test("Two grains turned to each other: two groups, each turned as its grain within 0.5°", arguments: [0, 1, 2])
    func twoGrains(variant: Int) {
        for noise in OverviewSamples.Noise.allCases {
            let sample = StrainSamples.sample(.twoGrains, noise, variant: variant)
            let diffractogram = Diffractogram(image: sample.render())
            #expect(diffractogram.grains.count == 2, "\(noise)")
            for truth in sample.truth.grains {
                // A square lattice looks the same turned by a right angle.
                let turns = diffractogram.grains.map { grain -> Double in
                    let difference = (grain.orientation - truth.orientation) * 180 / Double.pi
                    let folded = difference - 90 * (difference / 90).rounded()
                    return abs(folded)
                }
                #expect((turns.min() ?? 90) < 0.5, "\(noise): \(turns)")
            }
            for (number, grain) in diffractogram.grains.enumerated() {
                #expect(grain.reflections.count >= 4)
                #expect(grain.reflections.allSatisfy { diffractogram.reflections[$0].grain == number })
            }
        }
    }

    @Test("The diffractogram as an image: each reflection, and its Friedel mate, at a peak the image shows")
    func diffractogramImage() throws {
        let sample = StrainSamples.sample(.uniform, .low)
        let diffractogram = Diffractogram(image: sample.render())
        let image = diffractogram.image
        #expect(image.width == diffractogram.size && image.height == diffractogram.size)
        #expect(image.sampleType == .uint16)
        for (index, reflection) in diffractogram.reflections.enumerated().prefix(8) {
            for g in [reflection.g, -1 * reflection.g] {
                let point = diffractogram.point(for: g)
                let pixel = point.nearestPixel
                let level = image[pixel.x, pixel.y]
                // The brightest pixel within two of the peak's place is at most one away from it.
                var brightest = (level: level, x: pixel.x, y: pixel.y)
                for y in (pixel.y - 2)...(pixel.y + 2) {
                    for x in (pixel.x - 2)...(pixel.x + 2) where image[x, y] > brightest.level {
                        brightest = (image[x, y], x, y)
                    }
                }
                #expect(abs(brightest.x - pixel.x) <= 1 && abs(brightest.y - pixel.y) <= 1)
                #expect(diffractogram.reflection(near: point, within: 1) == index)
                let back = diffractogram.frequency(at: point)
                #expect((back - g).length < 1e-12)
            }
        }
        #expect(diffractogram.reflection(near: ImagePoint(x: 3, y: 3), within: 2) == nil)
    }

    @Test(
        "GPA: strain within 0.003 rms at low noise and 0.008 at high, rotation within 0.3° rms",
        arguments: [StrainSamples.Kind.uniform, .interface, .bent, .scanDistortion], [0, 1])
    func geometricPhase(kind: StrainSamples.Kind, variant: Int) throws {
        for noise in OverviewSamples.Noise.allCases {
            let sample = StrainSamples.sample(kind, noise, variant: variant)
            let gpa = try #require(GeometricPhase(image: sample.render()))
            let rms = gpaErrors(sample, gpa)
            let bound = noise == .low ? 0.003 : 0.008
            #expect(rms.exx < bound && rms.eyy < bound && rms.exy < bound, "\(noise): \(rms)")
            #expect(rms.rotation * 180 / Double.pi < 0.3, "\(noise): \(rms)")
        }
    }

    @Test("GPA refines the reflections to the reference's lattice, and measures against the region given")
    func reference() throws {
        // A uniform crystal is its own reference: the refined g are the strained lattice's.
        let uniform = StrainSamples.sample(.uniform, .low)
        let strained = reciprocal(uniform.scene, deformedBy: gradient(uniform.truth.columns[0].deformation))
        let gpa = try #require(GeometricPhase(image: uniform.render()))
        let inverse = Matrix2(columns: strained.0, strained.1).inverse!
        for g in [gpa.g1, gpa.g2] {
            let c = inverse * g
            let truth = c.x.rounded() * strained.0 + c.y.rounded() * strained.1
            #expect((g - truth).length < 1e-4 * truth.length, "\(g) against \(truth)")
        }
        #expect(gpa.deformation(at: ImagePoint(x: -1, y: 10)) == nil)
        #expect(gpa.deformation(at: ImagePoint(x: 10, y: 600)) == nil)
        // Against the left of a coherent interface, the left reads no strain and the right the step.
        let interface = StrainSamples.sample(.interface, .low)
        let left = ImageRectangle(x0: 40, y0: 40, x1: 200, y1: 470)
        let measured = try #require(GeometricPhase(image: interface.render(), reference: left))
        #expect(measured.reference == left)
        // The displacement beyond the interface, up to a lattice vector, is the columns' shift.
        let lattice = try #require(Matrix2(columns: measured.a, measured.b).inverse)
        for site in interface.scene.sitePositions(margin: 0)
        where site.x > 320 && site.x < 460 && site.y > 60 && site.y < 450 {
            let shift = interface.scene.shifts[site.index] ?? (0, 0)
            let found = try #require(measured.displacement(at: ImagePoint(x: site.x, y: site.y)))
            let fractions = lattice * (found - PixelVector(x: shift.x, y: shift.y))
            let left = PixelVector(x: fractions.x - fractions.x.rounded(), y: fractions.y - fractions.y.rounded())
            #expect((Matrix2(columns: measured.a, measured.b) * left).length < 0.1, "\(site.index): \(found), \(shift)")
        }
        let step = try #require(interface.truth.interfaces.first?.step)
        for (x, expected) in [(120.0, Deformation.none), (420, step)] {
            for y in stride(from: 100.0, through: 400, by: 100) {
                let found = try #require(measured.deformation(at: ImagePoint(x: x, y: y)))
                #expect(abs(found.exx - expected.exx) < 0.002, "(\(x), \(y)): \(found)")
                #expect(abs(found.eyy - expected.eyy) < 0.002, "(\(x), \(y)): \(found)")
                #expect(abs(found.rotation - expected.rotation) < 0.002, "(\(x), \(y)): \(found)")
            }
        }
    }

    @Test("GPA with the reflections given: two collinear reflections give none")
    func givenReflections() throws {
        let sample = StrainSamples.sample(.bent, .low)
        let image = sample.render()
        let (g1, g2) = reciprocal(sample.scene)
        #expect(GeometricPhase(image: image, g1: g1, g2: 2 * g1) == nil)
        let gpa = try #require(GeometricPhase(image: image, g1: g1, g2: g2, maskRadius: 0.01))
        #expect(gpa.maskRadius == 0.01)
        #expect(abs(gpa.smoothingLength - 1 / (2 * Double.pi * 0.01)) < 1e-12)
        let rms = gpaErrors(sample, gpa)
        #expect(rms.exx < 0.003 && rms.rotation * 180 / Double.pi < 0.3, "\(rms)")
    }
}
