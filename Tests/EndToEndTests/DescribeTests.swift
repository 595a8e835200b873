import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// `describe` and `columns` on synthetic images whose features are known, written as PNG files.
    @Suite struct DescribeTests {
        /// The sample written as a 16-bit PNG file in `folder`.
        static func write(_ sample: OverviewSample, in folder: String) throws -> String {
            let image = sample.render()
            let path = folder + "/\(sample.name.replacingOccurrences(of: " ", with: "-")).png"
            let png = TestPNG(
                width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                samples: image.samples.map { UInt16($0) })
            try Data(png.bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        static func point(_ value: Any?) throws -> (x: Double, y: Double) {
            let pair = try #require(value as? [Double])
            #expect(pair.count == 2)
            return (pair[0], pair[1])
        }

        @Test func describeFindsTheCrystalItsColumnsAndItsVacancyAsJSON() throws {
            let folder = try Fixtures.scratch("describe")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = OverviewSamples.crystalBesideAmorphous(.high)
            let report = try commandJSON(["describe", try Self.write(sample, in: folder), "--json"])
            let summary = try #require(report["summary"] as? String)
            #expect(summary.split(separator: " ").count <= 60)
            #expect(summary.hasPrefix("Hexagonal lattice covering the left three fifths of the image"), "\(summary)")
            #expect((report["details"] as? [String])?.isEmpty == false)
            let lattice = try #require(report["lattice"] as? [String: Any])
            #expect(lattice["type"] as? String == "hexagonal")
            #expect(
                abs((lattice["a_px"] as? Double ?? 0) - 20) < 0.1 && abs((lattice["b_px"] as? Double ?? 0) - 20) < 0.1)
            #expect(abs((lattice["gamma_deg"] as? Double ?? 0) - 120) < 0.5)
            #expect(abs((lattice["rotation_deg"] as? Double ?? 0) - 11) < 0.5)
            let crystal = try #require(report["crystal"] as? [String: Any])
            let fraction = try #require(crystal["fraction"] as? Double)
            #expect(abs(fraction - sample.truth.crystalFraction) <= 0.05)
            #expect(crystal["side"] as? String == "the left three fifths")
            let outline = try #require(crystal["outline"] as? [Any])
            // Every corner of the outline lies on the image's edge or near the crystal's, at x 215 to 238.
            for corner in outline {
                let p = try Self.point(corner)
                #expect(p.x == -0.5 || p.y == -0.5 || p.y == 383.5 || (p.x > 195 && p.x < 260), "\(p)")
            }
            let features = try #require(report["features"] as? [[String: Any]])
            let truth = sample.truth.features
            var matched = 0
            for feature in features {
                let x = try #require(feature["x"] as? Double), y = try #require(feature["y"] as? Double)
                let kind = try #require(feature["kind"] as? String)
                guard
                    let same = truth.first(where: {
                        $0.kind.rawValue == kind
                            && hypot($0.position.x - x, $0.position.y - y) <= (kind == "vacancy" ? 4 : 2)
                    })
                else { continue }
                matched += 1
                if same.kind == .brightColumn {
                    #expect(abs((feature["relative_intensity"] as? Double ?? 0) - 1.5) < 0.1)
                } else {
                    #expect(feature["relative_intensity"] == nil)
                }
            }
            #expect(matched == truth.count, "\(features)")
            #expect(features.count - matched <= 1, "\(features)")
        }

        @Test func describeGivesEachDomainWallItsCourse() throws {
            let folder = try Fixtures.scratch("walls")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = OverviewSamples.polarDomains(.high)
            let path = try Self.write(sample, in: folder)
            let report = try commandJSON(["describe", path, "--json", "--pixel-size", "18pm"])
            // The news first: the middle band's heavy columns sit 15 pm up, the rest's 15 pm down.
            let summary = try #require(report["summary"] as? String)
            #expect(
                summary.hasPrefix(
                    "Two polar domains: in a band across the middle, sublattice 2 is displaced 15 picometres, towards "
                        + "the top; in the rest, towards the bottom."), "\(summary)")
            #expect(
                (report["details"] as? [String])?.contains(
                    "Two domains: walls across the image at a third and two thirds of its height.") == true)
            // SrTiO₃'s cell, 390.5 pm, within half a picometre; the summary says it as the details do.
            let said = try #require(summary.firstMatch(of: #/Square lattice, a (\d+\.\d) picometres, /#))
            #expect(abs(Double(said.1)! - 390.5) <= 0.5)
            #expect((report["details"] as? [String])?.contains { $0.contains("a \(said.1) picometres") } == true)
            let walls = try #require(report["features"] as? [[String: Any]]).filter {
                $0["kind"] as? String == "domain-wall"
            }
            #expect(walls.count == 2)
            for (wall, truth) in zip(walls, sample.truth.features) {
                let points = try #require(wall["points"] as? [Any]).map(Self.point)
                #expect(points.count >= 2)
                // The true wall is a straight line: every point of the found course within 10 px of it, and its ends
                // at the image's sides.
                let (start, end) = (truth.points[0], truth.points[1])
                for p in points {
                    let t = (p.x - start.x) / (end.x - start.x)
                    #expect(abs(p.y - (start.y + t * (end.y - start.y))) <= 10, "\(p) off the wall \(truth.points)")
                }
                #expect(points.first!.x < 10 && points.last!.x > 373, "\(points)")
            }
            // The text: the summary's first sentence alone on the first line, the details after.
            let text = try Subprocess.run(Fixtures.binary, ["describe", path])
            let lines = text.output.split(separator: "\n").map(String.init)
            #expect(
                text.status == 0 && lines.first?.hasPrefix("Two polar domains: in a band across the middle") == true,
                "\(lines)")
            #expect(lines.contains("Details:"))
            #expect(
                lines.contains {
                    $0.hasPrefix("Domain wall 1 of 2, across the image at a third of its height, from x ")
                })
        }

        @Test func columnsLeavesTheAmorphousPartOut() throws {
            let folder = try Fixtures.scratch("amorphous")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = OverviewSamples.crystalBesideAmorphous(.high)
            let report = try commandJSON(["columns", try Self.write(sample, in: folder), "--json"])
            let columns = try #require(report["columns"] as? [[String: Any]])
            let found = try columns.map { (x: try #require($0["x"] as? Double), y: try #require($0["y"] as? Double)) }
            // The crystal's edge runs from x 238 at the top to x 215 at the bottom; beyond it, amorphous material.
            #expect(found.allSatisfy { $0.x < 238 + 20 }, "\(found.filter { $0.x >= 258 })")
            #expect(sample.scene.blobs.filter { $0.x > 258 }.count > 100)
            for column in sample.scene.columns where column.x < 215 - 20 && min(column.x, column.y, 383 - column.y) > 4
            {
                #expect(found.contains { hypot($0.x - column.x, $0.y - column.y) < 1 }, "(\(column.x), \(column.y))")
            }
        }

        @Test func describeSaysWhereThereIsNoLatticeAndRefusesBadInputInOneLine() throws {
            // A disc, a square and a triangle, 80, 91 and 65 pixels across as discs as large: three particles.
            let shapes = try commandJSON(["describe", Fixtures.repository + "/images/shapes.png", "--json"])
            #expect((shapes["summary"] as? String)?.hasPrefix("3 particles, ") == true, "\(shapes["summary"] ?? "")")
            #expect(shapes["kind"] as? String == "particles")
            #expect(shapes["lattice"] is NSNull && shapes["crystal"] is NSNull)
            let particles = try #require(shapes["particles"] as? [[String: Any]])
            let truth = [(160.0, 120.0, 91.4), (70.0, 120.0, 80.0), (250.0, 133.3, 65.0)]
            #expect(particles.count == truth.count)
            for (particle, (x, y, diameter)) in zip(particles, truth) {
                let px = particle["diameter_px"] as? Double ?? 0
                #expect(hypot((particle["x"] as? Double ?? 0) - x, (particle["y"] as? Double ?? 0) - y) < 1)
                #expect(abs(px / diameter - 1) < 0.05, "\(px) against \(diameter)")
            }
            #expect(
                (shapes["features"] as? [[String: Any]])?.allSatisfy { $0["kind"] as? String == "particle" } == true)
            let missing = try Subprocess.run(Fixtures.binary, ["describe", "/no/such/image.png"])
            #expect(
                missing.status == 2 && missing.output.hasPrefix("sonic-atomic: cannot read image "), "\(missing.output)"
            )
            #expect(missing.output.split(separator: "\n").count == 1 && missing.output.contains("no such file"))
            let folder = try Fixtures.scratch("describe-bad")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: folder + "/text.png"))
            let text = try Subprocess.run(Fixtures.binary, ["describe", folder + "/text.png"])
            #expect(
                text.status == 2 && text.output.hasPrefix("sonic-atomic: ")
                    && text.output.split(separator: "\n").count == 1)
            let usage = try Subprocess.run(
                Fixtures.binary, ["describe", Fixtures.repository + "/images/atomic-lattice.png", "--pixel-size", "12"])
            #expect(usage.status == 64 && usage.output.contains("--pixel-size must be a size"), "\(usage.output)")
        }

        @Test func inspectSaysTheOverviewToo() throws {
            let result = try Subprocess.run(
                Fixtures.binary, ["inspect", Fixtures.repository + "/images/doped-lattice.png"])
            #expect(result.status == 0)
            let line = result.output.split(separator: "\n").first { $0.hasPrefix("Overview: ") }
            // The news first: the bundled sample's four dopants and one vacancy; then the cell.
            #expect(line?.hasPrefix("Overview: Square lattice with 4 bright columns and 1 vacancy.") == true)
            #expect(line?.contains("Cell a 24.0 pixels, turned 7 degrees clockwise") == true, "\(line ?? "")")
        }
    }
}
