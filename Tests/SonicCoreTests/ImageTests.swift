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
        let dm = OpenedImage(
            fileName: "sample.dm4", title: "HAADF", number: 1, imageCount: 2,
            calibration: Calibration(x: AxisCalibration(scale: 0.0178, unit: "nm")))
        #expect(dm.spokenName == "sample.dm4, HAADF, image 1 of 2")
        #expect(dm.spokenScale(pixelSize: dm.calibration.pixelSize) == "17.8 picometres per pixel")
        #expect(dm.spokenScale(pixelSize: PixelSize(picometres: 2350)) == "2.35 nanometres per pixel")
        let diffraction = OpenedImage(
            fileName: "dp.dm3", title: "dp",
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

@Suite struct SampleStatisticsTests {
    /// Nearest rank, straight from the definition: the ⌈p/100 · N⌉-th smallest sample.
    func referencePercentile<T>(_ sorted: [T], _ p: Double) -> T {
        let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
        return sorted[min(rank, sorted.count) - 1]
    }

    @Test func percentilesMatchNearestRankDefinition() {
        var random = SeededRandom(seed: 7)
        for count in [1, 2, 7, 200, 1001, 40_000] {
            let samples = (0..<count).map { _ in UInt16(truncatingIfNeeded: random.next() % 5000) }
            let stats = SampleStatistics(GrayImage(width: count, height: 1, bitDepth: 16, samples: samples))
            let sorted = samples.sorted()
            for p in [0.0, 0.5, 1, 25, 50, 99, 99.5, 100] {
                #expect(stats.percentile(p) == Double(referencePercentile(sorted, p)), "p=\(p) n=\(count)")
            }
            #expect(stats.minimum == Double(sorted.first!) && stats.maximum == Double(sorted.last!))
        }
    }

    /// Float and 32-bit data are binned, not counted value by value: the percentiles must still be exact.
    @Test func floatAndWideIntegerPercentilesAreExact() {
        var random = SeededRandom(seed: 11)
        for (type, count) in [
            (SampleType.float32, 1), (.float32, 7), (.float32, 5000), (.int32, 3001), (.float64, 40_000)
        ] {
            // Clustered values with ties and a far outlier, so some bins hold many samples and most none.
            let samples = (0..<count).map { k -> Float in
                if k == 0 { return -3e7 }
                let v = Float(random.next() % 2000) * 0.001 - 0.5
                return type == .int32 ? (v * 1000).rounded() : v
            }
            let stats = SampleStatistics(GrayImage(width: count, height: 1, sampleType: type, samples: samples))
            let sorted = samples.sorted()
            for p in [0.0, 0.5, 1, 25, 50, 99, 99.5, 100] {
                #expect(stats.percentile(p) == Double(referencePercentile(sorted, p)), "\(type) p=\(p) n=\(count)")
            }
            #expect(stats.minimum == Double(sorted.first!) && stats.maximum == Double(sorted.last!))
            let mean = samples.reduce(0.0) { $0 + Double($1) } / Double(count)
            #expect(abs(stats.mean - mean) <= 1e-9 * max(1, abs(mean)))
            #expect(stats.bands(8).reduce(0) { $0 + $1.count } == count)
        }
    }

    @Test func signedSixteenBitImagesCountNegativeValues() {
        let samples: [Float] = [-32768, -5, -5, 0, 7, 32767]
        let stats = SampleStatistics(GrayImage(width: 6, height: 1, sampleType: .int16, samples: samples))
        #expect(stats.minimum == -32768 && stats.maximum == 32767)
        #expect(stats.percentile(50) == -5 && stats.percentile(51) == 0)
        #expect(stats.bands(2).map(\.count) == [3, 3])
    }

    @Test func integerBandsStartOnWholeValuesOnePerValueAtMost() {
        let samples = (0..<9).map { Float($0) }
        let stats = SampleStatistics(GrayImage(width: 9, height: 1, sampleType: .int32, samples: samples))
        #expect(stats.bands(9).map(\.from) == (0..<9).map { Double($0) })
        #expect(stats.bands(9).allSatisfy { $0.count == 1 })
        #expect(stats.bands(3).map(\.from) == [0, 3, 6] && stats.bands(3).map(\.count) == [3, 3, 3])
    }

    @Test func notANumberPlaysAsTheLowestValueAndIsCounted() {
        let image = GrayImage(width: 4, height: 1, sampleType: .float32, samples: [.nan, 2.5, -.infinity, -1])
        #expect(image.samples == [-1, 2.5, -1, -1] && image.nonFiniteCount == 2)
        let empty = GrayImage(width: 2, height: 1, sampleType: .float64, samples: [.nan, .infinity])
        #expect(empty.samples == [0, 0] && empty.nonFiniteCount == 2)
        #expect(GrayImage(width: 1, height: 1, sampleType: .float32, samples: [3]).nonFiniteCount == 0)
    }

    @Test func exactRanksAreNotRoundedUp() {
        // 200 samples 0...199: the 0.5th percentile is rank 1 (value 0), the 99.5th is rank 199 (value 198).
        let stats = SampleStatistics(
            GrayImage(width: 200, height: 1, bitDepth: 16, samples: (0..<200).map(UInt16.init)))
        #expect(stats.percentile(0.5) == 0)
        #expect(stats.percentile(99.5) == 198)
    }
}
