import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Spectrum images, line scans, spectra and stacks through the commands, as a script meets them:
    /// `inspect --json` lists each with its kind and axes, `map` gives the maps RosettaSciIO gives,
    /// and bad files end with one line and status 2.
    @Suite struct SpectraTests {
        /// (kind, every axis's size), sorted: what a file holds, whatever the order it lists it in.
        static func kinds(_ signals: [(kind: String, sizes: [Int])]) -> [String] {
            signals.map { "\($0.kind) \($0.sizes)" }.sorted()
        }

        /// Every file's signals are listed with the kinds and axes RosettaSciIO reads (Velox's EDS
        /// spectrum image as its scan area, 20 × 16 pixels, where RosettaSciIO misreads it), and
        /// `map` gives every window's map of the facts, to float precision.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func everyFileListsItsSignalsAndMapsItsWindowsAsRosettaSciIO() throws {
            for path in try SharedFormats.spectra("dm3", "dm4", "emd", "hspy", "bcf") {
                let name = URL(fileURLWithPath: path).lastPathComponent
                let facts = try #require(try SharedFormats.facts(path)["signals"] as? [[String: Any]])
                let report = try commandJSON(["inspect", "--json", path])
                let listed = try #require(report["images"] as? [[String: Any]], "\(name)")
                #expect(listed.map { $0["index"] as? Int } == Array(1...listed.count), "\(name)")
                let read = listed.map { entry in
                    (
                        kind: entry["kind"] as? String ?? "",
                        sizes: (entry["axes"] as? [[String: Any]] ?? []).map { $0["size"] as? Int ?? 0 }
                    )
                }
                let wanted = facts.map { signal in
                    let corrected = signal["first_320_pixels_as_16x20"] != nil
                    let sizes = (signal["axes"] as? [[String: Any]] ?? []).enumerated().map { index, axis in
                        corrected && index < 2 ? [20, 16][index] : axis["size"] as? Int ?? 0
                    }
                    return (kind: SpectraFacts.kind(signal), sizes: sizes)
                }
                #expect(Self.kinds(read) == Self.kinds(wanted), "\(name)")
                try checkMaps(path, name: name, facts: facts, listed: listed)
            }
        }

        /// Each window of each spectral signal the file's listing tells apart by its axes.
        func checkMaps(_ path: String, name: String, facts: [[String: Any]], listed: [[String: Any]]) throws {
            for signal in facts where signal["spectrum"] != nil {
                let axes = signal["axes"] as? [[String: Any]] ?? []
                let spectral = try #require(axes.last)
                let candidates = listed.filter { entry in
                    let ours = (entry["axes"] as? [[String: Any]])?.last
                    return entry["kind"] as? String == SpectraFacts.kind(signal)
                        && ours?["size"] as? Int == spectral["size"] as? Int
                        && ours?["offset"] as? Double == spectral["offset"] as? Double
                }
                // Velox's six single EDS spectra are alike but for their counts: the unit tests tell them apart.
                guard candidates.count == 1, let index = candidates[0]["index"] as? Int else { continue }
                let windows =
                    (signal["first_320_pixels_as_16x20"] as? [String: Any])?["windows"] as? [[String: Any]]
                    ?? (signal["spectrum"] as? [String: Any])?["windows"] as? [[String: Any]] ?? []
                let described = (signal["spectrum"] as? [String: Any])?["windows"] as? [[String: Any]] ?? []
                for window in windows {
                    let said = described.first { $0["label"] as? String == window["label"] as? String } ?? window
                    let (start, end) = (try #require(said["start"] as? Double), try #require(said["end"] as? Double))
                    let map = try commandJSON([
                        "map", path, "--image", String(index), "--window", "\(start):\(end)", "--json"
                    ])
                    let label = "\(name) image \(index), \(window["label"] ?? "")"
                    #expect(
                        map["channels"] as? [Int] == [
                            window["start_index"] as? Int ?? -1, window["end_index"] as? Int ?? -1
                        ],
                        "\(label)")
                    let values = try #require(map["values"] as? [String: Double], "\(label)")
                    if let sum = (window["sum"] as? NSNumber)?.doubleValue {
                        #expect(SpectraFacts.close(values["0,0"] ?? .nan, sum), "\(label): \(map)")
                        continue
                    }
                    let facts = try #require(window["map"] as? [String: Any], "\(label)")
                    let centre = facts["centre_index"] as? [Int] ?? []
                    let centreKey = centre.count == 2 ? "\(centre[1]),\(centre[0])" : "\(centre.first ?? 0),0"
                    for (found, key) in [
                        (map["min"], "min"), (map["max"], "max"), (map["mean"], "mean"),
                        (values["0,0"], facts["value_at_0_0"] != nil ? "value_at_0_0" : "value_at_0"),
                        (values[centreKey], "value_at_centre")
                    ] {
                        let wanted = (facts[key] as? NSNumber)?.doubleValue ?? .nan
                        #expect(SpectraFacts.close((found as? Double) ?? .nan, wanted), "\(label): \(key) \(map)")
                    }
                }
            }
        }

        /// An element's map on the synthetic EDS spectrum image: titanium where the file's truth
        /// put it (the left half), written as a float TIFF with the scan's calibration.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func anElementsMapShowsWhereItIs() throws {
            let folder = try Fixtures.scratch("element-map")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = SharedFormats.folder + "/spectra/synthetic_eds_si.hspy"
            let map = try commandJSON(["map", path, "--element", "Ti", "--json", "--out", folder + "/ti.tif"])
            #expect(map["feature"] as? String == "Ti Kα" && map["channels"] as? [Int] == [440, 463], "\(map)")
            let values = try #require(map["values"] as? [String: Double])
            // The truth: 129 counts a pixel in the Ti Kα window on the left, 11 on the right.
            #expect(values["0,0"]! > 60 && values["24,20"]! < 40, "\(map)")
            let written = try commandJSON(["inspect", "--json", folder + "/ti.tif"])
            #expect(
                written["width"] as? Int == 48 && written["height"] as? Int == 40
                    && written["sample_type"] as? String == "float32")
            #expect(
                written["min"] as? Double == map["min"] as? Double && written["max"] as? Double == map["max"] as? Double
            )
            #expect(abs((written["pixel_size_pm"] as? Double ?? 0) - 500) < 1e-3, "\(written)")
            // A flat background just below the window takes the bremsstrahlung away.
            let corrected = try commandJSON(["map", path, "--element", "Ti", "--background", "before", "--json"])
            #expect((corrected["mean"] as? Double ?? 0) < (map["mean"] as? Double ?? 0) - 10, "\(corrected)")
        }

        /// Damaged and hostile spectra: one line on stderr, status 2, and never a crash.
        @Test func badSpectraExitWithStatusTwo() throws {
            let folder = try Fixtures.scratch("bad-spectra")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let tags = SampleDM.Image.spectrumTags(format: "Spectrum image", signal: "EELS")
            let energy = SampleDM.Axis(scale: 0.5, origin: -200, units: "eV")
            let files: [(String, SampleDM.Image)] = [
                // 100 000 × 100 000 pixels of 4096 channels, in a file of 64 values.
                (
                    "huge.dm4",
                    .init(
                        title: "EELS", dimensions: [100_000, 100_000, 4096], dataType: .uint16,
                        values: Array(repeating: 1, count: 64), imageTags: tags)
                ),
                // Dimensions that promise more channels than the data holds.
                (
                    "short.dm4",
                    .init(
                        title: "EELS", dimensions: [4, 3, 64], dataType: .float32,
                        values: Array(repeating: 1, count: 100), axes: [.uncalibrated, .uncalibrated, energy],
                        imageTags: tags)
                )
            ]
            for (name, image) in files {
                try Data(SampleDM(images: [image]).bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
            }
            let emd = Fixtures.repository + "/Tests/Fixtures/emd/", hspy = Fixtures.repository + "/Tests/Fixtures/hspy/"
            let cases: [([String], String)] = [
                (["inspect", folder + "/huge.dm4"], "more than the 8192 × 8192 limit"),
                (["inspect", folder + "/short.dm4"], "fewer values than 4 × 3 pixels × 64 channels"),
                (["map", folder + "/short.dm4", "--window", "0:10"], "the file holds no spectra"),
                (["inspect", emd + "velox_bad_stream.emd"], "beyond the 8 channels"),
                (["map", emd + "velox_bad_stream.emd", "--window", "-0.2:-0.15"], "beyond the 8 channels"),
                (["inspect", hspy + "bad_axes.hspy"], "its axes (2 × 9 × 8) do not match its data (2 × 3 × 8)"),
                (["map", hspy + "spectrum.hspy", "--window", "20:30"], "starts beyond the axis"),
                (["map", hspy + "spectrum.hspy", "--element", "U"], "has no K alpha, L alpha or M alpha line"),
                (["map", hspy + "image.hspy", "--window", "1:2"], "the file holds no spectra"),
                (["map", hspy + "line_scan.hspy", "--window", "290:300nm"], "--window takes A:B"),
                (["map", hspy + "line_scan.hspy", "--image", "2", "--window", "290:300"], "there is no image 2")
            ]
            for (arguments, fault) in cases {
                let result = try runCommand(arguments)
                #expect(
                    result.status == 2 && result.output.hasPrefix("sonic-atomic: "), "\(arguments): \(result.output)")
                #expect(result.output.contains(fault), "\(arguments): \(result.output)")
                #expect(result.output.split(separator: "\n").count == 1, "\(arguments): \(result.output)")
            }
            // The map of a single spectrum's window is its sum; --window and --element go alone.
            let sum = try commandJSON(["map", hspy + "spectrum.hspy", "--window", "0:0.1keV", "--json"])
            #expect(sum["width"] as? Int == 1 && sum["channels"] as? [Int] == [5, 10], "\(sum)")
            #expect(try runCommand(["map", hspy + "spectrum.hspy", "--window", "0:1", "--element", "O"]).status == 64)
        }
    }
}
