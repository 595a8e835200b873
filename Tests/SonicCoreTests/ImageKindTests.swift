import RealModule
import Testing

@testable import SonicCore

/// The overview of images without a lattice held to their truth: particles counted, placed and sized; diffraction
/// patterns' beams, spots, lattices and rings; regions and noise said as such.
@Suite struct ImageKindTests {
    /// No e-notation and at most four decimals in any number of `text`.
    static func readable(_ text: String) -> Bool {
        !text.contains(#/\d[eE][+-]?\d/#) && !text.contains(#/\d\.\d{5,}/#)
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func particlesAreCountedPlacedAndSized(noise: OverviewSamples.Noise) throws {
        for sample in ParticleSamples.all(noise) {
            let overview = ImageOverview(image: sample.render(), pixelSize: sample.pixelSize)
            #expect(overview.kind == .particles, "\(sample.name): \(overview.summary)")
            let found = overview.particles
            #expect(abs(found.count - sample.particles.count) <= (noise == .low ? 1 : 2), "\(sample.name): \(found)")
            var errors: [Double] = []
            var matched: [Int?] = []
            for truth in sample.particles {
                let nearest = found.indices.min {
                    Double.hypot(found[$0].position.x - truth.x, found[$0].position.y - truth.y)
                        < Double.hypot(found[$1].position.x - truth.x, found[$1].position.y - truth.y)
                }
                let distance = nearest.map {
                    Double.hypot(found[$0].position.x - truth.x, found[$0].position.y - truth.y)
                }
                let placed = distance.map { $0 <= max(2, 0.2 * truth.diameter) } ?? false
                #expect(placed, "\(sample.name): particle at \(truth.x), \(truth.y) not found (\(distance ?? -1))")
                matched.append(placed ? nearest : nil)
                if placed, let k = nearest { errors.append(found[k].diameter / truth.diameter - 1) }
            }
            let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(max(1, errors.count))).squareRoot()
            #expect(rms <= (noise == .low ? 0.10 : 0.15), "\(sample.name): diameters off by \(rms) rms: \(errors)")
            for (i, j) in sample.touching {
                guard let a = matched[i], let b = matched[j] else { continue }
                #expect(found[a].touching.contains(b), "\(sample.name): particles \(i) and \(j) touch")
            }
            let touchingFound = found.map(\.touching.count).reduce(0, +) / 2
            #expect(touchingFound == sample.touching.count, "\(sample.name): \(found.map(\.touching))")
            // Said first: how many, how large, in nanometres; each particle a feature to step to.
            let summary = overview.summary.joined(separator: " ")
            #expect(summary.hasPrefix("\(found.count) particles, "), "\(summary)")
            #expect(summary.contains("nanometres across"))
            #expect(overview.features.count == found.count && overview.features.allSatisfy { $0.kind == .particle })
            #expect(overview.features.first?.label.hasPrefix("Particle 1 of \(found.count), ") == true)
            #expect(overview.lattice == nil && overview.diffraction == nil)
            #expect((overview.summary + overview.details).allSatisfy(Self.readable), "\(overview.details)")
        }
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func spotPatternsGiveTheirBeamSpotsAndLattice(noise: OverviewSamples.Noise) throws {
        for sample in DiffractionSamples.all(noise) where !sample.spots.isEmpty {
            for calibration in [sample.reciprocalPerPixel, nil] {
                let overview = ImageOverview(
                    image: sample.render(), pixelSize: nil, reciprocalPerPixel: calibration)
                #expect(overview.kind == .diffraction, "\(sample.name): \(overview.summary)")
                let pattern = try #require(overview.diffraction)
                // Each spot a feature, strongest first, where the pattern has it.
                #expect(overview.lattice == nil && overview.features.allSatisfy { $0.kind == .spot })
                #expect(overview.features.map(\.position) == pattern.spots.map(\.position))
                let centre = try #require(pattern.centre)
                let off = Double.hypot(centre.x - sample.centre.x, centre.y - sample.centre.y)
                #expect(off <= 1, "\(sample.name): centre \(centre), \(off) px off")
                let found = pattern.spots.map(\.position)
                func near(_ p: ImagePoint, _ x: Double, _ y: Double) -> Bool { Double.hypot(p.x - x, p.y - y) <= 2 }
                let hits = sample.spots.filter { s in found.contains { near($0, s.x, s.y) } }.count
                let falses = found.filter { p in !sample.spots.contains { near(p, $0.x, $0.y) } }.count
                #expect(
                    Double(hits) >= 0.9 * Double(sample.spots.count), "\(sample.name): \(hits) of \(sample.spots.count)"
                )
                #expect(Double(falses) < 0.05 * Double(max(1, found.count)), "\(sample.name): \(falses) false spots")
                let lattice = try #require(pattern.lattice)
                #expect(lattice.kind == (sample.name.hasPrefix("hexagonal") ? .hexagonal : .square))
                #expect(abs(lattice.g1.length - 38) < 0.38 && abs(lattice.g2.length - 38) < 0.38)
                if let calibration {
                    let d = try #require(pattern.dPicometres(lattice.g1.length))
                    #expect(abs(d - sample.dPicometres(38)) < 0.01 * sample.dPicometres(38))
                    #expect(pattern.reciprocalPerPixel == calibration)
                }
                let summary = overview.summary.joined(separator: " ")
                #expect(
                    summary.hasPrefix("A diffraction pattern: spots of a \(lattice.kind.spoken) lattice, "),
                    "\(summary)")
                #expect(summary.contains(calibration == nil ? "pixels apart" : "picometres"))
                #expect((overview.summary + overview.details).allSatisfy(Self.readable), "\(overview.details)")
            }
        }
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func ringPatternsGiveTheirRadiiAndSpacings(noise: OverviewSamples.Noise) throws {
        let sample = DiffractionSamples.rings(noise)
        for calibration in [sample.reciprocalPerPixel, nil] {
            let overview = ImageOverview(image: sample.render(), pixelSize: nil, reciprocalPerPixel: calibration)
            #expect(overview.kind == .diffraction, "\(overview.summary)")
            let pattern = try #require(overview.diffraction)
            let centre = try #require(pattern.centre)
            #expect(Double.hypot(centre.x - sample.centre.x, centre.y - sample.centre.y) <= 1)
            #expect(pattern.rings.count == sample.rings.count, "\(pattern.rings)")
            for (found, truth) in zip(pattern.rings, sample.rings) {
                #expect(abs(found / truth.radius - 1) < 0.01, "ring at \(truth.radius) found at \(found)")
            }
            #expect(pattern.lattice == nil && pattern.spots.isEmpty)
            // Each ring a feature, innermost first, its course on the ring and its place where it crosses the image.
            #expect(
                overview.features.map(\.kind) == [OverviewFeature.Kind](repeating: .ring, count: pattern.rings.count))
            for (feature, radius) in zip(overview.features, pattern.rings) {
                let onRing = ([feature.position] + feature.points).allSatisfy {
                    abs(Double.hypot($0.x - centre.x, $0.y - centre.y) - radius) < 1e-6
                }
                #expect(onRing && feature.points.count > 8, "\(feature.label)")
            }
            let summary = overview.summary.joined(separator: " ")
            #expect(
                summary.hasPrefix(
                    "A diffraction pattern: 5 rings about the direct beam, their radii in the ratios 1, 1.15"),
                "\(summary)")
            if calibration != nil { #expect(summary.contains("d spacings 235")) }
            #expect((overview.summary + overview.details).allSatisfy(Self.readable), "\(overview.details)")
        }
    }

    @Test func aCalibratedPatternWithoutItsBeamIsToldByItsRegions() throws {
        // A crop of a pattern beside its beam: a bright band across the top third, noise below.
        var random = SeededRandom(seed: 11)
        let samples = (0..<(96 * 96)).map { k in UInt16(1000 + (k / 96 < 32 ? 3000 : 0) + 30 * random.gaussian()) }
        let overview = ImageOverview(
            image: GrayImage(width: 96, height: 96, bitDepth: 16, samples: samples), pixelSize: nil,
            reciprocalPerPixel: 0.1744)
        #expect(overview.kind == .diffraction && overview.lattice == nil)
        let pattern = try #require(overview.diffraction)
        #expect(pattern.centre == nil && pattern.spots.isEmpty && pattern.rings.isEmpty)
        #expect(
            overview.summary == [
                "A diffraction pattern, its direct beam outside the image: a bright region covers the top third of "
                    + "the image, 33 percent of it; the rest is darker and even."
            ], "\(overview.summary)")
        #expect(overview.details.contains("Calibration: 0.1744 reciprocal nanometres a pixel."))
    }

    @Test func noiseIsCalledNoise() {
        var random = SeededRandom(seed: 5)
        for (width, height) in [(128, 128), (300, 200)] {
            let samples = (0..<(width * height)).map { _ in UInt16(1000 + 100 * random.gaussian()) }
            let overview = ImageOverview(
                image: GrayImage(width: width, height: height, bitDepth: 16, samples: samples), pixelSize: nil)
            #expect(overview.kind == .noise)
            #expect(overview.summary == [Phrases.onlyNoise])
            #expect(overview.features.isEmpty && overview.particles.isEmpty && overview.diffraction == nil)
        }
    }

    /// A wrapped ramp, sharp bands and a smooth ramp: regions, never columns.
    @Test func regionsAreSaidWithTheirPlace() {
        func image(_ value: (Int, Int) -> Double, size: Int = 256) -> GrayImage {
            var random = SeededRandom(seed: 9)
            let samples = (0..<(size * size)).map { k in
                UInt16(min(65535, max(0, (value(k % size, k / size) + 30 * random.gaussian()).rounded())))
            }
            return GrayImage(width: size, height: size, bitDepth: 16, samples: samples)
        }
        let wrapped = ImageOverview(
            image: image({ x, y in Double((x * 37 + y * 1009) % 65536) }, size: 512), pixelSize: nil)
        #expect(wrapped.kind == .regions, "\(wrapped.summary)")
        #expect(!wrapped.summary.joined().contains("apart"), "\(wrapped.summary)")
        let band = ImageOverview(image: image { _, y in y < 85 ? 5000 : 1000 }, pixelSize: nil)
        #expect(band.kind == .regions)
        #expect(
            band.summary == [
                "No lattice: a bright region covers the top third of the image, 33 percent of it; the rest is darker and even."
            ],
            "\(band.summary)")
        let ramp = ImageOverview(image: image { x, _ in 1000 + 20 * Double(x) }, pixelSize: nil)
        #expect(ramp.summary == ["No lattice: the image grows evenly brighter towards the right."], "\(ramp.summary)")
    }

    @Test(arguments: OverviewSamples.Noise.allCases)
    func aStacksDriftAndFadingAreMeasured(noise: OverviewSamples.Noise) throws {
        // Particles drifting 3.4 px right and 1.1 px down a frame, the last frame 20 % brighter.
        let frames = (0..<3).map { k in
            var sample = ParticleSamples.scattered(noise)
            sample.particles = sample.particles.map {
                .init(x: $0.x + 3.4 * Double(k), y: $0.y + 1.1 * Double(k), diameter: $0.diameter)
            }
            sample.seed &+= UInt64(k)
            if k == 2 { sample.background *= 1.2; sample.contrast *= 1.2 }
            return sample.render()
        }
        let changes = try #require(StackChanges(frames: frames))
        // Each shift within a sixth of a pixel at low noise; at high noise the whole drift within a pixel.
        let within = noise == .low ? 0.15 : 1
        for (k, shift) in changes.shifts.enumerated() where noise == .low || k == 2 {
            let off = Double.hypot(shift.x - 3.4 * Double(k), shift.y - 1.1 * Double(k))
            #expect(off < within, "\(shift)")
        }
        #expect(abs((changes.brightness ?? 0) - 0.2) < 0.01)
        let said = Phrases.stackChanges(changes, pixelSize: nil)
        #expect(said.hasPrefix("Across its 3 frames the image drifts "), "\(said)")
        #expect(said.contains(" pixels towards the right (3."), "\(said)")
        #expect(said.hasSuffix(" a frame) and grows 20 percent brighter."), "\(said)")
        let still = try #require(StackChanges(frames: [frames[0], frames[0]]))
        #expect(Phrases.stackChanges(still, pixelSize: nil) == "Across its 2 frames nothing drifts or fades.")
        #expect(StackChanges(frames: [frames[0]]) == nil)
    }

    @Test func latticeSamplesStayLattices() {
        for sample in OverviewSamples.all(.low) {
            #expect(ImageOverview(image: sample.render(), pixelSize: nil).kind == .lattice, "\(sample.name)")
        }
    }

    @Test func aReciprocalCalibrationIsReadInReciprocalNanometres() {
        #expect(Calibration(x: AxisCalibration(scale: 0.174, unit: "1/nm")).reciprocalPerPixel == 0.174)
        #expect(abs((Calibration(x: AxisCalibration(scale: 0.02, unit: "1/Å")).reciprocalPerPixel ?? 0) - 0.2) < 1e-12)
        #expect(Calibration(x: AxisCalibration(scale: 0.2, unit: "nm")).reciprocalPerPixel == nil)
    }
}
