import Foundation
import SonicCore
import SonicImageFiles
import TestSupport
import Testing

extension EndToEnd {
    /// `strain` and `describe --json` on strain samples whose displacement fields are known, written as PNG files:
    /// each checked against the truth the sample was made with.
    @Suite struct StrainCommandTests {
        static let pixelSize = "\(StrainSamples.pixelPicometres)pm"

        /// The sample written as a 16-bit PNG file in `folder`.
        static func write(_ sample: StrainSample, in folder: String) throws -> String {
            let image = sample.render()
            let path = folder + "/\(sample.name.replacingOccurrences(of: " ", with: "-")).png"
            let png = TestPNG(
                width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                samples: image.samples.map { UInt16(max(0, min(65_535, $0.rounded()))) })
            try Data(png.bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// A column of `strain --json`: its place and its four numbers (nil where it has none).
        struct Column {
            var x: Double, y: Double
            var exx: Double?, eyy: Double?, exy: Double?, rotation: Double?
        }

        static func columns(_ report: [String: Any]) throws -> [Column] {
            try #require(report["columns"] as? [[String: Any]]).map {
                Column(
                    x: try #require($0["x"] as? Double), y: try #require($0["y"] as? Double), exx: $0["exx"] as? Double,
                    eyy: $0["eyy"] as? Double, exy: $0["exy"] as? Double, rotation: $0["rotation_deg"] as? Double)
            }
        }

        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        }

        /// Signed distance of (x, y) from the line through `ends`, positive to its right (x growing, for a line down
        /// the image).
        static func side(_ x: Double, _ y: Double, of ends: [ImagePoint]) -> Double {
            let (p, q) = (ends[0], ends[1])
            let length = hypot(q.x - p.x, q.y - p.y)
            return ((q.y - p.y) * (x - p.x) - (q.x - p.x) * (y - p.y)) / length * (q.y > p.y ? 1 : -1)
        }

        static func clear(_ c: Column, of margin: Double) -> Bool {
            min(c.x, c.y, Double(StrainSamples.size - 1) - c.x, Double(StrainSamples.size - 1) - c.y) >= margin
        }

        /// The medians' step from before the interface to beyond it, over the columns farther than `gap` from it and
        /// `margin` from the image's edges: exx, eyy, exy, rotation (degrees).
        static func step(_ columns: [Column], ends: [ImagePoint], gap: Double, margin: Double) -> [Double] {
            let kept = columns.filter { clear($0, of: margin) && abs(side($0.x, $0.y, of: ends)) > gap }
            let before = kept.filter { side($0.x, $0.y, of: ends) < 0 }
            let beyond = kept.filter { side($0.x, $0.y, of: ends) > 0 }
            let parts: [(Column) -> Double?] = [\.exx, \.eyy, \.exy, \.rotation]
            return parts.map { part in
                median(beyond.compactMap(part)) - median(before.compactMap(part))
            }
        }

        /// Variant 0 is the documented sample; variant 11 draws the lattice's turn, the interface's tilt, place and step.
        @Test(arguments: [0, 11]) func strainStepsAcrossAnInterfaceAsTheTruthDoesAndWritesItsMaps(variant: Int) throws {
            let folder = try Fixtures.scratch("strain-interface")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = StrainSamples.sample(.interface, .high, variant: variant)
            let truth = try #require(sample.truth.interfaces.first)
            let path = try Self.write(sample, in: folder)
            let report = try commandJSON([
                "strain", path, "--json", "--pixel-size", Self.pixelSize, "--out", folder + "/map"
            ])
            let reference = try #require(report["reference"] as? [String: Any])
            #expect(reference["method"] as? String == "columns" && reference["given"] as? Bool == false)
            #expect(abs((reference["a_pm"] as? Double ?? 0) - 390.5) < 390.5 * 0.05, "\(reference)")
            let columns = try Self.columns(report)
            #expect(columns.count > 500)
            let spacing = StrainSamples.spacing
            let found = Self.step(columns, ends: truth.ends, gap: 2 * spacing, margin: spacing)
            let expected = [truth.step.exx, truth.step.eyy, truth.step.exy, truth.step.rotationDegrees]
            for k in 0..<3 { #expect(abs(found[k] - expected[k]) <= 0.002, "\(k): \(found) against \(expected)") }
            #expect(abs(found[3] - expected[3]) <= 0.1, "\(found) against \(expected)")

            // The maps: the image's size, the pixel size as their resolution, each column's value at its pixel.
            for name in ["exx", "eyy", "exy", "rotation"] {
                #expect(FileManager.default.fileExists(atPath: "\(folder)/map-\(name).tif"), "\(name)")
            }
            let map = try ImageFiles.open(folder + "/map-exx.tif", number: nil)
            #expect(map.image.width == 512 && map.image.height == 512)
            #expect(abs((map.calibration.pixelSize?.picometres ?? 0) - StrainSamples.pixelPicometres) < 0.001)
            var checked = 0
            for c in columns where Self.clear(c, of: spacing) {
                guard let exx = c.exx else { continue }
                let value = Double(map.image[Int(c.x.rounded()), Int(c.y.rounded())])
                #expect(abs(value - exx) < 1e-6, "(\(c.x), \(c.y)): \(value) against \(exx)")
                checked += 1
            }
            #expect(checked > 400)
            let known = map.image.samples.filter(\.isFinite)
            #expect(known.count > 512 * 512 * 9 / 10)
            #expect(known.allSatisfy { abs($0) < 0.1 })
            let rotation = try ImageFiles.open(folder + "/map-rotation.tif", number: nil).image.samples.filter(
                \.isFinite)
            #expect(rotation.allSatisfy { abs($0) < 5 })
        }

        @Test func strainOfAUniformCrystalIsItsOwnReference() throws {
            let folder = try Fixtures.scratch("strain-uniform")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = StrainSamples.sample(.uniform, .high)
            let path = try Self.write(sample, in: folder)
            let report = try commandJSON(["strain", path, "--json"])
            // The reference is the strained lattice itself: a and b as the true field stretches and turns them.
            let d = sample.truth.columns[0].deformation
            let gradient =
                Matrix2.rotation(d.rotation) * Matrix2(xx: 1 + d.exx, xy: d.exy, yx: d.exy, yy: 1 + d.eyy)
            let a = gradient * PixelVector(x: sample.scene.a.x, y: sample.scene.a.y)
            let b = gradient * PixelVector(x: sample.scene.b.x, y: sample.scene.b.y)
            let reference = try #require(report["reference"] as? [String: Any])
            let lengths = [try #require(reference["a_px"] as? Double), try #require(reference["b_px"] as? Double)]
            #expect(reference["a_pm"] == nil)
            for length in lengths {
                #expect(
                    min(abs(length - a.length), abs(length - b.length)) < 0.005 * a.length, "\(lengths), \(a), \(b)")
            }
            // Against it, the truth is no strain at all: what is found is the measurement's noise.
            let columns = try Self.columns(report).filter { Self.clear($0, of: StrainSamples.spacing) }
            #expect(columns.count > 400)
            for part in [\Column.exx, \.eyy, \.exy] {
                let values = columns.compactMap { $0[keyPath: part] }
                let rms = (values.map { $0 * $0 }.reduce(0, +) / Double(values.count)).squareRoot()
                #expect(values.count > 400 && rms <= 0.003, "rms \(rms)")
            }
            let summary = try #require(report["summary"] as? [String: Any])
            let exx = try #require(summary["exx"] as? [String: Any])
            #expect(abs(exx["median"] as? Double ?? 1) < 0.001)

            // The text: short lines, strains in percent, no exponents.
            let text = try Subprocess.run(Fixtures.binary, ["strain", path, "--pixel-size", Self.pixelSize])
            let lines = text.output.split(separator: "\n").map(String.init)
            #expect(text.status == 0, "\(text.output)")
            #expect(lines.first?.hasPrefix("Strain from the columns' cells: ") == true, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Reference: the largest undisturbed region, x ") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Reference lattice: a ") && $0.contains(" picometres, b ") })
            #expect(lines.contains { $0.hasPrefix("exx: median ") && $0.hasSuffix(" %.") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Rotation: median ") && $0.hasSuffix(" degrees.") })
            #expect(lines.contains { $0.hasPrefix("exy lowest at x ") })
            #expect(!text.output.contains("e-") && lines.allSatisfy { $0.count <= 120 }, "\(lines)")

            let csv = try Subprocess.run(Fixtures.binary, ["strain", path, "--csv"])
            let rows = csv.output.split(separator: "\n")
            #expect(csv.status == 0 && rows.first == "x,y,exx,eyy,exy,rotation_deg")
            #expect(
                rows.count > 500
                    && rows.dropFirst().allSatisfy {
                        $0.split(separator: ",", omittingEmptySubsequences: false).count == 6
                    })
        }

        @Test(arguments: [0, 11]) func geometricPhaseAgreesWithTheTruthWithinItsSmoothing(variant: Int) throws {
            let folder = try Fixtures.scratch("strain-gpa")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = StrainSamples.sample(.interface, .high, variant: variant)
            let truth = try #require(sample.truth.interfaces.first)
            let path = try Self.write(sample, in: folder)
            let report = try commandJSON(["strain", path, "--json", "--method", "gpa", "--out", folder + "/gpa"])
            let reference = try #require(report["reference"] as? [String: Any])
            #expect(reference["method"] as? String == "gpa")
            let smoothing = try #require(reference["smoothing_px"] as? Double)
            #expect(smoothing > 5 && smoothing < 30)
            // Clear of the interface and the image's edges by three smoothing lengths, where GPA is not spread.
            let found = Self.step(
                try Self.columns(report), ends: truth.ends, gap: 3 * smoothing, margin: 3 * smoothing)
            #expect(abs(found[0] - truth.step.exx) <= 0.004, "\(found) against \(truth.step)")
            #expect(abs(found[1] - truth.step.eyy) <= 0.004 && abs(found[2] - truth.step.exy) <= 0.004, "\(found)")
            #expect(abs(found[3] - truth.step.rotationDegrees) <= 0.2, "\(found)")
            let map = try ImageFiles.open(folder + "/gpa-exx.tif", number: nil).image
            #expect(map.width == 512 && map.height == 512)
            // Across the middle row: before the interface about level, beyond it about 3 % more.
            let row = 256, (top, bottom) = (truth.ends[0], truth.ends[1])
            let crossing = top.x + (Double(row) - top.y) / (bottom.y - top.y) * (bottom.x - top.x)
            let xBefore = Int(crossing - 60), xBeyond = Int(crossing + 60)
            #expect(abs(Double(map[xBeyond, row] - map[xBefore, row]) - truth.step.exx) < 0.006)

            // A narrower mask is taken and said.
            let narrow = try commandJSON(["strain", path, "--json", "--method", "gpa", "--mask-radius", "0.01"])
            let narrowReference = try #require(narrow["reference"] as? [String: Any])
            #expect(abs((narrowReference["mask_radius"] as? Double ?? 0) - 0.01) < 1e-12)
        }

        @Test(arguments: [0, 11]) func strainTurnsTheSecondGrainByItsAngle(variant: Int) throws {
            let folder = try Fixtures.scratch("strain-grains")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = StrainSamples.sample(.twoGrains, .high, variant: variant)
            let path = try Self.write(sample, in: folder)
            let columns = try Self.columns(try commandJSON(["strain", path, "--json"]))
            let turn = (sample.truth.grains[1].orientation - sample.truth.grains[0].orientation) * 180 / Double.pi
            let found = Self.step(columns, ends: sample.truth.boundary, gap: 2 * StrainSamples.spacing, margin: 20)
            #expect(abs(found[3] - turn) <= 0.5, "\(found[3]) against \(turn)")
        }

        @Test func describeGivesInterfacesDislocationsGrainsAndReflectionsAsJSON() throws {
            let folder = try Fixtures.scratch("describe-physics")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let spacing = StrainSamples.spacing, pm = StrainSamples.pixelPicometres
            func features(_ report: [String: Any], _ kind: String) throws -> [[String: Any]] {
                try #require(report["features"] as? [[String: Any]]).filter { $0["kind"] as? String == kind }
            }

            // The interface: its course along the true line, its step the truth's.
            let interface = StrainSamples.sample(.interface, .high)
            let line = try #require(interface.truth.interfaces.first)
            let report = try commandJSON(["describe", try Self.write(interface, in: folder), "--json"])
            let found = try #require(try features(report, "interface").first)
            let points = try #require(found["points"] as? [[Double]])
            #expect(points.count >= 2 && points.allSatisfy { abs(Self.side($0[0], $0[1], of: line.ends)) < spacing })
            #expect(abs((found["exx_step"] as? Double ?? 0) - line.step.exx) <= 0.002, "\(found)")
            #expect(abs((found["eyy_step"] as? Double ?? 1) - line.step.eyy) <= 0.002, "\(found)")
            #expect(abs((found["exy_step"] as? Double ?? 1) - line.step.exy) <= 0.002, "\(found)")
            #expect(abs((found["rotation_step_deg"] as? Double ?? 1) - line.step.rotationDegrees) <= 0.1, "\(found)")
            let grains = try #require(report["grains"] as? [[String: Any]])
            #expect(grains.count == 1 && abs((grains[0]["fraction"] as? Double ?? 0) - 1) < 0.05, "\(grains)")
            #expect((report["lattice"] as? [String: Any])?["sublattices"] is [Any])

            // The dislocation: within half a spacing of its core, its Burgers vector the truth's.
            let dislocation = StrainSamples.sample(.dislocation, .high)
            let core = try #require(dislocation.truth.dislocations.first)
            let dislocated = try commandJSON([
                "describe", try Self.write(dislocation, in: folder), "--json", "--pixel-size", Self.pixelSize
            ])
            let cores = try features(dislocated, "dislocation")
            #expect(cores.count == 1, "\(cores)")
            let one = try #require(cores.first)
            let x = try #require(one["x"] as? Double), y = try #require(one["y"] as? Double)
            #expect(hypot(x - core.core.x, y - core.core.y) <= spacing / 2, "(\(x), \(y)) against \(core.core)")
            let burgers = try #require(one["burgers_px"] as? [Double])
            #expect(hypot(burgers[0] - core.burgers.x, burgers[1] - core.burgers.y) < 0.05 * spacing, "\(burgers)")
            let burgersPm = try #require(one["burgers_pm"] as? [Double])
            #expect(abs(burgersPm[0] - burgers[0] * pm) < 1e-6 && abs(burgersPm[1] - burgers[1] * pm) < 1e-6)

            // Two grains: each turned as made, within the square lattice's quarter turn, their boundary drawn.
            let twoGrains = StrainSamples.sample(.twoGrains, .high)
            let grained = try commandJSON(["describe", try Self.write(twoGrains, in: folder), "--json"])
            let said = try #require(grained["grains"] as? [[String: Any]])
            #expect(said.count == 2, "\(said)")
            for grain in twoGrains.truth.grains {
                let degrees = grain.orientation * 180 / Double.pi
                let match = said.first {
                    let off = (($0["rotation_deg"] as? Double ?? .nan) - degrees).truncatingRemainder(dividingBy: 90)
                    return min(abs(off), 90 - abs(off)) <= 0.5
                }
                #expect(match != nil, "\(degrees) degrees not in \(said)")
                #expect(abs((match?["fraction"] as? Double ?? 0) - grain.fraction) < 0.03, "\(said)")
                #expect(match?["side"] is String)
            }
            let boundaries = try features(grained, "grain-boundary")
            #expect(boundaries.count == 1 && (boundaries.first?["points"] as? [[Double]])?.count ?? 0 >= 2)

            // The reflections of the uniformly strained lattice: its first-order spacings within 0.5 %.
            let uniform = StrainSamples.sample(.uniform, .high)
            let d = uniform.truth.columns[0].deformation
            let gradient = Matrix2.rotation(d.rotation) * Matrix2(xx: 1 + d.exx, xy: d.exy, yx: d.exy, yy: 1 + d.eyy)
            let direct = Matrix2(
                columns: gradient * PixelVector(x: uniform.scene.a.x, y: uniform.scene.a.y),
                gradient * PixelVector(x: uniform.scene.b.x, y: uniform.scene.b.y))
            let reciprocal = try #require(direct.inverse)
            // The reciprocal lattice's first-order vectors are the inverse's rows.
            let spacings = [
                1 / hypot(reciprocal.xx, reciprocal.xy), 1 / hypot(reciprocal.yx, reciprocal.yy)
            ]
            let strained = try commandJSON([
                "describe", try Self.write(uniform, in: folder), "--json", "--pixel-size", Self.pixelSize
            ])
            let reflections = try #require(strained["reflections"] as? [[String: Any]])
            #expect(reflections.count >= 2)
            for reflection in reflections.prefix(2) {
                let dPx = try #require(reflection["d_px"] as? Double)
                #expect(spacings.contains { abs(dPx - $0) < 0.005 * $0 }, "\(dPx) against \(spacings)")
                #expect(abs((reflection["d_pm"] as? Double ?? 0) - dPx * pm) < 1e-6)
                #expect(reflection["angle_deg"] is Double && reflection["intensity"] is Double)
                #expect(reflection["grain"] as? Int == 0)
            }
        }

        @Test func strainRefusesBadInputInOneLine() throws {
            func expectOneLine(
                _ arguments: [String], status: Int32, containing text: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) throws {
                let result = try Subprocess.run(Fixtures.binary, ["strain"] + arguments)
                #expect(result.status == status, "\(result.output)", sourceLocation: sourceLocation)
                #expect(result.output.hasPrefix("sonic-atomic: "), "\(result.output)", sourceLocation: sourceLocation)
                #expect(result.output.contains(text), "\(result.output)", sourceLocation: sourceLocation)
                #expect(
                    result.output.split(separator: "\n").count == 1, "\(result.output)", sourceLocation: sourceLocation)
            }
            let folder = try Fixtures.scratch("strain-bad")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try expectOneLine([folder + "/missing.png"], status: 2, containing: "no such file")
            try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: folder + "/text.png"))
            try expectOneLine([folder + "/text.png"], status: 2, containing: "cannot read image")
            let lattice = Fixtures.repository + "/images/atomic-lattice.png"
            try expectOneLine(
                [lattice, "--reference", "600,600,700,700"], status: 2, containing: "lies outside the 384 × 384 image")
            try expectOneLine([lattice, "--reference", "5,5,9,9"], status: 2, containing: "too small")
            try expectOneLine(
                [Fixtures.repository + "/images/shapes.png"], status: 2, containing: "no lattice of atom columns")
            // Options it cannot take: the parser's usage status.
            for (arguments, text) in [
                (["--reference", "1,2,3"], "--reference takes X0,Y0,X1,Y1"), (["--method", "fft"], "fft"),
                (["--mask-radius", "0.01"], "--mask-radius is for --method gpa"),
                (["--json", "--csv"], "choose --json or --csv")
            ] {
                let result = try Subprocess.run(Fixtures.binary, ["strain", lattice] + arguments)
                #expect(result.status == 64 && result.output.contains(text), "\(result.output)")
            }
        }
    }
}
