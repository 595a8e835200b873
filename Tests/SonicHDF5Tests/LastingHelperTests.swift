import Foundation
import Glibc
import SonicCore
import Testing

@testable import SonicHDF5

/// The helpers that read a file stay while it is open: started once for many reads, replaced when
/// one dies in the middle of a read, and gone when the file is let go of.
@Suite struct LastingHelperTests {
    /// A chunked, gzip-compressed HyperSpy spectrum image written here, and its spectra as the reader
    /// makes them.
    static func spectra(height: Int, width: Int, channels: Int, name: String) throws -> (String, HDF5Spectra) {
        let path = NSTemporaryDirectory() + "lasting-\(name)-\(getpid()).hspy"
        try InPlaceSpectraTests.write(path, storage: .chunkedGzip, height: height, width: width, channels: channels)
        let survey = try EMDReader.survey(path: path)
        let cube = try #require(try EMDReader.contents(of: survey, path: path).entries.first?.spectra)
        return (path, try #require(cube.source as? HDF5Spectra))
    }

    static func map(height: Int, width: Int, window: Range<Int>) -> [Double] {
        (0..<(width * height)).map { pixel in
            window.reduce(0.0) { $0 + Double(InPlaceSpectraTests.value(pixel / width, pixel % width, $1)) }
        }
    }

    @Test func oneHelperServesManyReads() throws {
        let (height, width, channels) = (6, 8, 64)
        let (path, spectra) = try Self.spectra(height: height, width: width, channels: channels, name: "many")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for read in 0..<60 {
            let (x, y) = (read % width, read / width % height)
            let shared = try spectra.file.read(spectra.slab(columns: x..<(x + 1), rows: y..<(y + 1)))
            let values = Array(UnsafeBufferPointer(shared.bytes.bindMemory(to: Float.self)))
            #expect(values == (0..<channels).map { Float(InPlaceSpectraTests.value(y, x, $0)) })
        }
        #expect(spectra.file.helpersStarted.load(ordering: .relaxed) == 1)
        #expect(spectra.file.helperProcesses.count == 1)
        for _ in 0..<3 {
            let sweep = try spectra.sweepInTiles(windows: [5..<9], summing: false, valuesPerTile: 200)
            #expect(sweep.maps == [Self.map(height: height, width: width, window: 5..<9)])
        }
        // One a core at most, each started once.
        #expect((1...HDF5File.helperCount).contains(spectra.file.helpersStarted.load(ordering: .relaxed)))
    }

    @Test func theHelpersEndWithTheFile() throws {
        var (path, spectra): (String, HDF5Spectra?) = try Self.spectra(height: 4, width: 5, channels: 16, name: "end")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try spectra?.sweepInTiles(windows: [0..<16], summing: true, valuesPerTile: 50)
        let processes = spectra?.file.helperProcesses ?? []
        #expect(!processes.isEmpty)
        spectra = nil
        // Nothing else holds the file: its helpers are killed and reaped.
        for process in processes { #expect(kill(process, 0) == -1 && errno == ESRCH) }
    }

    /// What a thread of the test's own gives back (the concurrency pool's threads may all be busy
    /// with other tests).
    final class Outcome: @unchecked Sendable {
        var sweep: Result<SpectrumSweep, ImageFileError>?
        let done = DispatchSemaphore(value: 0)
    }

    @Test func aHelperKilledInTheMiddleOfAReadIsReplaced() throws {
        let (height, width, channels) = (96, 96, 256)
        let (path, spectra) = try Self.spectra(height: height, width: width, channels: channels, name: "killed")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = Outcome()
        Thread {
            outcome.sweep = Result { () throws(ImageFileError) in
                try spectra.sweepInTiles(windows: [100..<140], summing: true, valuesPerTile: 4 * channels)
            }
            outcome.done.signal()
        }.start()
        var killed: [pid_t] = []
        for _ in 0..<10_000 where killed.isEmpty {
            let processes = spectra.file.helperProcesses
            if processes.count == HDF5File.helperCount {
                for process in processes { kill(process, SIGKILL) }
                killed = processes
            } else {
                usleep(1000)
            }
        }
        outcome.done.wait()
        let sweep = try #require(try outcome.sweep?.get())
        #expect(killed.count == HDF5File.helperCount)
        #expect(sweep.maps == [Self.map(height: height, width: width, window: 100..<140)])
        #expect(spectra.file.helpersStarted.load(ordering: .relaxed) > HDF5File.helperCount)
        #expect(spectra.file.helperProcesses.allSatisfy { !killed.contains($0) })
    }

    /// Chunks as HyperSpy makes them for a 256 × 256 × 512 spectrum image (whole spectra, 22 × 22
    /// pixels) and others: tiles of whole chunks that cover every value once; chunks of whole channel
    /// planes are read a few planes at a time.
    @Test func tilesAreMadeOfWholeChunks() {
        let file = HDF5File(path: "/nonexistent", limits: EMDReader.readingLimits)
        let (side, channels) = (256, 512)
        for chunks in [[22, 22, 512], [1, 256, 512], [64, 64, 128], [256, 256, 1], [256, 256, 4], [128, 128, 2]] {
            let spectra = HDF5Spectra(
                file: file, path: ["data"], dims: [side, side, channels], sampleType: .uint16, chunks: chunks, x: 1,
                y: 0, channel: 2)
            var covered = [UInt8](repeating: 0, count: side * side * channels)
            for tile in spectra.tiles() {
                let values = tile.columns.count * tile.rows.count * tile.channels.count
                #expect(values <= HDF5Spectra.mostValuesPerTile, "\(chunks)")
                #expect(
                    tile.columns.lowerBound % chunks[1] == 0 && tile.rows.lowerBound % chunks[0] == 0
                        && tile.channels.lowerBound % chunks[2] == 0
                        && [tile.columns.upperBound % chunks[1], side - tile.columns.upperBound].contains(0)
                        && [tile.rows.upperBound % chunks[0], side - tile.rows.upperBound].contains(0)
                        && [tile.channels.upperBound % chunks[2], channels - tile.channels.upperBound].contains(0),
                    "\(chunks): \(tile)")
                for y in tile.rows {
                    for x in tile.columns {
                        for channel in tile.channels { covered[(y * side + x) * channels + channel] &+= 1 }
                    }
                }
            }
            #expect(covered.allSatisfy { $0 == 1 }, "\(chunks)")
        }
    }

    /// Chunks of every pixel and two channels are read eight planes at a time (8 Mi values a tile).
    @Test func wholeChannelPlanesAreReadAFewAtATime() {
        let file = HDF5File(path: "/nonexistent", limits: EMDReader.readingLimits)
        let spectra = HDF5Spectra(
            file: file, path: ["data"], dims: [1024, 1024, 1024], sampleType: .uint16, chunks: [1024, 1024, 2], x: 1,
            y: 0, channel: 2)
        let tiles = spectra.tiles()
        #expect(tiles.count == 1024 / 8 && tiles.allSatisfy { $0.channels.count == 8 })
    }
}
