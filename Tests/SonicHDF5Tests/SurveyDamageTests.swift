import SonicCore
import Testing

@testable import SonicHDF5

/// Hostile facts in what the helper reports about a file: entries that say why they are skipped, or
/// a refusal, never a crash. Nothing here reads the file the entries point into.
@Suite struct SurveyDamageTests {
    static func velox(_ datasets: [VeloxDataset]) -> Survey {
        var survey = Survey(veloxVersion: #"{"format": "Velox"}"#)
        survey.velox = datasets
        return survey
    }

    static func entries(_ survey: Survey) throws -> [ImageEntry] {
        try EMDReader.contents(of: survey, path: "/nonexistent.emd").entries
    }

    /// A scalar dataset where Velox keeps a spectrum has no channels axis.
    @Test func aVeloxSpectrumOfOneValueIsSkipped() throws {
        let entries = try Self.entries(
            Self.velox([
                VeloxDataset(kind: "Spectrum", id: "a", layout: DatasetLayout(dims: [], sampleType: .uint16))
            ]))
        #expect(entries.map(\.unsupported) == ["a spectrum of 0 dimensions"])
    }

    /// Spectra beyond the limits are skipped when listed, before anything asks for their overview.
    @Test func veloxSpectraBeyondTheLimitsAreSkipped() throws {
        let entries = try Self.entries(
            Self.velox([
                VeloxDataset(
                    kind: "Spectrum", id: "a", layout: DatasetLayout(dims: [4096, 1_048_577], sampleType: .uint16)),
                VeloxDataset(
                    kind: "EelsSpectrumImage", id: "b",
                    layout: DatasetLayout(dims: [65536, 65536, 65536], sampleType: .float32),
                    settings: #"{"Data": {"offset": -5, "dispersion": 0.25}}"#)
            ]))
        #expect(
            entries.map(\.unsupported) == [
                "the spectra hold 1048577 × 1 × 4096 values, more than the 2147483648 limit",
                "the scan is 65536 × 65536 pixels, more than the 8192 × 8192 limit"
            ])
    }

    /// The helper reports no dimension below 0 or above `DatasetLayout.maxDimension`.
    @Test func dimensionsNoFileHasMakeAGarbledSurvey() {
        for dims in [[-1, 4], [4, DatasetLayout.maxDimension + 1]] {
            let survey = Self.velox([
                VeloxDataset(kind: "Image", id: "a", layout: DatasetLayout(dims: dims, sampleType: .uint8))
            ])
            #expect(throws: ByteReader.garbled) { try Survey(decoding: survey.encoded()) }
        }
    }
}
