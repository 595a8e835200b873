import Foundation
import SonicCore
import Testing

@testable import SonicTIFF

/// Damaged, hostile and odd files: each gives one clear line of error, never a crash or a hang.
@Suite struct TIFFDamageTests {
    /// Lists the file and reads every page it can play.
    static func readAll(_ path: String) throws -> [GrayImage] {
        try TIFFReader.contents(path: path).entries.filter(\.isImage).map { try $0.read() }
    }

    /// Expects an ImageFileError of one line, without the file's name (the caller adds it).
    func expectError(
        _ bytes: [UInt8], containing text: String? = nil, in scratch: ScratchFolder,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = try scratch.write(bytes, as: "damaged.tif")
        #expect(sourceLocation: sourceLocation) { try Self.readAll(path) } throws: { error in
            let message = "\(error)"
            guard error is ImageFileError, !message.contains("\n"), !message.contains(path),
                text.map(message.contains) ?? true
            else {
                Issue.record("message: \(message)", sourceLocation: sourceLocation)
                return false
            }
            return true
        }
    }

    @Test func filesThatAreNotTIFF() throws {
        let scratch = try ScratchFolder("not-tiff")
        defer { scratch.remove() }
        try expectError([], containing: "the file is empty", in: scratch)
        try expectError(Array("hello, this is text\n".utf8), containing: "not a TIFF file", in: scratch)
        try expectError([0x49, 0x49, 0x2A, 0x00], containing: "the TIFF header is truncated", in: scratch)
        try expectError(
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0], containing: "the directory of page 1 is damaged",
            in: scratch)
        try expectError([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0], containing: "no pages", in: scratch)
        try expectError(
            (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, containing: "not a TIFF file",
            in: scratch)
    }

    @Test func missingFilesAndFolders() throws {
        let scratch = try ScratchFolder("missing")
        defer { scratch.remove() }
        #expect { try TIFFReader.contents(path: scratch.path + "/missing.tif") } throws: {
            "\($0)".contains("no such file")
        }
        #expect { try TIFFReader.contents(path: scratch.path) } throws: { "\($0)".contains("not a regular file") }
        let fifo = scratch.path + "/fifo.tif"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect { try TIFFReader.contents(path: fifo) } throws: { "\($0)".contains("not a regular file") }
    }

    /// Cut anywhere, a file gives an error, or (when only a compressed stream's tail is lost and
    /// libtiff still decodes every sample) exactly its samples.
    @Test(arguments: [
        "uint16.tif", "uint16-strips.tif", "uint16-tiled.tif", "three-pages.tif", "uint16-lzw.tif",
        "float32-bigtiff.tif", "int16-bigendian.tif", "float32-deflate-predictor.tif"
    ])
    func truncatedAnywhere(name: String) throws {
        let scratch = try ScratchFolder("truncated-\(name)")
        defer { scratch.remove() }
        let bytes = try TIFFFixtures.bytes(name)
        let expected = try #require(try TIFFFixtures.expected()[name]).map { $0.values?.map(Float.init) }
        for length in 0..<bytes.count {
            let path = try scratch.write(Array(bytes[0..<length]), as: "cut.tif")
            do {
                let planes = try Self.readAll(path)
                #expect(planes.map(\.samples) == expected.compactMap { $0 }, "\(name) cut at \(length)")
            } catch {
                #expect(error is ImageFileError && !"\(error)".contains("\n"), "\(name) cut at \(length): \(error)")
            }
        }
    }

    @Test func damagedDirectories() throws {
        let scratch = try ScratchFolder("directories")
        defer { scratch.remove() }
        let good = TIFFPatcher(try TIFFFixtures.bytes("three-pages.tif"))

        var pastEnd = good
        pastEnd.write(good.bytes.count + 100, at: 4, width: 4)
        try expectError(pastEnd.bytes, containing: "damaged", in: scratch)

        var hugeCount = good
        hugeCount.write(0xFFFF, at: good.directories[0].offset, width: 2)
        try expectError(hugeCount.bytes, containing: "damaged", in: scratch)

        var nextPastEnd = good
        nextPastEnd.write(0x7FFF_FFF0, at: good.directories[0].nextField, width: 4)
        try expectError(nextPastEnd.bytes, containing: "page 2", in: scratch)

        // A chain that loops back to its first page.
        var loop = good
        loop.write(good.directories[0].offset, at: good.directories[2].nextField, width: 4)
        try expectError(loop.bytes, containing: "page 4", in: scratch)

        var selfLoop = good
        selfLoop.write(good.directories[1].offset, at: good.directories[1].nextField, width: 4)
        try expectError(selfLoop.bytes, containing: "page 3", in: scratch)
    }

    @Test func impossibleDimensionsAreRefusedBeforeReading() throws {
        let scratch = try ScratchFolder("dimensions")
        defer { scratch.remove() }
        var listed = 0
        for (width, height) in [
            (100_000, 1000), (8193, 8193), (3, 70_000_000), (0x7FFF_FFFF, 0x7FFF_FFFF),
            (0xFFFF_FFFF, 1)
        ] {
            var file = TIFFPatcher(try TIFFFixtures.bytes("uint16.tif"))
            file.set(256, to: width)
            file.set(257, to: height)
            file.set(278, to: height) // one strip, as in the file
            let path = try scratch.write(file.bytes, as: "huge.tif")
            // libtiff may refuse the directory itself; if it lists the page, reading it is refused.
            guard let contents = try? TIFFReader.contents(path: path) else { continue }
            listed += 1
            #expect(contents.entries.first?.shape == [width, height])
            #expect { try contents.entries.first?.read() } throws: {
                "\($0)" == "the image is \(width) × \(height) pixels, more than the 8192 × 8192 limit"
            }
        }
        #expect(listed >= 3)
        var empty = TIFFPatcher(try TIFFFixtures.bytes("uint16.tif"))
        empty.set(256, to: 0)
        try expectError(empty.bytes, in: scratch)
    }

    @Test func damagedStripsAndTiles() throws {
        let scratch = try ScratchFolder("strips")
        defer { scratch.remove() }
        let strips = TIFFPatcher(try TIFFFixtures.bytes("uint16-strips.tif"))
        let stripOffsets = try #require(strips.firstValueOffset(273))
        let stripCounts = try #require(strips.firstValueOffset(279))

        var offsetPastEnd = strips
        offsetPastEnd.write(strips.bytes.count + 10, at: stripOffsets.at, width: stripOffsets.width)
        try expectError(
            offsetPastEnd.bytes, containing: "the data of strip 0 of 5 lies past the end of the file",
            in: scratch)

        // libtiff replaces uncompressed byte counts that disagree with each other by its own
        // estimate, which here falls short of the rows: an error either way.
        for count in [3, 0x7FFF] {
            var wrongCount = strips
            wrongCount.write(count, at: stripCounts.at, width: stripCounts.width)
            try expectError(wrongCount.bytes, containing: "strip 0 of 5 holds", in: scratch)
        }

        let lzw = TIFFPatcher(try TIFFFixtures.bytes("uint16-lzw.tif"))
        let lzwCounts = try #require(lzw.firstValueOffset(279))
        var lzwCountPastEnd = lzw
        lzwCountPastEnd.write(0x7FFF_FFFF, at: lzwCounts.at, width: lzwCounts.width)
        try expectError(
            lzwCountPastEnd.bytes, containing: "the data of strip 0 of 3 lies past the end of the file",
            in: scratch)

        var noData = strips
        noData.write(0, at: stripOffsets.at, width: stripOffsets.width)
        try expectError(noData.bytes, containing: "strip 0 of 5 has no data", in: scratch)

        // 16-bit data declared as 32-bit: the strips hold half the bytes the rows need.
        var widerSamples = strips
        widerSamples.set(258, to: 32)
        try expectError(widerSamples.bytes, containing: "strip", in: scratch)

        let tiles = TIFFPatcher(try TIFFFixtures.bytes("uint16-tiled.tif"))
        for (tileWidth, tileLength) in [(0x8000_0000, 16), (16, 0xFFFF_FFF0), (65_536, 65_536)] {
            var absurd = tiles
            absurd.set(322, to: tileWidth)
            absurd.set(323, to: tileLength)
            try expectError(absurd.bytes, in: scratch)
        }
        let tileOffsets = try #require(tiles.firstValueOffset(324))
        var tilePastEnd = tiles
        tilePastEnd.write(0x7FFF_0000, at: tileOffsets.at, width: tileOffsets.width)
        try expectError(
            tilePastEnd.bytes, containing: "the data of tile 0 of 6 lies past the end of the file",
            in: scratch)

        // Compressed data damaged in the middle of its stream.
        let lzwOffsets = try #require(lzw.firstValueOffset(273))
        let firstStrip = lzw.read(lzwOffsets.at, lzwOffsets.width)
        var garbled = lzw.bytes
        for i in firstStrip + 2..<firstStrip + 40 { garbled[i] = 0xFF }
        try expectError(garbled, containing: "strip 0 of 3 cannot be decoded", in: scratch)
    }

    /// Pages are read by reopening the file: one replaced or removed since it was listed is noticed.
    @Test func fileChangedAfterListing() throws {
        let scratch = try ScratchFolder("changed")
        defer { scratch.remove() }
        let path = try scratch.write(try TIFFFixtures.bytes("three-pages.tif"), as: "stack.tif")
        let contents = try TIFFReader.contents(path: path)
        _ = try scratch.write(try TIFFFixtures.bytes("uint16.tif"), as: "stack.tif")
        #expect { try contents.entries[0].read() } throws: {
            "\($0)" == "page 1 of 3: the file has changed since it was listed"
        }
        #expect { try contents.entries[2].read() } throws: {
            "\($0)".hasPrefix("page 3 of 3: the page's directory cannot be read again")
        }
        try FileManager.default.removeItem(atPath: path)
        #expect { try contents.entries[1].read() } throws: { "\($0)" == "page 2 of 3: no such file or directory" }
    }

    @Test func unsupportedPagesRefuseToBeRead() throws {
        let contents = try TIFFReader.contents(path: TIFFFixtures.path("rgb.tif"))
        #expect { try contents.entries[0].read() } throws: { "\($0)".contains("RGB data") }
    }
}
