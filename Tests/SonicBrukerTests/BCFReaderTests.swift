import SampleWriters
import SonicCore
import Testing

@testable import SonicBruker

/// Bruker files written by `SampleBCF` (from the format's description) read back as written: every
/// packing of the counts, stored and compressed, over chunks small enough that every table runs on.
@Suite struct BCFReaderTests {
    @Test(arguments: [false, true])
    func everyPackingReadsAsWritten(compressed: Bool) throws {
        let sample = SampleBCF.example(compressed: compressed)
        let contents = try BCFReader.contents(of: FileBytes(copying: sample.bytes()))
        #expect(contents.format == .bcf)
        #expect(contents.entries.map(\.title) == ["BSE", "SE", "EDX"])
        #expect(contents.entries[1].unsupported == "every value 0")
        let image = try contents.entries[0].read()
        #expect(image.sampleType == .uint16 && image.samples == sample.image.map(Float.init))
        #expect(contents.entries[0].calibration.x == AxisCalibration(scale: 0.25, unit: "µm"))
        let edx = contents.entries[2]
        #expect(edx.kind == .spectrumImage && edx.acquiredImage == 0)
        #expect(edx.axes.map(\.size) == [5, 3, 300])
        #expect(edx.axes[2].offset == -0.5 && edx.axes[2].scale == 0.01 && edx.axes[2].units == "keV")
        let cube = try #require(edx.spectra)
        for y in 0..<3 {
            for x in 0..<5 {
                let read = try cube.source.spectra(columns: x..<(x + 1), rows: y..<(y + 1))
                #expect(read == sample.counts[y * 5 + x].map(Float.init), "pixel \(x), \(y)")
            }
        }
        let block = try cube.source.spectra(columns: 1..<4, rows: 1..<3)
        #expect(block.count == 3 * 2 * 300 && block[0..<300].elementsEqual(sample.counts[6].map(Float.init)))
    }

    /// The sweep goes through the counts themselves, never the dense spectra: each window's map and the summed
    /// spectrum as the counts written give them.
    @Test func theSweepAddsEachCountWhereItFalls() throws {
        let sample = SampleBCF.example(compressed: true)
        let contents = try BCFReader.contents(of: FileBytes(copying: sample.bytes()))
        let cube = try #require(contents.entries[2].spectra)
        let windows = [40..<60, 95..<105, 250..<400]
        let sweep = try cube.source.sweep(windows: windows, summing: true)
        for (index, window) in windows.enumerated() {
            let channels = window.clamped(to: 0..<300)
            #expect(sweep.maps[index] == sample.counts.map { Double($0[channels].reduce(0, +)) }, "\(window)")
        }
        #expect(sweep.summed == (0..<300).map { channel in Double(sample.counts.reduce(0) { $0 + $1[channel] }) })
    }

    @Test func aFileWithoutPixelSizesIsInPixels() throws {
        var sample = SampleBCF.example(compressed: false)
        sample.pixelSize = nil
        let contents = try BCFReader.contents(of: FileBytes(copying: sample.bytes()))
        #expect(contents.entries[2].axes[0].scale == 1 && contents.entries[2].axes[0].units == "")
    }

    /// Every prefix and a sweep of single-byte changes give the reading or one clean error.
    @Test(arguments: [false, true])
    func damageGivesCleanErrors(compressed: Bool) throws {
        let bytes = SampleBCF.example(compressed: compressed).bytes()
        func tryReading(_ damaged: [UInt8]) {
            do {
                let contents = try BCFReader.contents(of: FileBytes(copying: damaged))
                for entry in contents.entries {
                    if let cube = entry.spectra {
                        _ = try cube.source.spectra(columns: 0..<cube.width, rows: 0..<cube.height)
                    } else if entry.isImage {
                        _ = try entry.read()
                    }
                }
            } catch let error as ImageFileError {
                #expect(!error.message.isEmpty && !error.message.contains("\n"))
            } catch {
                Issue.record("not a file error: \(error)")
            }
        }
        for length in stride(from: 0, to: bytes.count, by: 97) { tryReading(Array(bytes.prefix(length))) }
        for at in stride(from: 0, to: bytes.count, by: 13) {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var damaged = bytes
                damaged[at] = value
                tryReading(damaged)
            }
        }
    }

    /// Esprit's peak-width calibration (σ² = SigmaAbs + SigmaLin · E, keV) gives the detector's width at Mn Kα,
    /// 124.3 eV for the shared file's; without it, or with one that makes no sense, none.
    @Test func theDetectorsResolutionComesFromThePeakWidthCalibration() throws {
        func header(_ fields: String) throws -> XMLNode {
            try XMLNode.parse(Array("<ClassInstance Type=\"TRTSpectrumHeader\">\(fields)</ClassInstance>".utf8))
        }
        let shared = try header("<SigmaAbs>2.880817408E-4</SigmaAbs><SigmaLin>4.23336195E-4</SigmaLin>")
        let resolution = try #require(BCFReader.resolution(of: shared))
        #expect(abs(resolution - 2.3548 * (2.880817408e-4 + 4.23336195e-4 * 5.8987).squareRoot() * 1000) < 1e-9)
        #expect(abs(resolution - 124.3) < 0.1)
        #expect(BCFReader.resolution(of: try header("<SigmaAbs>1E-4</SigmaAbs>")) == nil)
        #expect(BCFReader.resolution(of: try header("<SigmaAbs>-1</SigmaAbs><SigmaLin>0</SigmaLin>")) == nil)
    }

    @Test func theXMLHeaderReadsEscapesAndRefusesBrokenNesting() throws {
        let root = try XMLNode.parse(Array(#"<?xml?><a x="1 &amp; 2"><b>3,5</b><!-- c --><c/></a>"#.utf8))
        #expect(root.attributes["x"] == "1 & 2" && root.number("b") == 3.5 && root.child("c") != nil)
        #expect(throws: ImageFileError.self) { try XMLNode.parse(Array("<a><b></a></b>".utf8)) }
        #expect(throws: ImageFileError.self) { try XMLNode.parse(Array("<a>".utf8)) }
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        #expect(throws: ImageFileError.self) { try XMLNode.parse(Array(deep.utf8)) }
    }
}
