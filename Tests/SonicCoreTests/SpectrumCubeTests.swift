import Foundation
import SonicCore
import Synchronization
import Testing

/// Spectra held in memory, a function of the pixel and channel, read only through `spectra(columns:rows:)`: the
/// protocol's own sweep.
struct ArraySpectra: SpectrumSource {
    let width: Int
    let height: Int
    let channels: Int
    /// value(x, y, channel).
    let value: @Sendable (Int, Int, Int) -> Float

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        rows.flatMap { y in columns.flatMap { x in (0..<channels).map { value(x, y, $0) } } }
    }
}

/// Spectra in memory that count the passes made over them.
final class CountedSpectra: SpectrumSource {
    let spectra: ArraySpectra
    let passes = Atomic(0)

    init(_ spectra: ArraySpectra) { self.spectra = spectra }

    var width: Int { spectra.width }
    var height: Int { spectra.height }
    var channels: Int { spectra.channels }

    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        try spectra.spectra(columns: columns, rows: rows)
    }

    func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        passes.add(1, ordering: .relaxed)
        return try sweepBlockByBlock(windows: windows, summing: summing)
    }
}

@Suite struct SpectrumCubeTests {
    static let value: @Sendable (Int, Int, Int) -> Float = { x, y, c in Float((x * 7 + y * 13 + c * 3) % 11) }

    /// Channel windows as HyperSpy's `s.isig[A:B]` takes them, measured with HyperSpy 2.5.0.
    @Test func windowsTakeTheChannelsHyperSpyTakes() throws {
        let cases: [(offset: Double, scale: Double, size: Int, start: Double, end: Double, channels: Range<Int>)] = [
            (0, 0.01, 1024, 4.36, 4.66, 436..<466), (-0.2, 0.01, 4096, -0.08, 0.08, 12..<28),
            (0, 1, 10, 2.5, 6.5, 2..<6), (-10, 1, 20, -7.5, -2.5, 3..<8), (0, 1, 10, -5, 3, 0..<3),
            (0, 1, 10, 3, 50, 3..<10), (0, 1, 10, 3, 9.5, 3..<9), (800, 0.1692, 2048, 800, 843.3152, 0..<256),
            (-100, 0.5, 2048, -5, 5, 190..<210), (-0.478, 0.005, 4096, -0.048, 0.052, 86..<106)
        ]
        for (offset, scale, size, start, end, channels) in cases {
            let axis = SignalAxis(name: "E", size: size, scale: scale, offset: offset, units: "keV", navigation: false)
            #expect(try axis.channels(from: start, to: end) == channels, "\(start):\(end) on \(offset) + i × \(scale)")
        }
        let axis = SignalAxis(name: "E", size: 10, units: "eV", navigation: false)
        for (start, end) in [(12.0, 15.0), (-5.0, -1.0), (3.2, 3.4), (Double.nan, 2)] {
            #expect(throws: ImageFileError.self) { try axis.channels(from: start, to: end) }
        }
    }

    @Test func windowsAreWrittenWithAnOptionalUnit() throws {
        let keV = SignalAxis(name: "E", size: 1024, scale: 0.01, units: "keV", navigation: false)
        #expect(try EnergyWindow(parsing: "450:470eV", on: keV) == EnergyWindow(start: 0.45, end: 0.47))
        #expect(try EnergyWindow(parsing: "4.4 : 4.6 keV", on: keV) == EnergyWindow(start: 4.4, end: 4.6))
        #expect(try EnergyWindow(parsing: "-0.05:0.05", on: keV) == EnergyWindow(start: -0.05, end: 0.05))
        let eV = SignalAxis(name: "E", size: 2048, scale: 0.5, units: "eV", navigation: false)
        let converted = try #require(try EnergyWindow(parsing: "0.45:0.47keV", on: eV))
        #expect(abs(converted.start - 450) < 1e-9 && abs(converted.end - 470) < 1e-9)
        for bad in ["450-470eV", "a:b", "1:2:3", ":5", "5:"] { #expect(try EnergyWindow(parsing: bad, on: eV) == nil) }
        let nm = SignalAxis(name: "Wavelength", size: 670, scale: 0.15, offset: 316, units: "nm", navigation: false)
        #expect(throws: ImageFileError.self) { try EnergyWindow(parsing: "400:420eV", on: nm) }
        #expect(try EnergyWindow(parsing: "400:420", on: nm) == EnergyWindow(start: 400, end: 420))
    }

    @Test func spectraNearAPixelAreSummedOverTheSquareCutAtTheEdges() throws {
        let cube = SpectrumCube(
            source: ArraySpectra(width: 5, height: 4, channels: 6, value: Self.value),
            spectralAxis: SignalAxis(name: "E", size: 6, navigation: false), spectroscopy: .unknown)
        for (x, y, radius) in [(0, 0, 0), (2, 1, 1), (4, 3, 2), (0, 3, 1)] {
            let expected = (0..<6).map { c in
                var sum = 0.0
                for py in max(0, y - radius)...min(3, y + radius) {
                    for px in max(0, x - radius)...min(4, x + radius) { sum += Double(Self.value(px, py, c)) }
                }
                return sum
            }
            #expect(try cube.spectrum(x: x, y: y, radius: radius) == expected, "(\(x), \(y)) ± \(radius)")
        }
        #expect(throws: ImageFileError.self) { try cube.spectrum(x: 5, y: 0) }
    }

    @Test func mapsSumTheirChannelsAndTakeAFlatBackgroundAway() throws {
        let cube = SpectrumCube(
            source: ArraySpectra(width: 5, height: 4, channels: 12, value: Self.value),
            spectralAxis: SignalAxis(name: "E", size: 12, navigation: false), spectroscopy: .unknown)
        func sum(_ x: Int, _ y: Int, _ channels: Range<Int>) -> Double {
            channels.reduce(0) { $0 + Double(Self.value(x, y, $1)) }
        }
        let map = try cube.map(4..<7)
        let corrected = try cube.map(4..<7, background: 0..<2)
        for y in 0..<4 {
            for x in 0..<5 {
                #expect(map[x, y] == sum(x, y, 4..<7))
                #expect(abs(corrected[x, y] - (sum(x, y, 4..<7) - 1.5 * sum(x, y, 0..<2))) < 1e-12)
            }
        }
        #expect(map.channels == 4..<7 && corrected.background == 0..<2)
        let overview = try cube.overview()
        #expect(overview.totalCounts.values == (0..<20).map { sum($0 % 5, $0 / 5, 0..<12) })
        #expect(
            overview.summed == (0..<12).map { c in (0..<20).reduce(0) { $0 + Double(Self.value($1 % 5, $1 / 5, c)) } })
        #expect(throws: ImageFileError.self) { try cube.map(10..<13) }
        #expect(throws: ImageFileError.self) { try cube.map(3..<3) }
        #expect(map.image.samples == map.values.map { Float($0) } && map.image.sampleType == .float32)
    }

    /// The overview found with the windows asked for next: one pass gives the total counts, the summed
    /// spectrum and the windows' maps, the same as each found alone.
    @Test func windowsFoundWithTheOverviewTakeNoPassOfTheirOwn() throws {
        let source = ArraySpectra(width: 5, height: 4, channels: 12, value: Self.value)
        let counted = CountedSpectra(source)
        let axis = SignalAxis(name: "E", size: 12, navigation: false)
        let cube = SpectrumCube(source: counted, spectralAxis: axis, spectroscopy: .unknown)
        let alone = SpectrumCube(source: source, spectralAxis: axis, spectroscopy: .unknown)
        try cube.overview(with: [4..<7, 0..<2, 10..<14])
        #expect(try cube.map(4..<7, background: 0..<2) == alone.map(4..<7, background: 0..<2))
        #expect(try cube.map(0..<12) == alone.map(0..<12))
        #expect(try cube.overview().summed == alone.overview().summed)
        #expect(counted.passes.load(ordering: .relaxed) == 1)
        // A window not asked for takes a pass.
        #expect(try cube.map(2..<3) == alone.map(2..<3))
        #expect(counted.passes.load(ordering: .relaxed) == 2)
    }

    /// The same cube stored channel fastest, channel slowest, and x slowest, in either byte order,
    /// reads the same through the mapped file as from memory.
    @Test func storedCubesReadTheSameInEveryLayout() throws {
        let (width, height, channels) = (5, 3, 7)
        let reference = SpectrumCube(
            source: ArraySpectra(width: width, height: height, channels: channels, value: Self.value),
            spectralAxis: SignalAxis(name: "E", size: channels, navigation: false), spectroscopy: .unknown)
        let layouts: [(x: Int, y: Int, channel: Int)] = [
            (channels, channels * width, 1), (1, width, width * height), (height * channels, channels, 1),
            (channels * height, 1, height)
        ]
        for strides in layouts {
            for littleEndian in [true, false] {
                var bytes = [UInt8](repeating: 0xEE, count: 3 + width * height * channels * 2)
                for y in 0..<height {
                    for x in 0..<width {
                        for c in 0..<channels {
                            let at = 3 + 2 * (x * strides.x + y * strides.y + c * strides.channel)
                            let value = UInt16(Self.value(x, y, c))
                            bytes[at] = UInt8(littleEndian ? value & 0xFF : value >> 8)
                            bytes[at + 1] = UInt8(littleEndian ? value >> 8 : value & 0xFF)
                        }
                    }
                }
                let layout = SpectrumLayout(width: width, height: height, channels: channels, strides: strides)
                let stored = SpectrumCube(
                    source: try DenseSpectra<UInt16>(
                        file: FileBytes(copying: bytes), offset: 3, layout: layout, littleEndian: littleEndian),
                    spectralAxis: reference.spectralAxis, spectroscopy: .unknown)
                let label = "strides \(strides), little-endian \(littleEndian)"
                #expect(try stored.overview().totalCounts == reference.overview().totalCounts, "\(label)")
                #expect(try stored.overview().summed == reference.overview().summed, "\(label)")
                #expect(try stored.map(2..<5, background: 0..<1) == reference.map(2..<5, background: 0..<1), "\(label)")
                #expect(try stored.spectrum(x: 3, y: 1, radius: 1) == reference.spectrum(x: 3, y: 1, radius: 1))
            }
        }
        let layout = SpectrumLayout(width: 4, height: 4, channels: 4, strides: (4, 16, 1))
        #expect(throws: ImageFileError.self) {
            try DenseSpectra<Float>(
                file: FileBytes(copying: [UInt8](repeating: 0, count: 255)), offset: 0, layout: layout,
                littleEndian: true)
        }
    }

    @Test func stacksGiveFramesAndTheirSumAndMean() throws {
        let stack = FrameStack(count: 3, width: 2, height: 2, sampleType: .uint16) { frame in
            GrayImage(width: 2, height: 2, sampleType: .uint16, samples: (0..<4).map { Float($0 + 10 * frame) })
        }
        #expect(try stack.frame(2).samples == [20, 21, 22, 23])
        #expect(try stack.sum().samples == [30, 33, 36, 39])
        #expect(try stack.sum(mean: true).samples == [10, 11, 12, 13])
        #expect(throws: ImageFileError.self) { try stack.frame(3) }
        let wrong = FrameStack(count: 1, width: 3, height: 2, sampleType: .uint8) { _ in
            GrayImage(width: 2, height: 2, sampleType: .uint8, samples: [1, 2, 3, 4])
        }
        #expect(throws: ImageFileError.self) { try wrong.frame(0) }
    }
}

@Suite struct WorkProgressTests {
    @Test func aTerminalHearsOfLongWorkAfterTwoSecondsAndThenEveryThreeAtMost() {
        var lines = ProgressLines()
        #expect(lines.line(elapsed: 1.9, now: ("reading the spectra", 0.3)) == nil)
        #expect(lines.line(elapsed: 2.0, now: ("reading the spectra", 0.405)) == "Reading the spectra, 40 percent.")
        #expect(lines.line(elapsed: 4.9, now: ("reading the spectra", 0.6)) == nil)
        #expect(lines.line(elapsed: 5.0, now: ("reading the spectra", 0.6)) == "Reading the spectra, 60 percent.")
        #expect(lines.line(elapsed: 9.0, now: ("reading the spectra", 0.6)) == nil)
        #expect(lines.line(elapsed: 9.5, now: nil) == nil)
    }

    @Test func goingThroughSpectraAdvancesToTheEnd() throws {
        let (width, height, channels) = (6, 5, 8)
        let values = (0..<(width * height * channels)).map { UInt16($0 % 251) }
        let bytes = values.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }
        for strides in [(x: channels, y: width * channels, channel: 1), (x: 1, y: width, channel: width * height)] {
            let layout = SpectrumLayout(width: width, height: height, channels: channels, strides: strides)
            let source = try DenseSpectra<UInt16>(
                file: FileBytes(copying: bytes), offset: 0, layout: layout, littleEndian: true)
            let progress = WorkProgress()
            _ = try WorkProgress.$current.withValue(progress) { try source.sweep(windows: [0..<4], summing: true) }
            #expect(progress.now?.what == "reading the spectra" && progress.now?.fraction == 1)
            let blocks = WorkProgress()
            _ = try WorkProgress.$current.withValue(blocks) {
                try source.sweepBlockByBlock(windows: [0..<4], summing: false)
            }
            #expect(blocks.now?.fraction == 1)
        }
    }
}
