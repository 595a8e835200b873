import SonicCore
import Testing

@testable import SonicHDF5

/// How the reader interprets what the files say: Velox's JSON, its units, Berkeley's units.
@Suite struct EMDMetadataTests {
    @Test func jsonParsesWhatVeloxWrites() throws {
        let text =
            #"{"BinaryResult": {"PixelSize": {"width": "8.1728831922978511e-12"}, "Detector": "BM-Ceta", "n": -1.5e3,"#
            + #" "list": [1, true, null, "a\/b\u00b5"]}}"#
        let json = try #require(JSONValue.parse(text))
        #expect(json["BinaryResult"]?["PixelSize"]?["width"]?.double == 8.1728831922978511e-12)
        #expect(json["BinaryResult"]?["Detector"]?.text == "BM-Ceta")
        #expect(json["BinaryResult"]?["n"]?.double == -1500)
        #expect(json["BinaryResult"]?["list"] == .array([.number(1), .bool(true), .null, .string("a/bµ")]))
    }

    @Test func brokenOrDeepJSONIsRefused() {
        for text in ["", "{", #"{"a": }"#, #"{"a": 1,}"#, "[1 2]", #"{"a": "unterminated}"#, "{} trailing", "nul"] {
            #expect(JSONValue.parse(text) == nil, "\(text)")
        }
        #expect(JSONValue.parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) == nil)
        #expect(JSONValue.parse(String(repeating: "[", count: 10) + String(repeating: "]", count: 10)) != nil)
    }

    func velox(
        _ width: String, _ height: String, unitX: String, unitY: String? = nil,
        offset: (String, String) = ("0", "0")
    ) -> Calibration {
        let json = JSONValue.object([
            "BinaryResult": .object([
                "PixelSize": .object(["width": .string(width), "height": .string(height)]),
                "PixelUnitX": .string(unitX), "PixelUnitY": .string(unitY ?? unitX),
                "Offset": .object(["x": .string(offset.0), "y": .string(offset.1)])
            ])
        ])
        return VeloxEntries.calibration(json)
    }

    func expectAxis(
        _ axis: AxisCalibration?, _ scale: Double, offset: Double = 0, _ unit: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(axis?.unit == unit, sourceLocation: sourceLocation)
        #expect(abs((axis?.scale ?? .nan) - scale) <= 1e-12 * abs(scale), sourceLocation: sourceLocation)
        #expect(
            abs((axis?.offset ?? .nan) - offset) <= 1e-12 * max(abs(offset), abs(scale)), sourceLocation: sourceLocation
        )
    }

    @Test func veloxMetresBecomeAUnitThatSuitsThePixelSize() {
        expectAxis(
            velox(
                "8.1728831922978511e-12", "8.1728831922978511e-12", unitX: "m", offset: ("-1.6738064777825999e-08", "0")
            ).x,
            8.1728831922978511, offset: -16738.064777825999, "pm")
        #expect(velox("2e-9", "2e-9", unitX: "m").x?.unit == "nm")
        #expect(velox("1.5e-7", "1.5e-7", unitX: "m").x?.unit == "nm")
        #expect(velox("3e-6", "3e-6", unitX: "m").x?.unit == "µm")
        // Both axes share the x axis's unit, even when y's pixel would suit another.
        let mixed = velox("5e-10", "2e-9", unitX: "m", offset: ("1e-9", "-3e-9"))
        expectAxis(mixed.x, 500, offset: 1000, "pm")
        expectAxis(mixed.y, 2000, offset: -3000, "pm")
        expectAxis(velox("5e-10", "0.002", unitX: "m", unitY: "µm").y, 2000, "pm")
        // Reciprocal space: 1/m becomes 1/nm.
        expectAxis(velox("1.25e7", "1.25e7", unitX: "1/m").x, 0.0125, "1/nm")
    }

    @Test func veloxCalibrationThatMeansNothingIsDropped() {
        #expect(velox("1", "1", unitX: "") == .none)
        #expect(velox("0", "0", unitX: "m") == .none)
        #expect(velox("nan", "inf", unitX: "m") == .none)
        #expect(velox("oops", "", unitX: "m") == .none)
        #expect(VeloxEntries.calibration(nil) == .none)
        // A unit the reader does not know is kept as written.
        #expect(velox("2", "2", unitX: "px").x == AxisCalibration(scale: 2, unit: "px"))
    }

    @Test func veloxTitlesComeFromTheOperationThenTheMetadata() throws {
        let dataset = VeloxDataset(kind: "Image", id: "abc123", layout: DatasetLayout(dims: [2, 2, 1]), metadata: nil)
        let camera = try #require(JSONValue.parse(#"{"dataPath": "\/Data\/Image\/abc123", "cameraName": "Ceta"}"#))
        let other = try #require(JSONValue.parse(#"{"dataPath": "/Data/Image/zzz", "cameraName": "Wrong"}"#))
        let metadata = try #require(
            JSONValue.parse(
                #"{"BinaryResult": {"DetectorIndex": "1", "Detector": "Fallback"}, "Detectors": {"Detector-1": {"DetectorName": "HAADF"}}}"#
            ))
        #expect(VeloxEntries.detectorName(of: dataset, operations: [other, camera], metadata: metadata) == "Ceta")
        #expect(VeloxEntries.detectorName(of: dataset, operations: [other], metadata: metadata) == "HAADF")
        let bare = try #require(JSONValue.parse(#"{"BinaryResult": {"Detector": "Fallback"}}"#))
        #expect(VeloxEntries.detectorName(of: dataset, operations: [], metadata: bare) == "Fallback")
        #expect(VeloxEntries.detectorName(of: dataset, operations: [], metadata: nil) == nil)
    }

    @Test func berkeleyUnitsAsHyperSpyAndOthersWriteThem() {
        #expect(BerkeleyEntries.units("[n_m]") == "nm")
        #expect(BerkeleyEntries.units("nm") == "nm")
        #expect(BerkeleyEntries.units("[]") == "")
        #expect(BerkeleyEntries.units("") == "")
        #expect(BerkeleyEntries.units("[1/n_m]") == "1/nm")
        #expect(BerkeleyEntries.units("A") == "Å")
        #expect(BerkeleyEntries.units("A^-1") == "1/Å")
        #expect(BerkeleyEntries.units("[u_m]") == "µm")
        #expect(BerkeleyEntries.units(" pm ") == "pm")
    }

    @Test func surveysSurviveTheTripFromTheChild() throws {
        var survey = Survey(veloxVersion: #"{"format": "Velox"}"#, hasBerkeleyVersion: true)
        survey.velox = [
            VeloxDataset(
                kind: "Image", id: "x", layout: DatasetLayout(dims: [3, 4, 2], sampleType: .int16), metadata: "{}")
        ]
        survey.berkeley = [
            BerkeleyDataset(
                group: ["a", "b"], name: "data",
                layout: DatasetLayout(dims: [5], sampleType: nil, unsupported: "not numeric data"),
                axesFromZero: false, axes: [BerkeleyAxis(first: -1, step: 0.25, units: "nm"), nil])
        ]
        survey.operations = ["{}", "µ"]
        survey.hyperspy = [
            HyperSpyExperiment(
                name: "eds", layout: DatasetLayout(dims: [4, 3, 2], sampleType: .uint16),
                axes: [HyperSpyAxis(name: "x", size: 2, scale: 1, offset: 0, units: "nm", navigate: true), nil],
                title: "EDS", signalType: "EDS_TEM", energyResolution: 128.5),
            HyperSpyExperiment(
                name: "image", layout: DatasetLayout(dims: [4, 3], sampleType: .float32), axes: [], title: nil,
                signalType: nil)
        ]
        #expect(try Survey(decoding: survey.encoded()) == survey)
        let bytes = survey.encoded()
        for cut in [0, 1, bytes.count / 2, bytes.count - 1] {
            #expect(throws: ImageFileError.self) { try Survey(decoding: Array(bytes.prefix(cut))) }
        }
        #expect(throws: ImageFileError.self) { try Survey(decoding: bytes + [0]) }
    }
}
