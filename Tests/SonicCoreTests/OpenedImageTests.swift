import Testing
@testable import SonicCore

@Suite struct OpenedImageTests {
    @Test func lengthCalibrationsBecomeThePixelSize() {
        func size(_ scale: Double, _ unit: String) -> Double? {
            Calibration(x: AxisCalibration(scale: scale, unit: unit)).pixelSize?.picometres
        }
        #expect(size(17.8, "pm") == 17.8)
        #expect(size(0.0178, "nm") == 17.8)
        #expect(abs(size(0.178, "Å")! - 17.8) < 1e-9)
        #expect(size(18.325, "µm") == 18.325e6)
        #expect(size(1.78e-11, "m").map { abs($0 - 17.8) < 1e-9 } == true)
        // A diffraction pattern's reciprocal calibration, other units and none are not lengths.
        #expect(size(0.174, "1/nm") == nil && size(2, "eV") == nil && size(1, "") == nil)
        #expect(Calibration.none.pixelSize == nil)
        #expect(Calibration(y: AxisCalibration(scale: 9, unit: "pm")).pixelSize?.picometres == 9)
    }

    @Test func theGreetingNamesTheImageAndItsScale() {
        let png = OpenedImage(fileName: "atomic-lattice.png")
        #expect(png.spokenName == "atomic-lattice.png" && png.spokenScale(pixelSize: nil) == nil)
        let dm = OpenedImage(fileName: "sample.dm4", title: "HAADF", number: 1, imageCount: 2,
                             calibration: Calibration(x: AxisCalibration(scale: 0.0178, unit: "nm")))
        #expect(dm.spokenName == "sample.dm4, HAADF, image 1 of 2")
        #expect(dm.spokenScale(pixelSize: dm.calibration.pixelSize) == "17.8 picometres per pixel")
        #expect(dm.spokenScale(pixelSize: PixelSize(picometres: 2350)) == "2.35 nanometres per pixel")
        let diffraction = OpenedImage(fileName: "dp.dm3", title: "dp",
                                      calibration: Calibration(x: AxisCalibration(scale: 0.17443, unit: "1/nm")))
        #expect(diffraction.spokenScale(pixelSize: nil) == "0.174 reciprocal nanometres per pixel")
    }

    @Test func threeSignificantDigits() {
        #expect(LengthUnit.threeDigits(17.81) == "17.8" && LengthUnit.threeDigits(0.17443) == "0.174")
        #expect(LengthUnit.threeDigits(1249.8) == "1250" && LengthUnit.threeDigits(2) == "2")
        #expect(LengthUnit.speak(picometres: 18.3e6) == "18.3 micrometres")
        #expect(LengthUnit.speak(picometres: 0.5) == "0.5 picometres")
    }

    @Test func formatsAreKnownByTheirFirstBytes() {
        #expect(ImageFileFormat.recognise([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFileFormat.recognise([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]) == .emd)
        #expect(ImageFileFormat.recognise([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(ImageFileFormat.recognise([0x4D, 0x4D, 0x00, 0x2A]) == .tiff)
        #expect(ImageFileFormat.recognise([0, 0, 0, 3, 0, 0, 1, 0]) == .dm3)
        #expect(ImageFileFormat.recognise([0, 0, 0, 4, 0, 0, 0, 0]) == .dm4)
        #expect(ImageFileFormat.recognise(Array("not an image".utf8)) == nil)
        #expect(ImageFileFormat.recognise([]) == nil && ImageFileFormat.recognise([0x89]) == nil)
    }
}
