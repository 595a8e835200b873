import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Every command on every format, as a script or a user at a terminal meets them.
    @Suite struct FileFormatTests {
        /// Picometres in one `unit`, as the reference reader writes units.
        static let picometres: [String: Double] = ["pm": 1, "nm": 1000, "µm": 1e6, "Å": 100, "m": 1e12]

        /// Each real microscope file opens in `inspect --json` with the size, type, values and calibration
        /// RosettaSciIO reads from it.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func everyRealMicroscopeFileOpensAsTheReferenceReaderReadsIt() throws {
            for path in try SharedFormats.files("dm3", "dm4", "emd") {
                let signal = try #require((try SharedFormats.facts(path)["signals"] as? [[String: Any]])?.first)
                let shape = signal["shape"] as! [Int]
                let report = try commandJSON(["inspect", "--json", path])
                let name = URL(fileURLWithPath: path).lastPathComponent
                #expect(
                    report["width"] as? Int == shape.last && report["height"] as? Int == shape[shape.count - 2],
                    "\(name)")
                #expect(report["sample_type"] as? String == signal["dtype"] as? String, "\(name)")
                // A stack is one entry, played at its first frame.
                let listed = try #require(report["images"] as? [[String: Any]], "\(name)")
                #expect(
                    listed.count == 1 && listed[0]["kind"] as? String == (shape.count == 3 ? "stack" : "image"),
                    "\(name)")
                let values: [Double] =
                    if let data = signal["data"] { Self.flatten(shape.count == 3 ? (data as! [Any])[0] : data) } else {
                        []
                    }
                let (low, high) =
                    values.isEmpty
                    ? (signal["min"] as! Double, signal["max"] as! Double) : (values.min()!, values.max()!)
                #expect(report["min"] as? Double == low && report["max"] as? Double == high, "\(name): \(report)")
                let axis = (signal["axes"] as! [[String: Any]]).last!
                let expected = Self.picometres[axis["units"] as? String ?? ""].map { $0 * (axis["scale"] as! Double) }
                if let expected {
                    let size = try #require(report["pixel_size_pm"] as? Double, "\(name) has no pixel size")
                    #expect(abs(size / expected - 1) < 1e-6, "\(name): \(size) pm")
                } else {
                    #expect(report["pixel_size_pm"] is NSNull, "\(name): \(report)")
                }
            }
        }

        static func flatten(_ value: Any) -> [Double] {
            if let list = value as? [Any] { return list.flatMap(flatten) }
            return [(value as? NSNumber)?.doubleValue ?? .nan]
        }

        /// The same lattice as a 16-bit PNG, a float DM4 in other units and a float TIFF: the same columns,
        /// their peaks in each file's units.
        @Test func columnsFindTheSameLatticeInEveryFormat() throws {
            let folder = try Fixtures.scratch("formats")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let lattice = LatticeImage(
                .square, width: 96, height: 80, spacing: 16, angle: 0.2, origin: (5.3, 7.9), sigma: 2.5,
                peak: 20_000, background: 3000, backgroundSlope: (2, -1), doseScale: 1, readNoise: 20, seed: 4)
            let image = lattice.render()
            let counts = image.samples.map(Double.init)
            // Electrons per pixel-dwell: the same image in a detector's float units, offset below zero.
            let electrons = counts.map { $0 * 1e-3 - 1.5 }
            try Data(
                TestPNG(width: 96, height: 80, bitDepth: 16, colourType: .gray, samples: counts.map { UInt16($0) })
                    .bytes
            )
            .write(to: URL(fileURLWithPath: folder + "/lattice.png"))
            try Data(
                SampleDM(
                    version: 3,
                    images: [.init(title: "HAADF", dimensions: [96, 80], dataType: .float32, values: electrons)]
                ).bytes
            )
            .write(to: URL(fileURLWithPath: folder + "/lattice.dm3"))
            try Data(
                SampleTIFF(pages: [
                    .init(
                        width: 96, height: 80, kind: .float(bits: 32), values: electrons,
                        imageJ: (pixelsPerUnit: 100, unit: "nm"))
                ]).bytes
            )
            .write(to: URL(fileURLWithPath: folder + "/lattice.tif"))
            // Each column's centre and peak; its other fields (some null without a pixel size) are other tests'.
            func columns(_ file: String) throws -> [[String: Double]] {
                let listed = try #require(
                    try commandJSON(["columns", "--json", folder + "/" + file])["columns"] as? [[String: Any]])
                return listed.map { column in column.compactMapValues { $0 as? Double } }
            }
            let reference = try columns("lattice.png")
            #expect(reference.count > 15)
            for name in ["lattice.dm3", "lattice.tif"] {
                let found = try columns(name)
                try #require(found.count == reference.count, "\(name)")
                for (a, b) in zip(found, reference) {
                    #expect(abs(a["x"]! - b["x"]!) < 0.01 && abs(a["y"]! - b["y"]!) < 0.01, "\(name): \(a) vs \(b)")
                    #expect(abs(a["peak"]! / (b["peak"]! * 1e-3) - 1) < 0.01, "\(name): \(a) vs \(b)")
                }
            }
            // The TIFF's ImageJ calibration, 100 pixels a nanometre: 10 pm.
            #expect(try commandJSON(["inspect", "--json", folder + "/lattice.tif"])["pixel_size_pm"] as? Double == 10)
        }

        /// The real session on the DM4 sample renders the same bytes from the DM4 as from the PNG of the
        /// same image; a log naming the second image renders that one (there, of another size, so refused).
        @Test func renderOpensTheImageTheLogNames() throws {
            let folder = try Fixtures.scratch("render-formats")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let log = Fixtures.repository + "/Tests/Fixtures/logs/dm4-session.jsonl"
            for image in ["atomic-lattice.dm4", "atomic-lattice.png"] {
                let result = try runCommand([
                    "render", Fixtures.repository + "/images/" + image, "--session", log, "--out",
                    folder + "/" + image + ".wav"
                ])
                #expect(result.status == 0, "\(result.output)")
            }
            let fromDM4 = try Data(contentsOf: URL(fileURLWithPath: folder + "/atomic-lattice.dm4.wav"))
            let fromPNG = try Data(contentsOf: URL(fileURLWithPath: folder + "/atomic-lattice.png.wav"))
            #expect(fromDM4.count > 1_000_000 && fromDM4 == fromPNG)
            let second = try String(contentsOfFile: log, encoding: .utf8).replacingOccurrences(
                of: "\"imageNumber\":1", with: "\"imageNumber\":2")
            try second.write(toFile: folder + "/second.jsonl", atomically: true, encoding: .utf8)
            let refused = try runCommand([
                "render", Fixtures.repository + "/images/atomic-lattice.dm4", "--session", folder + "/second.jsonl",
                "--out", folder + "/second.wav"
            ])
            #expect(refused.status == 2 && refused.output.contains("is 192 × 192"), "\(refused.output)")
            // Through a pipe, as into a player: the same sound, the header saying the length is open.
            let piped = try Subprocess.run(
                "/bin/sh",
                [
                    "-c",
                    "'\(Fixtures.binary)' render '\(Fixtures.repository)/images/atomic-lattice.dm4' "
                        + "--session '\(log)' --out /dev/stdout | od -A n -t x1 -N 8; echo bytes"
                ], timeout: 120)
            #expect(piped.output.hasPrefix(" 52 49 46 46 ff ff ff ff\nbytes"), "\(piped.output)")
        }

        /// Damaged and unreadable files of each format, and a missing image: one line, status 2.
        @Test func badMicroscopeFilesExitWithStatusTwo() throws {
            let folder = try Fixtures.scratch("bad-formats")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let dm4 = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repository + "/images/atomic-lattice.dm4"))
            let tiff = SampleTIFF(pages: [
                .init(width: 4, height: 4, kind: .unsigned(bits: 16), values: Array(repeating: 7, count: 16))
            ]).bytes
            // The page's width and height (the first two IFD entries' values) made 100 000 each.
            var hugeTIFF = tiff
            hugeTIFF.replaceSubrange(50..<54, with: [0xA0, 0x86, 0x01, 0])
            hugeTIFF.replaceSubrange(62..<66, with: [0xA0, 0x86, 0x01, 0])
            let cases: [(String, Data, String)] = [
                ("cut.dm4", dm4.prefix(dm4.count / 3), "past the end of the file"),
                ("version.dm4", Data([0, 0, 0, 3]) + dm4.dropFirst(4).prefix(200), "dm"),
                ("cut.tif", Data(tiff.prefix(30)), "TIFF"),
                ("huge.tif", Data(hugeTIFF), "limit"),
                (
                    "empty.emd",
                    Data([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 100)), "HDF5"
                )
            ]
            for (name, bytes, fault) in cases {
                try bytes.write(to: URL(fileURLWithPath: folder + "/" + name))
                for command in ["inspect", "columns"] {
                    let result = try runCommand([command, folder + "/" + name])
                    #expect(
                        result.status == 2 && result.output.hasPrefix("sonic-atomic: cannot read image "),
                        "\(name): \(result.output)")
                    #expect(result.output.contains(fault), "\(name): \(result.output)")
                    #expect(result.output.split(separator: "\n").count == 1, "\(name): \(result.output)")
                }
            }
            let missing = try runCommand(["inspect", Fixtures.repository + "/images/atomic-lattice.dm4", "--image", "3"]
            )
            #expect(
                missing.status == 2 && missing.output.contains("there is no image 3: the file holds 2 images"),
                "\(missing.output)")
            let spectrumOnly = folder + "/spectrum.dm4"
            try Data(
                SampleDM(images: [
                    .init(title: "EELS", dimensions: [16], dataType: .float32, values: Array(repeating: 1, count: 16))
                ]).bytes
            )
            .write(to: URL(fileURLWithPath: spectrumOnly))
            let noImage = try runCommand(["inspect", spectrumOnly])
            #expect(
                noImage.status == 2 && noImage.output.contains("no image it can play (a 1-D signal, not an image)"),
                "\(noImage.output)")
        }
    }
}
