import CHDF5
import Foundation
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// HyperSpy spectrum images written here through libhdf5 with a known layout: stored whole and as
/// they are (contiguous, either byte order), or in chunks unfiltered or deflated (and shuffled), the
/// program maps them and reads them itself; with a filter it does not undo (a checksum), the helpers
/// read them. Every way gives the values written, as the helpers' tiles do.
@Suite struct InPlaceSpectraTests {
    enum Storage: String, CaseIterable {
        case contiguous, bigEndian, chunkedGzip, chunked, gzipShuffle
        /// Chunks that cut each spectrum in four.
        case chunksAcrossChannels
        /// Several chunks across each row of pixels, one pixel high.
        case chunksAlongRows
        /// Chunks of every pixel and two channels: whole channel planes.
        case channelPlanes
        /// Chunks that fit no dimension, the spectrum's included: partial chunks at every edge.
        case unevenChunks
        /// A checksum after each chunk, which the program leaves to the helpers.
        case checksummed

        var readsInPlace: Bool { self != .checksummed }

        /// The chunks' extent, HDF5's order (y, x, channels), or nil for contiguous storage.
        func chunks(height: Int, width: Int, channels: Int) -> [Int]? {
            switch self {
            case .contiguous, .bigEndian: nil
            case .chunkedGzip, .chunked, .gzipShuffle, .checksummed: [2, 3, channels]
            case .unevenChunks: [3, 4, max(1, channels * 3 / 8)]
            case .chunksAcrossChannels: [2, 3, max(1, channels / 4)]
            case .chunksAlongRows: [1, 2, channels]
            case .channelPlanes: [height, width, 2]
            }
        }

        var filters: (shuffle: Bool, gzip: Bool) {
            switch self {
            case .contiguous, .bigEndian, .chunked, .checksummed: (false, false)
            case .gzipShuffle, .unevenChunks: (true, true)
            case .chunkedGzip, .chunksAcrossChannels, .chunksAlongRows, .channelPlanes: (false, true)
            }
        }
    }

    /// A HyperSpy file of one spectrum image, `height` × `width` × `channels` (HDF5's order), with
    /// value `valueAt(y, x, channel)`.
    /// With `latestFormat`, in HDF5 1.10's file format, whose chunk indexes only the library lists.
    static func write(
        _ path: String, storage: Storage, height: Int, width: Int, channels: Int, latestFormat: Bool = false
    ) throws {
        H5Eset_auto2(sonic_h5_error_stack(), nil, nil)
        let access = try #require(HDF5Object(H5Pcreate(sonic_h5_file_access()), close: H5Pclose))
        if latestFormat { #expect(H5Pset_libver_bounds(access.id, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0) }
        let file = try #require(
            HDF5Object(H5Fcreate(path, sonic_h5_truncate(), sonic_h5_default(), access.id), close: H5Fclose))
        try Self.attribute(file.id, "file_format", "HyperSpy")
        let experiments = try Self.group(file.id, "Experiments")
        let experiment = try Self.group(experiments.id, "cube")
        let dims = [height, width, channels].map { hsize_t($0) }
        let space = try #require(HDF5Object(H5Screate_simple(3, dims, nil), close: H5Sclose))
        let creation = try #require(HDF5Object(H5Pcreate(sonic_h5_dataset_creation()), close: H5Pclose))
        if let chunks = storage.chunks(height: height, width: width, channels: channels) {
            #expect(H5Pset_chunk(creation.id, 3, chunks.map { hsize_t($0) }) >= 0)
        }
        if storage.filters.shuffle { #expect(H5Pset_shuffle(creation.id) >= 0) }
        if storage.filters.gzip { #expect(H5Pset_deflate(creation.id, 4) >= 0) }
        if storage == .checksummed { #expect(H5Pset_fletcher32(creation.id) >= 0) }
        let type = storage == .bigEndian ? sonic_h5_big_endian_uint16() : sonic_h5_little_endian_uint16()
        let data = try #require(
            HDF5Object(
                H5Dcreate2(experiment.id, "data", type, space.id, sonic_h5_default(), creation.id, sonic_h5_default()),
                close: H5Dclose))
        var values: [UInt16] = []
        for y in 0..<height { for x in 0..<width { for c in 0..<channels { values.append(Self.value(y, x, c)) } } }
        #expect(
            H5Dwrite(data.id, sonic_h5_native_ushort(), sonic_h5_all(), sonic_h5_all(), sonic_h5_default(), values) >= 0
        )
        for (index, (name, size, navigate)) in [("y", height, 1), ("x", width, 1), ("Energy", channels, 0)].enumerated()
        {
            let axis = try Self.group(experiment.id, "axis-\(index)")
            try Self.attribute(axis.id, "name", name)
            try Self.attribute(axis.id, "units", index == 2 ? "keV" : "nm")
            try Self.attribute(axis.id, "size", Double(size))
            try Self.attribute(axis.id, "scale", index == 2 ? 0.01 : 1)
            try Self.attribute(axis.id, "offset", 0)
            try Self.attribute(axis.id, "navigate", Double(navigate))
        }
    }

    static func value(_ y: Int, _ x: Int, _ channel: Int) -> UInt16 {
        UInt16((y * 7919 + x * 104_729 + channel * 31) % 65_521)
    }

    static func group(_ parent: hid_t, _ name: String) throws -> HDF5Object {
        try #require(
            HDF5Object(
                H5Gcreate2(parent, name, sonic_h5_default(), sonic_h5_default(), sonic_h5_default()), close: H5Gclose))
    }

    static func attribute(_ object: hid_t, _ name: String, _ text: String) throws {
        let type = try #require(HDF5Object(H5Tcopy(sonic_h5_c_string()), close: H5Tclose))
        H5Tset_size(type.id, text.utf8.count)
        let space = try #require(HDF5Object(H5Screate(H5S_SCALAR), close: H5Sclose))
        let attribute = try #require(
            HDF5Object(
                H5Acreate2(object, name, type.id, space.id, sonic_h5_default(), sonic_h5_default()), close: H5Aclose))
        #expect(H5Awrite(attribute.id, type.id, text) >= 0)
    }

    static func attribute(_ object: hid_t, _ name: String, _ value: Double) throws {
        let space = try #require(HDF5Object(H5Screate(H5S_SCALAR), close: H5Sclose))
        let attribute = try #require(
            HDF5Object(
                H5Acreate2(object, name, sonic_h5_native_double(), space.id, sonic_h5_default(), sonic_h5_default()),
                close: H5Aclose))
        var value = value
        #expect(H5Awrite(attribute.id, sonic_h5_native_double(), &value) >= 0)
    }

    @Test(arguments: Storage.allCases)
    func spectraReadAsWritten(storage: Storage) throws {
        let path = NSTemporaryDirectory() + "in-place-\(storage.rawValue)-\(getpid()).hspy"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (height, width, channels) = (5, 7, 64)
        try Self.write(path, storage: storage, height: height, width: width, channels: channels)
        let survey = try EMDReader.survey(path: path)
        let layout = try #require(survey.hyperspy.first?.layout)
        let chunks = storage.chunks(height: height, width: width, channels: channels)
        #expect((layout.storage != nil) == (chunks == nil), "\(layout)")
        #expect(layout.storage?.littleEndian == (chunks != nil ? nil : storage == .contiguous))
        #expect(layout.chunks == chunks)
        #expect((layout.chunkTable != nil) == (chunks != nil))
        let cube = try #require(try EMDReader.contents(of: survey, path: path).entries.first?.spectra)
        #expect(cube.width == width && cube.height == height && cube.channels == channels)
        for y in 0..<height {
            for x in 0..<width {
                #expect(try cube.spectrum(x: x, y: y) == (0..<channels).map { Double(Self.value(y, x, $0)) })
            }
        }
        let block = try cube.source.spectra(columns: 2..<5, rows: 1..<4)
        var expected: [Float] = []
        for y in 1..<4 { for x in 2..<5 { expected += (0..<channels).map { Float(Self.value(y, x, $0)) } } }
        #expect(block == expected)
        let sweep = try cube.source.sweep(windows: [10..<20], summing: true)
        let map = (0..<(width * height)).map { pixel in
            (10..<20).reduce(0.0) { $0 + Double(Self.value(pixel / width, pixel % width, $1)) }
        }
        #expect(sweep.maps == [map])
        if let spectra = cube.source as? HDF5Spectra {
            #expect(spectra.readsInPlace == storage.readsInPlace)
            // Tiles of a few chunks, as a large file is gone through.
            let tiled = try spectra.sweepInTiles(windows: [10..<20, 0..<channels], summing: true, valuesPerTile: 400)
            #expect(tiled.maps[0] == map)
            // A window alone: only the tiles that hold its channels.
            #expect(try spectra.sweepInTiles(windows: [10..<20], summing: false, valuesPerTile: 400).maps == [map])
            let summed = (0..<channels).map { channel in
                (0..<(width * height)).reduce(0.0) { $0 + Double(Self.value($1 / width, $1 % width, channel)) }
            }
            #expect(tiled.summed == summed)
            #expect(
                tiled.maps[1]
                    == (0..<(width * height)).map { pixel in
                        summed.indices.reduce(0.0) { $0 + Double(Self.value(pixel / width, pixel % width, $1)) }
                    })
        }
    }
}

/// Chunks the program reads itself from the mapped file: listed quickly however many, and a
/// damaged one refused in one line.
@Suite struct ChunkedSpectraTests {
    @Test func aDamagedCompressedChunkIsAnErrorNotACrash() throws {
        let path = NSTemporaryDirectory() + "damaged-chunk-\(getpid()).hspy"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try InPlaceSpectraTests.write(path, storage: .chunkedGzip, height: 5, width: 7, channels: 64)
        let survey = try EMDReader.survey(path: path)
        let table = try #require(survey.hyperspy.first?.layout.chunkTable)
        #expect(table.filters == [ChunkTable.deflate] && table.skippedFilters.allSatisfy { $0 == 0 })
        // Garbage over the middle of the first chunk's deflate stream.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(table.offsets[0] + table.sizes[0] / 2))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: min(16, table.sizes[0] / 2)))
        try handle.close()
        let cube = try #require(try EMDReader.contents(of: survey, path: path).entries.first?.spectra)
        #expect(EMDReader.readsInPlace(cube.source))
        #expect(throws: ImageFileError.self) { _ = try cube.source.sweep(windows: [0..<64], summing: true) }
        #expect(throws: ImageFileError.self) { _ = try cube.source.spectra(columns: 0..<1, rows: 0..<1) }
    }

    @Test func chunksOutsideTheFileAreLeftToTheHelpers() throws {
        let path = NSTemporaryDirectory() + "hostile-chunks-\(getpid()).hspy"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try InPlaceSpectraTests.write(path, storage: .chunked, height: 5, width: 7, channels: 64)
        var survey = try EMDReader.survey(path: path)
        let honest = try #require(survey.hyperspy.first?.layout.chunkTable)
        for damage in 0..<4 {
            var table = honest
            switch damage {
            case 0: table.offsets[1] = Int.max - 8
            case 1: table.sizes[2] += 1
            case 2: table.offsets.removeLast()
            default: table.skippedFilters[0] = 1
            }
            survey.hyperspy[0].layout.chunkTable = table
            let cube = try #require(try EMDReader.contents(of: survey, path: path).entries.first?.spectra)
            #expect(!EMDReader.readsInPlace(cube.source))
            #expect(
                try cube.source.spectra(columns: 1..<2, rows: 3..<4)
                    == (0..<64).map { Float(InPlaceSpectraTests.value(3, 1, $0)) })
        }
    }

    /// A grid of more chunks than a number holds is refused, not counted past its end.
    @Test func aGridOfTooManyChunksIsRefused() {
        let table = ChunkTable(filters: [], littleEndian: true, offsets: [0], sizes: [2], skippedFilters: [0])
        let huge = Int(Int32.max)
        #expect(throws: ImageFileError.self) {
            _ = try ChunkedSpectra<UInt16>(
                file: FileBytes(copying: [0, 0]), table: table, dims: [huge, huge, huge], chunks: [1, 1, 1], x: 1,
                y: 0, channel: 2)
        }
    }

    /// libhdf5 1.10 finds each chunk by going through the chunks from the first: where the program
    /// does not walk the chunk index itself (HDF5 1.10's own indexes), the listing stops at
    /// `ChunkTable.mostLookedUp` chunks, which take well under a few seconds even on a busy machine;
    /// a dataset of more is left to the helpers, and read right. Files of the earliest format have
    /// all their chunks listed.
    @Test(arguments: [(40, true), (50, true), (50, false)])
    func chunksAreListedUpToTheirLimit(height: Int, latestFormat: Bool) throws {
        let path = NSTemporaryDirectory() + "many-chunks-\(height)-\(latestFormat)-\(getpid()).hspy"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (width, channels) = (200, 8)
        let count = height * width / 2
        try InPlaceSpectraTests.write(
            path, storage: .chunksAlongRows, height: height, width: width, channels: channels,
            latestFormat: latestFormat)
        let started = ContinuousClock.now
        let survey = try EMDReader.survey(path: path)
        let elapsed = ContinuousClock.now - started
        let table = survey.hyperspy.first?.layout.chunkTable
        #expect(table?.offsets.count == (!latestFormat || count <= ChunkTable.mostLookedUp ? count : nil))
        #expect(elapsed < .seconds(3), "listing \(count) chunks took \(elapsed)")
        let cube = try #require(try EMDReader.contents(of: survey, path: path).entries.first?.spectra)
        #expect(EMDReader.readsInPlace(cube.source) == (table != nil))
        let sweep = try cube.source.sweep(windows: [2..<5], summing: false)
        #expect(
            sweep.maps[0][17 * width + 33]
                == (2..<5).reduce(0.0) { $0 + Double(InPlaceSpectraTests.value(17, 33, $1)) })
    }
}
