import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The elements a spectrum image holds, through the commands: `describe` names exactly the generated ones with
    /// where each is (carbon and oxygen too, on the continuum's low-energy rise), `inspect` names its peaks by them (never at zero energy, an unexplained peak unidentified),
    /// `map` says where a window's signal is and warns of one that holds none; and the shared real files name what
    /// their READMEs say they hold.
    @Suite struct ElementCommandTests {
        /// The generated spectrum image written as a DigitalMicrograph 4 spectrum image, as Gatan's software lays
        /// it out (each channel an image), float32.
        func write(_ sample: SpectrumSample, signal: String, to path: String) throws {
            let source = try #require(sample.cube.source as? MemorySpectra)
            let (width, height, channels) = (source.width, source.height, source.channels)
            var values = [Double](repeating: 0, count: source.values.count)
            for pixel in 0..<(width * height) {
                for channel in 0..<channels {
                    values[channel * width * height + pixel] = Double(source.values[pixel * channels + channel])
                }
            }
            let axis = sample.cube.spectralAxis
            let energy = SampleDM.Axis(scale: axis.scale, origin: -axis.offset / axis.scale, units: axis.units)
            let image = SampleDM.Image(
                title: "generated", dimensions: [width, height, channels], dataType: .float32, values: values,
                axes: [.uncalibrated, .uncalibrated, energy],
                imageTags: SampleDM.Image.spectrumTags(format: "Spectrum image", signal: signal))
            try Data(SampleDM(images: [image]).bytes).write(to: URL(fileURLWithPath: path))
        }

        /// `describe --json` names exactly the elements the generated image holds, each with its share and centre,
        /// and `describe` says where.
        func expectElements(_ sample: SpectrumSample, path: String, label: String) throws {
            let described = try commandJSON(["describe", path, "--json"])
            let elements = try #require(described["elements"] as? [[String: Any]], "\(label)")
            #expect(Set(elements.compactMap { $0["symbol"] as? String }) == Set(sample.truth.map(\.symbol)), "\(label)")
            for truth in sample.truth {
                guard let found = elements.first(where: { $0["symbol"] as? String == truth.symbol }) else { continue }
                let (x, y) = truth.centroid(width: sample.width)
                #expect(abs((found["fraction"] as? Double ?? -1) - truth.fraction) <= 0.06, "\(label) \(found)")
                #expect(abs((found["x"] as? Double ?? -9) - x) <= 3 && abs((found["y"] as? Double ?? -9) - y) <= 3)
                #expect(found["where"] is String)
            }
        }

        @Test func generatedSpectrumImagesNameTheirElementsAndWhereTheyAre() throws {
            let folder = try Fixtures.scratch("elements")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            for counts in SpectrumSample.Counts.allCases {
                let eds = SpectrumSample.ironNickelSilicon(counts)
                let path = folder + "/fe-ni-si-\(counts).dm4"
                try write(eds, signal: "X-ray", to: path)
                try expectElements(eds, path: path, label: "EDS \(counts)")
                let text = try runCommand(["describe", path]).output
                #expect(text.hasPrefix("Fe in a patch at the centre, 15 percent of the area"), "\(text)")
                // No peak at zero energy; the strongest is iron's or nickel's Kα.
                let inspected = try commandJSON(["inspect", path, "--json"])
                let peaks = try #require((inspected["images"] as? [[String: Any]])?.first?["peaks"] as? [[String: Any]])
                #expect(peaks.allSatisfy { ($0["position"] as? Double ?? 0) > 0.1 }, "\(peaks)")
                #expect(["Fe Kα", "Ni Kα"].contains(peaks.first?["line"] as? String ?? ""), "\(peaks)")
                // Iron's map is in the disc; there is no gold, and map says so on one line.
                let iron = try runCommand(["map", path, "--element", "Fe"])
                #expect(iron.status == 0 && iron.output.contains("Its signal is in a patch at the centre"), "\(iron)")
                let gold = try runCommand(["map", path, "--element", "Au"])
                #expect(gold.status == 0, "\(gold)")
                #expect(
                    gold.output.contains(
                        "sonic-atomic: The window holds no significant signal above the background: "
                            + "no gold is found in the spectra."), "\(gold.output)")
                #expect(!gold.output.contains("Its signal is"), "\(gold.output)")
            }
            let light = SpectrumSample.lightElements(.low)
            try write(light, signal: "X-ray", to: folder + "/light.dm4")
            try expectElements(light, path: folder + "/light.dm4", label: "C, O, Si")
            let lone = SpectrumSample.weakLine(.low)
            try write(lone, signal: "X-ray", to: folder + "/weak.dm4")
            try expectElements(lone, path: folder + "/weak.dm4", label: "weak line")
            #expect(try runCommand(["inspect", folder + "/weak.dm4"]).output.contains(", unidentified"))
            let eels = SpectrumSample.eelsOxides(.low, lowLoss: true)
            try write(eels, signal: "EELS", to: folder + "/eels.dm4")
            try expectElements(eels, path: folder + "/eels.dm4", label: "EELS")
            let background = SpectrumSample.backgroundOnly(.high, hump: true)
            try write(background, signal: "X-ray", to: folder + "/background.dm4")
            #expect(
                (try commandJSON(["describe", folder + "/background.dm4", "--json"])["elements"] as? [Any])?.isEmpty
                    == true)
        }

        /// The shared files name nothing their READMEs say they do not hold: the synthetic EDS image its Ti in the
        /// left half, Sr and O (its Kα on the continuum's steep rise at 0.5 keV) in the right and Cu everywhere, each
        /// placed; the Bruker file (10 kV) its main peak, C Kα, and no peak at zero energy nor past the beam's energy;
        /// a spectrum of counts only near zero energy no peak at all;
        /// Velox's element maps are titled by their elements, its EDS spectra have no peak at zero energy, and it
        /// plays its survey image.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func sharedFilesNameTheElementsTheyHold() throws {
            let folder = SharedFormats.folder + "/spectra"
            let synthetic = folder + "/synthetic_eds_si.hspy"
            let elements = try #require(
                try commandJSON(["describe", synthetic, "--json"])["elements"] as? [[String: Any]])
            let found = Dictionary(uniqueKeysWithValues: elements.map { ($0["symbol"] as? String ?? "", $0) })
            #expect(Set(found.keys).isSubset(of: ["Ti", "Sr", "O", "Cu"]), "\(elements)")
            #expect(Set(found.keys) == ["Ti", "Sr", "O", "Cu"], "\(elements)")
            for (symbol, x, fraction) in [("Ti", 11.5, 0.5), ("Sr", 35.5, 0.5), ("O", 35.5, 0.5), ("Cu", 23.5, 1.0)] {
                #expect(abs((found[symbol]?["fraction"] as? Double ?? -1) - fraction) <= 0.06, "\(symbol)")
                #expect(abs((found[symbol]?["x"] as? Double ?? -9) - x) <= 3, "\(symbol)")
            }
            let bruker = try commandJSON(["inspect", folder + "/over16bit.bcf", "--json", "--image", "2"])
            let spectra = (bruker["images"] as? [[String: Any]] ?? []).first { $0["peaks"] != nil }
            let peaks = try #require(spectra?["peaks"] as? [[String: Any]])
            #expect(peaks.allSatisfy { ($0["position"] as? Double ?? 0) > 0.1 }, "\(peaks)")
            #expect(peaks.allSatisfy { ($0["position"] as? Double ?? 99) < 10 }, "\(peaks)")
            let carbon = peaks.first { $0["line"] as? String == "C Kα" }
            #expect(abs((carbon?["position"] as? Double ?? 0) - 0.277) < 0.05, "\(peaks)")
            let brukerElements = try #require(
                try commandJSON(["describe", folder + "/over16bit.bcf", "--json", "--image", "2"])["elements"]
                    as? [[String: Any]])
            #expect(brukerElements.first?["symbol"] as? String == "C", "\(brukerElements)")
            // RosettaSciIO's EDS spectrum holds counts only near zero energy: no peak.
            let nearZero = try commandJSON(["inspect", folder + "/test-EDS_spectrum.dm3", "--json"])
            let nearZeroPeaks = (nearZero["images"] as? [[String: Any]])?.first?["peaks"] as? [Any]
            #expect(nearZeroPeaks?.isEmpty ?? true, "\(nearZero)")
            let velox = folder + "/example_velox_EELS_EDS.emd"
            let report = try commandJSON(["inspect", velox, "--json"])
            let images = report["images"] as? [[String: Any]] ?? []
            let titles = images.filter { $0["kind"] as? String == "image" }.compactMap { $0["title"] as? String }
            #expect(titles.sorted() == ["Co", "Co-EELS", "DF-S", "Fe", "Fe-EELS", "O", "O-EELS", "a"], "\(titles)")
            for image in images {
                for peak in image["peaks"] as? [[String: Any]] ?? []
                where (image["axes"] as? [[String: Any]])?.last?["units"] as? String == "keV" {
                    #expect(abs(peak["position"] as? Double ?? 0) > 0.1, "\(image["title"] ?? ""): \(peak)")
                }
            }
            let played = try #require(images.first { $0["index"] as? Int == report["image"] as? Int })
            #expect(played["title"] as? String == "a", "\(played)")
        }
    }
}
