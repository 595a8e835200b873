import SampleWriters
import SonicCore
import TestSupport
import Testing

/// The reader against files from the independent writer: every version, byte order and pixel type.
@Suite struct DigitalMicrographTests {
    /// Per supported type, values that catch sign, byte-order and width mistakes, and the sample type
    /// the reader must report.
    static let typedValues: [(SampleDM.DataType, SampleType, [Double])] = [
        (.int16, .int16, [-32768, -1, 0, 1, 258, 32767]),
        (.float32, .float32, [-1.5, 0.25, 3.140625, -0.001, 65504.5, 1e-20]),
        (.uint8, .uint8, [0, 1, 127, 128, 254, 255]),
        (.int32, .int32, [-16_777_216, -1, 0, 1, 65538, 16_777_215]),
        (.int8, .int8, [-128, -1, 0, 1, 100, 127]),
        (.uint16, .uint16, [0, 1, 255, 256, 32768, 65535]),
        (.uint32, .uint32, [0, 1, 65536, 16_777_216, 3_000_000_000, 4_294_967_295]),
        (.float64, .float64, [-2.5, 0.1, 1e10, -1e-5, 123_456.789, 0]),
        (.binary, .uint8, [0, 1, 1, 0, 1, 0])
    ]

    static let layouts: [(version: Int, littleEndian: Bool)] = [(3, true), (3, false), (4, true), (4, false)]

    @Test func everyTypeInEveryVersionAndByteOrderReadsExactly() throws {
        for layout in Self.layouts {
            for (dataType, sampleType, values) in Self.typedValues {
                let file = SampleDM(
                    version: layout.version, littleEndian: layout.littleEndian,
                    images: [
                        .init(title: "pixels", dimensions: [3, 2], dataType: dataType, values: values)
                    ])
                let context = "DM\(layout.version) \(layout.littleEndian ? "little" : "big")-endian \(dataType)"
                let contents = try DigitalMicrograph.contents(of: file.bytes)
                #expect(contents.format == (layout.version == 4 ? .dm4 : .dm3), "\(context)")
                let entry = try #require(contents.entries.first, "\(context)")
                #expect(entry.isImage && entry.shape == [3, 2] && entry.sampleType == sampleType, "\(context)")
                let plane = try entry.read()
                #expect(plane.width == 3 && plane.height == 2 && plane.sampleType == sampleType, "\(context)")
                #expect(plane.samples == values.map { Float($0) }, "\(context)")
            }
        }
    }

    @Test func rowsComeTopFirstWithXFastest() throws {
        // A 4 × 3 image whose value is 10 · row + column.
        let values = (0..<3).flatMap { row in (0..<4).map { Double(10 * row + $0) } }
        let file = SampleDM(images: [.init(title: "ramp", dimensions: [4, 3], dataType: .uint16, values: values)])
        let plane = try DigitalMicrograph.contents(of: file.bytes).entries[0].read()
        #expect(plane.width == 4 && plane.height == 3)
        #expect(Array(plane.samples[0..<4]) == [0, 1, 2, 3])
        #expect(Array(plane.samples[8..<12]) == [20, 21, 22, 23])
    }

    /// A thumbnail, an image, a spectrum, a complex image and a stack, as DigitalMicrograph saves them.
    @Test func everyDatasetIsListedInOrderAsWhatItIs() throws {
        for layout in Self.layouts {
            let file = SampleDM(
                version: layout.version, littleEndian: layout.littleEndian,
                images: [
                    .init(
                        title: "Image Of HAADF", dimensions: [4, 4], dataType: .rgba,
                        values: (0..<16).map { Double(0xFF00_0000 | $0 * 0x10101) }),
                    .init(
                        title: "HAADF", dimensions: [5, 4], dataType: .uint16,
                        values: (0..<20).map { Double($0 * 1000) },
                        axes: [.init(scale: 0.02, units: "nm"), .init(scale: 0.02, units: "nm")]),
                    .init(
                        title: "EELS", dimensions: [8], dataType: .float32, values: (0..<8).map { Double($0) / 2 },
                        axes: [.init(scale: 0.5, origin: 200, units: "eV")]),
                    .init(title: "FFT", dimensions: [2, 2], dataType: .complex64, values: [3, 4, 0, 1, -1, 0, 0, -2]),
                    .init(title: "Stack", dimensions: [2, 2, 3], dataType: .int16, values: (0..<12).map(Double.init))
                ])
            let entries = try DigitalMicrograph.contents(of: file.bytes).entries
            #expect(entries.map(\.title) == ["Image Of HAADF", "HAADF", "EELS", "FFT", "Stack"])
            #expect(entries.map(\.shape) == [[4, 4], [5, 4], [8], [2, 2], [2, 2, 3]])
            #expect(entries.map(\.unsupported) == ["the file's thumbnail", nil, nil, nil, nil])
            #expect(entries.map(\.kind) == [nil, .image, .spectrum, .image, .stack])
            #expect(entries[2].sampleType == .float32 && entries[4].sampleType == .int16)
            #expect(
                entries[2].axes == [
                    SignalAxis(name: "Energy loss", size: 8, scale: 0.5, offset: -100, units: "eV", navigation: false)
                ])
            #expect(try entries[2].spectra?.spectrum(x: 0, y: 0) == (0..<8).map { Double($0) / 2 })
            #expect(try entries[1].read().samples == (0..<20).map { Float($0 * 1000) })
            // Complex pixels play as their modulus.
            #expect(entries[3].storedAs == "complex64" && entries[3].sampleType == .float32)
            #expect(try entries[3].read().samples == [5, 1, 1, 2])
            #expect(try entries[4].stack?.frame(2).samples == [8, 9, 10, 11])
            for index in [0, 2] {
                #expect(throws: ImageFileError.self) { try entries[index].read() }
            }
        }
    }

    /// Spectrum images store their channels slowest (as Gatan's do) or fastest, found by the energy
    /// unit; line scans their channels first; every one reads the same spectra.
    @Test func spectrumImagesReadInEitherOrder() throws {
        let (width, height, channels) = (3, 2, 5)
        func value(_ x: Int, _ y: Int, _ c: Int) -> Double { Double(100 * c + 10 * y + x) }
        let tags = SampleDM.Image.spectrumTags(format: "Spectrum image", signal: "EELS")
        let nm = SampleDM.Axis(scale: 2, units: "nm"), eV = SampleDM.Axis(scale: 0.5, origin: -10, units: "eV")
        let slowest = (0..<channels).flatMap { c in (0..<height).flatMap { y in (0..<width).map { value($0, y, c) } } }
        let fastest = (0..<height).flatMap { y in (0..<width).flatMap { x in (0..<channels).map { value(x, y, $0) } } }
        for layout in Self.layouts {
            let file = SampleDM(
                version: layout.version, littleEndian: layout.littleEndian,
                images: [
                    .init(
                        title: "slowest", dimensions: [width, height, channels], dataType: .uint16, values: slowest,
                        axes: [nm, nm, eV], imageTags: tags),
                    .init(
                        title: "fastest", dimensions: [channels, width, height], dataType: .float32, values: fastest,
                        axes: [eV, nm, nm], imageTags: tags),
                    .init(
                        title: "line", dimensions: [channels, width], dataType: .int32,
                        values: Array(fastest.prefix(width * channels)), axes: [eV, nm], imageTags: tags),
                    .init(
                        title: "spot", dimensions: [channels], dataType: .uint32,
                        values: Array(fastest.prefix(channels)),
                        axes: [eV], imageTags: SampleDM.Image.spectrumTags(format: "Spectrum", signal: "EELS"))
                ])
            let entries = try DigitalMicrograph.contents(of: file.bytes).entries
            #expect(entries.map(\.kind) == [.spectrumImage, .spectrumImage, .lineScan, .spectrum])
            let scan = SignalAxis(name: "x", size: width, scale: 2, units: "nm", navigation: true)
            let energy = SignalAxis(
                name: "Energy loss", size: channels, scale: 0.5, offset: 5, units: "eV", navigation: false)
            for entry in entries.prefix(2) {
                #expect(
                    entry.axes == [
                        scan, SignalAxis(name: "y", size: height, scale: 2, units: "nm", navigation: true), energy
                    ])
                let cube = try #require(entry.spectra)
                #expect(cube.spectroscopy == .eels && entry.calibration.pixelSize == PixelSize(picometres: 2000))
                for y in 0..<height {
                    for x in 0..<width {
                        #expect(
                            try cube.spectrum(x: x, y: y) == (0..<channels).map { value(x, y, $0) }, "\(entry.title)")
                    }
                }
            }
            #expect(entries[2].axes == [scan, energy] && entries[3].axes == [energy])
            #expect(try entries[2].spectra?.spectrum(x: 2, y: 0) == (0..<channels).map { value(2, 0, $0) })
            #expect(try entries[3].spectra?.spectrum(x: 0, y: 0) == (0..<channels).map { value(0, 0, $0) })
        }
    }

    @Test func calibrationGivesScaleOffsetAndUnitAsWritten() throws {
        // Offset = −origin × scale: pixel `origin` sits at 0.
        let cases: [(axis: SampleDM.Axis, expected: AxisCalibration?)] = [
            (.init(scale: 0.5, origin: -4, units: "nm"), AxisCalibration(scale: 0.5, offset: 2, unit: "nm")),
            (.init(scale: 0.25, origin: 64, units: "1/nm"), AxisCalibration(scale: 0.25, offset: -16, unit: "1/nm")),
            (.init(scale: 18.5, units: "µm"), AxisCalibration(scale: 18.5, offset: 0, unit: "µm")),
            (.init(scale: 1.5, origin: 1, units: "Å"), AxisCalibration(scale: 1.5, offset: -1.5, unit: "Å")),
            (.init(scale: 1, units: "pm"), AxisCalibration(scale: 1, offset: 0, unit: "pm")),
            (.init(scale: 0.125, units: ""), AxisCalibration(scale: 0.125, offset: 0, unit: "")),
            (.uncalibrated, nil),
            (.init(scale: 1, origin: 7, units: ""), nil),
            (.init(scale: 0, units: "nm"), nil)
        ]
        for layout in Self.layouts {
            for (axis, expected) in cases {
                let file = SampleDM(
                    version: layout.version, littleEndian: layout.littleEndian,
                    images: [
                        .init(
                            title: "calibrated", dimensions: [2, 2], dataType: .uint8, values: [1, 2, 3, 4],
                            axes: [axis, .init(scale: 0.75, origin: 2, units: "nm")])
                    ])
                let calibration = try DigitalMicrograph.contents(of: file.bytes).entries[0].calibration
                #expect(calibration.x == expected, "\(axis.units) \(axis.scale) DM\(layout.version)")
                #expect(calibration.y == AxisCalibration(scale: 0.75, offset: -1.5, unit: "nm"))
            }
        }
    }

    @Test func imageWithoutCalibrationIsUncalibrated() throws {
        let file = SampleDM(images: [.init(title: "bare", dimensions: [2, 2], dataType: .uint8, values: [1, 2, 3, 4])])
        #expect(try DigitalMicrograph.contents(of: file.bytes).entries[0].calibration == .none)
    }

    @Test func titlesKeepNonASCIICharacters() throws {
        let titles = ["Ångström µ-probe", "電子顕微鏡", "𝛼-Fe₂O₃ ✓", ""]
        for layout in Self.layouts {
            let file = SampleDM(
                version: layout.version, littleEndian: layout.littleEndian,
                images: titles.map {
                    .init(title: $0, dimensions: [1, 1], dataType: .uint8, values: [7])
                } + [.init(title: nil, dimensions: [1, 1], dataType: .uint8, values: [7])])
            #expect(try DigitalMicrograph.contents(of: file.bytes).entries.map(\.title) == titles + [""])
        }
    }

    @Test func trailingAxesOfOneAreDropped() throws {
        let file = SampleDM(images: [
            .init(title: "one frame", dimensions: [3, 2, 1], dataType: .int16, values: [1, 2, 3, 4, 5, 6]),
            .init(title: "one row", dimensions: [5, 1], dataType: .float32, values: [1, 2, 3, 4, 5]),
            .init(title: "one column", dimensions: [1, 5], dataType: .float32, values: [1, 2, 3, 4, 5])
        ])
        let entries = try DigitalMicrograph.contents(of: file.bytes).entries
        #expect(entries.map(\.shape) == [[3, 2], [5], [1, 5]])
        #expect(entries.map(\.isImage) == [true, false, true])
        #expect(try entries[0].read().samples == [1, 2, 3, 4, 5, 6])
    }

    @Test func extraSamplesBeyondTheDimensionsAreIgnored() throws {
        let file = SampleDM(images: [.init(title: "", dimensions: [2, 2], dataType: .int8, values: [1, 2, 3, 4, 5, 6])])
        #expect(try DigitalMicrograph.contents(of: file.bytes).entries[0].read().samples == [1, 2, 3, 4])
    }

    @Test func theFileIsRecognisedByItsFirstBytes() {
        for version in [3, 4] {
            let file = SampleDM(version: version, images: [])
            #expect(ImageFileFormat.recognise(file.bytes) == (version == 4 ? .dm4 : .dm3))
        }
    }

    @Test func fileWithoutImagesHasNoEntries() throws {
        var file = SampleDM(images: [])
        #expect(try DigitalMicrograph.contents(of: file.bytes).entries.isEmpty)
        file.leadingTags = []
        let noImageList = SampleDM.file(version: 4, littleEndian: true, root: file.leadingTags)
        #expect(try DigitalMicrograph.contents(of: noImageList).entries.isEmpty)
    }

    /// The sample image size the program ships, written through the writer's public API.
    @Test func calibratedSixteenBitDM4OfSampleSizeReadsBack() throws {
        let side = 384
        let values = (0..<side * side).map { Double(($0 * 2_654_435_761) >> 16 & 0xFFFF) }
        let axis = SampleDM.Axis(scale: 7.8125, units: "pm")
        let file = SampleDM(
            version: 4,
            images: [
                .init(
                    title: "lattice", dimensions: [side, side], dataType: .uint16,
                    values: values, axes: [axis, axis])
            ])
        let entry = try #require(DigitalMicrograph.contents(of: file.bytes).entries.first)
        #expect(
            entry.calibration
                == Calibration(
                    x: AxisCalibration(scale: 7.8125, unit: "pm"),
                    y: AxisCalibration(scale: 7.8125, unit: "pm")))
        #expect(try entry.read().samples == values.map { Float($0) })
    }
}
