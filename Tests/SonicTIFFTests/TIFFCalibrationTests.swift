import SonicCore
import Testing

@testable import SonicTIFF

/// The pixel size read from ImageJ descriptions and resolution tags, case by case.
@Suite struct TIFFCalibrationTests {
    func imageJ(_ lines: String..., x: Float? = 4, y: Float? = 4) -> Calibration {
        TIFFCalibration.of(
            description: (["ImageJ=1.54f"] + lines).joined(separator: "\n"),
            xResolution: x, yResolution: y, resolutionUnit: 1)
    }

    /// Resolutions in inches divide 25.4, which no binary fraction holds exactly.
    func expect(
        _ axis: AxisCalibration?, scale: Double, unit: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            axis.map { abs($0.scale - scale) < 1e-12 && $0.offset == 0 && $0.unit == unit } == true,
            "\(String(describing: axis))", sourceLocation: sourceLocation)
    }

    @Test func imageJUnitsAreSpelledAsThisProgramDoes() {
        let spellings: [(String, String)] = [
            ("nm", "nm"), ("pm", "pm"), ("micron", "µm"), ("microns", "µm"), ("um", "µm"), ("\\u00B5m", "µm"),
            ("µm", "µm"), ("\u{03BC}m", "µm"), ("A", "Å"), ("\\u00C5", "Å"), ("Å", "Å"), ("\u{212B}", "Å"),
            ("mm", "mm"), ("1/nm", "1/nm"), (" nm ", "nm")
        ]
        for (written, spelled) in spellings {
            let calibration = imageJ("unit=\(written)")
            #expect(calibration.x == AxisCalibration(scale: 0.25, unit: spelled), "\(written)")
            #expect(calibration.y == AxisCalibration(scale: 0.25, unit: spelled), "\(written)")
        }
    }

    @Test func imageJPixelsAreUncalibrated() {
        for unit in ["pixel", "pixels", ""] {
            #expect(imageJ("unit=\(unit)") == .none, "\(unit)")
        }
    }

    @Test func imageJOriginPlacesPixelZero() {
        let calibration = imageJ("unit=nm", "xorigin=8", "yorigin=-2", x: 2, y: 0.5)
        #expect(calibration.x == AxisCalibration(scale: 0.5, offset: -4, unit: "nm"))
        #expect(calibration.y == AxisCalibration(scale: 2, offset: 4, unit: "nm"))
    }

    @Test func imageJSeparateYUnitAndWindowsLineEnds() {
        let calibration = TIFFCalibration.of(
            description: "ImageJ=1.54f\r\nunit=micron\r\nyunit=nm\r\n",
            xResolution: 2, yResolution: 10, resolutionUnit: 1)
        #expect(calibration.x == AxisCalibration(scale: 0.5, unit: "µm"))
        #expect(calibration.y == AxisCalibration(scale: 0.1, unit: "nm"))
    }

    /// An ImageJ description without a unit leaves the resolution tags to decide.
    @Test func imageJWithoutUnitFallsBackToTheTags() {
        let withoutUnit = "ImageJ=1.54f\nimages=1\n"
        #expect(
            TIFFCalibration.of(description: withoutUnit, xResolution: 4, yResolution: 4, resolutionUnit: 1) == .none)
        #expect(
            TIFFCalibration.of(description: withoutUnit, xResolution: 100, yResolution: 50, resolutionUnit: 3)
                == Calibration(x: AxisCalibration(scale: 0.1, unit: "mm"), y: AxisCalibration(scale: 0.2, unit: "mm")))
    }

    @Test func resolutionTagsGiveMillimetres() {
        let inch = TIFFCalibration.of(description: nil, xResolution: 127, yResolution: 254, resolutionUnit: 2)
        expect(inch.x, scale: 0.2, unit: "mm")
        expect(inch.y, scale: 0.1, unit: "mm")
        let centimetre = TIFFCalibration.of(
            description: "not ImageJ", xResolution: 20, yResolution: 40, resolutionUnit: 3)
        #expect(
            centimetre
                == Calibration(x: AxisCalibration(scale: 0.5, unit: "mm"), y: AxisCalibration(scale: 0.25, unit: "mm")))
        // TIFF's default unit, when the tag is absent, is the inch.
        let absent = TIFFCalibration.of(description: nil, xResolution: 508, yResolution: nil, resolutionUnit: nil)
        expect(absent.x, scale: 0.05, unit: "mm")
        #expect(absent.y == nil)
    }

    @Test func noUsableResolutionIsUncalibrated() {
        for unit: UInt16? in [1, 0, 4, 65535] {
            #expect(
                TIFFCalibration.of(description: nil, xResolution: 72, yResolution: 72, resolutionUnit: unit) == .none)
        }
        for bad: Float in [0, -3, .nan, .infinity, -.infinity] {
            #expect(
                TIFFCalibration.of(description: nil, xResolution: bad, yResolution: bad, resolutionUnit: 3) == .none,
                "\(bad)")
            #expect(imageJ("unit=nm", x: bad, y: bad) == .none, "\(bad)")
        }
        #expect(TIFFCalibration.of(description: nil, xResolution: nil, yResolution: nil, resolutionUnit: 2) == .none)
    }
}
