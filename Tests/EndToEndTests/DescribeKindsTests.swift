import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// `describe` on images that are not lattices — particles, diffraction patterns (generated ones of known truth,
    /// and the real calibrated one beside the repository), noise — held to their truth, in text and JSON.
    @Suite struct DescribeKindsTests {
        static func png(_ image: GrayImage, _ path: String) throws -> String {
            let png = TestPNG(
                width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                samples: image.samples.map { UInt16($0) })
            try Data(png.bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        static func describe(_ arguments: [String]) throws -> (json: [String: Any], text: [String]) {
            let json = try commandJSON(["describe"] + arguments + ["--json"])
            let text = try Subprocess.run(Fixtures.binary, ["describe"] + arguments)
            #expect(text.status == 0, "\(text.output)")
            // Numbers for people: no e-notation, at most four decimals.
            #expect(!text.output.contains(#/\d[eE][+-]?\d/#) && !text.output.contains(#/\d\.\d{5,}/#), "\(text.output)")
            return (json, text.output.split(separator: "\n").map(String.init))
        }

        @Test func describeCountsPlacesAndSizesParticles() throws {
            let folder = try Fixtures.scratch("particles")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            for sample in [ParticleSamples.scattered(.high), ParticleSamples.touching(.low)] {
                let path = try Self.png(sample.render(), folder + "/particles.png")
                let (report, lines) = try Self.describe([path, "--pixel-size", "200pm"])
                #expect(report["kind"] as? String == "particles")
                #expect(report["lattice"] is NSNull && report["diffraction"] is NSNull)
                let particles = try #require(report["particles"] as? [[String: Any]])
                #expect(abs(particles.count - sample.particles.count) <= 2, "\(particles.count)")
                var errors: [Double] = []
                for truth in sample.particles {
                    let nearest = particles.min {
                        hypot(($0["x"] as! Double) - truth.x, ($0["y"] as! Double) - truth.y)
                            < hypot(($1["x"] as! Double) - truth.x, ($1["y"] as! Double) - truth.y)
                    }
                    let found = try #require(nearest)
                    let off = hypot((found["x"] as! Double) - truth.x, (found["y"] as! Double) - truth.y)
                    #expect(off <= max(2, 0.2 * truth.diameter), "particle at \(truth.x), \(truth.y): \(off) px off")
                    let pm = try #require(found["diameter_pm"] as? Double)
                    #expect(abs(pm / (found["diameter_px"] as! Double) - 200) < 1e-6)
                    errors.append(pm / (truth.diameter * 200) - 1)
                }
                let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
                #expect(rms <= 0.15, "diameters \(rms) rms off: \(errors)")
                let touching = particles.map { ($0["touching"] as? [Int] ?? []).count }.reduce(0, +) / 2
                #expect(touching == sample.touching.count)
                #expect(lines.first?.hasPrefix("\(particles.count) particles, ") == true, "\(lines)")
                #expect(lines.first?.contains("nanometres across") == true)
                #expect(lines.contains { $0.hasPrefix("Particle 1 of \(particles.count), ") })
                // Without a pixel size the diameters are in pixels.
                let bare = try commandJSON(["describe", path, "--json"])
                #expect((bare["summary"] as? String)?.contains("pixels across") == true)
                #expect((bare["particles"] as? [[String: Any]])?.allSatisfy { $0["diameter_pm"] == nil } == true)
            }
        }

        @Test func describeGivesADiffractionPatternsBeamSpotsLatticeAndRings() throws {
            let folder = try Fixtures.scratch("diffraction")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let spots = DiffractionSamples.spots(.high, hexagonal: false)
            let path = try writeDiffractionPattern(spots, in: folder)
            let (report, lines) = try Self.describe([path])
            #expect(report["kind"] as? String == "diffraction")
            #expect(report["lattice"] is NSNull)
            let pattern = try #require(report["diffraction"] as? [String: Any])
            let centre = try DescribeTests.point(pattern["centre"])
            #expect(hypot(centre.x - spots.centre.x, centre.y - spots.centre.y) <= 1, "\(centre)")
            let found = try #require(pattern["spots"] as? [[String: Any]]).map {
                (x: $0["x"] as! Double, y: $0["y"] as! Double)
            }
            let hits = spots.spots.filter { s in found.contains { hypot($0.x - s.x, $0.y - s.y) <= 2 } }.count
            let falses = found.filter { f in !spots.spots.contains { hypot(f.x - $0.x, f.y - $0.y) <= 2 } }.count
            #expect(Double(hits) >= 0.9 * Double(spots.spots.count) && Double(falses) < 0.05 * Double(found.count))
            // Each spot a feature to step through and be guided to, where the pattern has it.
            let spotFeatures = try #require(report["features"] as? [[String: Any]])
            #expect(spotFeatures.allSatisfy { $0["kind"] as? String == "spot" } && spotFeatures.count == found.count)
            let lattice = try #require(pattern["reciprocal_lattice"] as? [String: Any])
            #expect(lattice["type"] as? String == "square")
            let d = try #require(lattice["d1_pm"] as? Double)
            #expect(abs(d - 390.5) < 3.9, "\(d)")
            #expect(
                lines.first?.hasPrefix("A diffraction pattern: spots of a square lattice, 2.56") == true, "\(lines)")
            #expect(lines.first?.contains("d 39") == true && lines.first?.contains("picometres") == true)
            // `columns` lists no atom columns in it, and says why.
            let columns = try Subprocess.run(Fixtures.binary, ["columns", path])
            #expect(columns.status == 0 && columns.output.contains("is a diffraction pattern: it has no atom columns"))
            #expect(!columns.output.split(separator: "\n").contains { $0.first?.isNumber == true }, "\(columns.output)")
            // Rings, in a PNG file: radii in pixels and their ratios.
            let rings = DiffractionSamples.rings(.high)
            let ringPath = try Self.png(rings.render(), folder + "/rings.png")
            let (ringReport, ringLines) = try Self.describe([ringPath])
            let ringPattern = try #require(ringReport["diffraction"] as? [String: Any])
            let radii = try #require(ringPattern["rings"] as? [[String: Any]]).map { $0["radius_px"] as! Double }
            #expect(radii.count == rings.rings.count, "\(radii)")
            for (radius, truth) in zip(radii, rings.rings) { #expect(abs(radius / truth.radius - 1) < 0.01) }
            let ringFeatures = try #require(ringReport["features"] as? [[String: Any]])
            #expect(ringFeatures.map { $0["kind"] as? String } == radii.map { _ in "ring" }, "\(ringFeatures)")
            #expect(ringLines.first?.hasPrefix("A diffraction pattern: 5 rings about the direct beam") == true)
        }

        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func theRealDiffractionPatternIsToldAsOne() throws {
            let path = SharedFormats.folder + "/test_diffraction_pattern.dm3"
            let axes = try #require(
                ((try SharedFormats.facts(path)["signals"] as? [[String: Any]])?.first?["axes"]) as? [[String: Any]])
            #expect(axes.first?["units"] as? String == "1/nm")
            let scale = try #require(axes.first?["scale"] as? Double)
            let (report, lines) = try Self.describe([path])
            #expect(report["kind"] as? String == "diffraction")
            #expect(report["lattice"] is NSNull && (report["features"] as? [Any])?.isEmpty == true)
            let pattern = try #require(report["diffraction"] as? [String: Any])
            #expect(abs((pattern["reciprocal_nm_per_px"] as? Double ?? 0) - scale) < 1e-6 * scale)
            // A crop beside the beam: its brightest pixels lie on the image's edge, so no beam is claimed.
            #expect(pattern["centre"] is NSNull && (pattern["spots"] as? [Any])?.isEmpty == true)
            #expect(
                lines.first?.hasPrefix("A diffraction pattern, its direct beam outside the image: ") == true, "\(lines)"
            )
            #expect(lines.contains("Calibration: 0.1744 reciprocal nanometres a pixel."))
            // `columns` finds no atom columns to contradict it with.
            #expect(!lines.contains { $0.contains("olumn") }, "\(lines)")
        }

        @Test func describeSaysHowAStackDrifts() throws {
            let folder = try Fixtures.scratch("drifting")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // Particles drifting 3.4 px right and 1.1 px down a frame.
            let frames = (0..<3).map { k in
                var sample = ParticleSamples.touching(.low)
                sample.particles = sample.particles.map {
                    .init(x: $0.x + 3.4 * Double(k), y: $0.y + 1.1 * Double(k), diameter: $0.diameter)
                }
                sample.seed &+= UInt64(k)
                return sample.render()
            }
            let path = folder + "/drift.dm4"
            let nanometres = SampleDM.Axis(scale: 0.2, units: "nm")
            try Data(
                SampleDM(images: [
                    .init(
                        title: "drift", dimensions: [frames[0].width, frames[0].height, 3], dataType: .uint16,
                        values: frames.flatMap { $0.samples.map(Double.init) },
                        axes: [nanometres, nanometres, SampleDM.Axis(scale: 2, units: "s")])
                ]).bytes
            ).write(to: URL(fileURLWithPath: path))
            let (report, lines) = try Self.describe([path])
            #expect(report["kind"] as? String == "particles")
            let stack = try #require(report["stack"] as? [String: Any])
            #expect(stack["frames"] as? Int == 3 && stack["brightness_change"] is NSNull)
            let shifts = try #require(stack["shifts_px"] as? [Any]).map(DescribeTests.point)
            for (k, shift) in shifts.enumerated() {
                #expect(abs(shift.x - 3.4 * Double(k)) < 0.2 && abs(shift.y - 1.1 * Double(k)) < 0.2, "\(shift)")
            }
            // 7.15 px of 200 pm: 1.4 nanometres, 0.71 a frame.
            #expect(
                lines.contains {
                    $0.hasPrefix("Across its 3 frames the image drifts 1.4 nanometres towards the right (0.")
                        && $0.hasSuffix(" a frame).")
                }, "\(lines)")
        }

        @Test func noiseIsCalledNoiseAndColumnsAgrees() throws {
            let folder = try Fixtures.scratch("noise")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var random = SeededRandom(seed: 3)
            let samples = (0..<(256 * 256)).map { _ in UInt16(2000 + 50 * random.gaussian()) }
            let path = try Self.png(
                GrayImage(width: 256, height: 256, bitDepth: 16, samples: samples), folder + "/n.png")
            let (report, lines) = try Self.describe([path])
            #expect(report["kind"] as? String == "noise" && lines.first == Phrases.onlyNoise, "\(lines)")
            let columns = try commandJSON(["columns", path, "--json"])
            #expect((columns["columns"] as? [Any])?.isEmpty == true)
            // A wrapped ramp is regions, never columns some pixels apart.
            let ramp = (0..<(512 * 512)).map { (k: Int) -> UInt16 in
                let x = k % 512, y = k / 512
                return UInt16((x * 37 + y * 1009) % 65536)
            }
            let rampPath = try Self.png(
                GrayImage(width: 512, height: 512, bitDepth: 16, samples: ramp), folder + "/ramp.png")
            let (rampReport, rampLines) = try Self.describe([rampPath])
            #expect(rampReport["kind"] as? String == "regions", "\(rampLines)")
            #expect(!rampLines.contains { $0.contains("apart") }, "\(rampLines)")
        }
    }
}
