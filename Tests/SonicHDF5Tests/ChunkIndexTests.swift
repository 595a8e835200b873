import CHDF5
import Foundation
import Testing

@testable import SonicCore
@testable import SonicHDF5

/// The chunk index read from the file itself: for every layout the library writes with a version-1
/// B-tree, the walk finds each chunk where the library does; for any other index, or an index
/// damaged, it finds none, and the library is asked instead.
@Suite struct ChunkIndexTests {
    /// A dataset of 16-bit values written through libhdf5 in chunks, in the file format of `bounds`
    /// (the earliest, which h5py and HyperSpy write by default; 1.8's; or 1.10's), after a user
    /// block of `userBlock` bytes; gzip-compressed where `gzip` is set; without chunks, whole. With
    /// `partly`, its first chunk is never written.
    static func write(
        _ path: String, dims: [Int], chunks: [Int]?, bounds: H5F_libver_t = H5F_LIBVER_EARLIEST, userBlock: Int = 0,
        gzip: Bool = false, partly: Bool = false
    ) throws {
        H5Eset_auto2(sonic_h5_error_stack(), nil, nil)
        let access = try #require(HDF5Object(H5Pcreate(sonic_h5_file_access()), close: H5Pclose))
        #expect(
            H5Pset_libver_bounds(access.id, bounds, H5F_LIBVER_V110) >= 0)
        let creation = try #require(HDF5Object(H5Pcreate(sonic_h5_file_creation()), close: H5Pclose))
        if userBlock > 0 { #expect(H5Pset_userblock(creation.id, hsize_t(userBlock)) >= 0) }
        let file = try #require(
            HDF5Object(H5Fcreate(path, sonic_h5_truncate(), creation.id, access.id), close: H5Fclose))
        let space = try #require(
            HDF5Object(H5Screate_simple(Int32(dims.count), dims.map { hsize_t($0) }, nil), close: H5Sclose))
        let layout = try #require(HDF5Object(H5Pcreate(sonic_h5_dataset_creation()), close: H5Pclose))
        if let chunks { #expect(H5Pset_chunk(layout.id, Int32(chunks.count), chunks.map { hsize_t($0) }) >= 0) }
        if gzip { #expect(H5Pset_deflate(layout.id, 4) >= 0) }
        let data = try #require(
            HDF5Object(
                H5Dcreate2(
                    file.id, "data", sonic_h5_little_endian_uint16(), space.id, sonic_h5_default(), layout.id,
                    sonic_h5_default()),
                close: H5Dclose))
        let count = dims.reduce(1, *)
        let values = (0..<count).map { UInt16(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        if partly, let chunks {
            // Everything from the second chunk of the first dimension on.
            var start = [hsize_t](repeating: 0, count: dims.count), extent = dims.map { hsize_t($0) }
            start[0] = hsize_t(chunks[0])
            extent[0] -= hsize_t(chunks[0])
            #expect(H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nil, extent, nil) >= 0)
            let memory = try #require(HDF5Object(H5Screate_simple(Int32(dims.count), extent, nil), close: H5Sclose))
            let rest = Array(values[(count / dims[0] * chunks[0])...])
            #expect(H5Dwrite(data.id, sonic_h5_native_ushort(), memory.id, space.id, sonic_h5_default(), rest) >= 0)
        } else {
            #expect(
                H5Dwrite(data.id, sonic_h5_native_ushort(), sonic_h5_all(), sonic_h5_all(), sonic_h5_default(), values)
                    >= 0)
        }
    }

    /// The walk's chunks and the library's, for the file's dataset.
    static func listings(_ path: String, dims: [Int], chunks: [Int]) throws -> (
        walked: [ChunkIndex.Chunk]?, lookedUp: [ChunkIndex.Chunk]?
    ) {
        let file = try HDF5Object.openFile(path)
        let data = try #require(try file.child("data"))
        let count = zip(dims, chunks).reduce(1) { $0 * (($1.0 + $1.1 - 1) / $1.1) }
        guard
            let chunked = ChunkedFile(
                of: data, rank: dims.count, firstChunk: data.lookedUpChunk(at: dims.map { _ in 0 }))
        else { return (nil, nil) }
        return (
            data.walkedChunks(in: chunked, dims: dims, chunks: chunks, elementSize: 2),
            data.lookedUpChunks(in: chunked, count: count, dims: dims, chunks: chunks)
        )
    }

    static func scratch(_ name: String) -> String { NSTemporaryDirectory() + "chunk-index-\(name)-\(getpid()).h5" }

    struct Layout: Sendable, CustomTestStringConvertible {
        var name: String
        var dims: [Int]
        var chunks: [Int]
        var bounds = H5F_LIBVER_EARLIEST
        var userBlock = 0
        var gzip = false
        var testDescription: String { name }
    }

    static let layouts = [
        Layout(name: "a HyperSpy cube", dims: [9, 7, 40], chunks: [2, 3, 40]),
        Layout(name: "gzip-compressed, chunks across channels", dims: [9, 7, 40], chunks: [4, 4, 16], gzip: true),
        Layout(name: "a Velox stream, its last chunk part-filled", dims: [100_003, 1], chunks: [8192, 1]),
        // Nodes hold at most 64 entries: this many chunks make a tree of three levels.
        Layout(name: "a tree of three levels", dims: [70, 70, 4], chunks: [1, 1, 4]),
        Layout(name: "version 2 object headers", dims: [30, 20, 8], chunks: [4, 3, 8], bounds: H5F_LIBVER_V18),
        Layout(name: "after a user block", dims: [30, 20, 8], chunks: [4, 3, 8], userBlock: 1024, gzip: true)
    ]

    @Test(arguments: layouts)
    func theWalkFindsEachChunkWhereTheLibraryDoes(layout: Layout) throws {
        let path = Self.scratch(layout.name.filter(\.isLetter))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(
            path, dims: layout.dims, chunks: layout.chunks, bounds: layout.bounds, userBlock: layout.userBlock,
            gzip: layout.gzip)
        let (walked, lookedUp) = try Self.listings(path, dims: layout.dims, chunks: layout.chunks)
        let expected = try #require(lookedUp)
        #expect(walked == expected)
        #expect(expected.count == zip(layout.dims, layout.chunks).reduce(1) { $0 * (($1.0 + $1.1 - 1) / $1.1) })
    }

    /// HDF5 1.10's own indexes (here a fixed array) are the library's to list.
    @Test func otherIndexesAreLeftToTheLibrary() throws {
        let path = Self.scratch("latest")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(path, dims: [30, 20, 8], chunks: [4, 3, 8], bounds: H5F_LIBVER_V110)
        let (walked, lookedUp) = try Self.listings(path, dims: [30, 20, 8], chunks: [4, 3, 8])
        #expect(walked == nil)
        #expect(lookedUp?.count == 8 * 7)
    }

    /// A chunk never written is in neither listing: the dataset is then read by the helpers.
    @Test func aChunkNeverWrittenListsNone() throws {
        let path = Self.scratch("partly")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(path, dims: [12, 5, 8], chunks: [4, 5, 8], partly: true)
        let (walked, lookedUp) = try Self.listings(path, dims: [12, 5, 8], chunks: [4, 5, 8])
        #expect(walked == nil)
        #expect(lookedUp == nil)
    }

    /// Each part of the path to the chunks damaged in turn: the walk finds nothing rather than
    /// something else.
    @Test func aDamagedIndexListsNothing() throws {
        let path = Self.scratch("damaged")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (dims, chunks) = ([70, 70, 4], [1, 1, 4])
        try Self.write(path, dims: dims, chunks: chunks)
        let file = try HDF5Object.openFile(path)
        let data = try #require(try file.child("data"))
        var info = H5O_info_t()
        #expect(H5Oget_info2(data.id, &info, UInt32(H5O_INFO_BASIC)) >= 0)
        let clean = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var reads: [Int] = []
        func index(_ bytes: [UInt8], noting: Bool = false) -> ChunkIndex {
            ChunkIndex(addressSize: 8, lengthSize: 8, base: 0) { offset, count in
                guard offset >= 0, count >= 0, offset <= bytes.count - count else { return nil }
                if noting { reads.append(offset) }
                return Array(bytes[offset..<(offset + count)])
            }
        }
        let header = Int(info.addr)
        let walked = try #require(
            index(clean, noting: true).chunks(header: header, dims: dims, chunks: chunks, elementSize: 2))
        #expect(walked.count == 70 * 70)
        // A node is "TREE", type, level, entries, two siblings' addresses (24 bytes), then each entry's
        // key (stored size, filter mask, four coordinates: 40 bytes) and child's address (8 bytes).
        let isNode = { (at: Int) in Array(clean[at..<(at + 4)]) == Array("TREE".utf8) }
        let nodes = Set(reads).filter(isNode).sorted()
        #expect(nodes.count > 70 * 70 / 64)
        let root = try #require(reads.first(where: isNode))
        let leaf = try #require(nodes.first { clean[$0 + 5] == 0 })
        #expect(clean[root + 5] > 0)
        var damages: [(String, (inout [UInt8]) -> Void)] = nodes.prefix(5).map { node in
            ("a node's signature", { $0[node + 1] = 0x58 })
        }
        damages.append(("the root's level", { $0[root + 5] += 1 }))
        damages.append(("a leaf's first chunk, moved off the grid", { $0[leaf + 24 + 8 + 1] = 1 }))
        damages.append(
            (
                "a leaf's second chunk, made the first",
                { $0[(leaf + 72)..<(leaf + 112)] = $0[(leaf + 24)..<(leaf + 64)] }
            ))
        damages.append(("the root's first child's address", { $0[root + 24 + 40 + 7] = 0x7F }))
        damages.append(("a leaf's first chunk's address", { $0[leaf + 24 + 40 + 7] = 0xFF }))
        for (what, damage) in damages {
            var damaged = clean
            damage(&damaged)
            #expect(
                index(damaged).chunks(header: header, dims: dims, chunks: chunks, elementSize: 2) == nil,
                "with \(what) damaged")
        }
        #expect(index(clean).chunks(header: header, dims: [71, 70, 4], chunks: chunks, elementSize: 2) == nil)
        #expect(index(clean).chunks(header: header, dims: dims, chunks: [1, 2, 4], elementSize: 2) == nil)
        #expect(index(clean).chunks(header: header + 8, dims: dims, chunks: chunks, elementSize: 2) == nil)
    }

    /// Past the chunks the library can list in time, a dataset's chunks are still listed (here 40 000
    /// of a Velox-like stream), quickly, each where its values are.
    /// After a user block too: libhdf5 1.10 counts its chunks' addresses from the block's end.
    @Test(arguments: [0, 512])
    func manyChunksAreListedQuickly(userBlock: Int) throws {
        let path = Self.scratch("many\(userBlock)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (dims, chunks) = ([40_000 * 16, 1], [16, 1])
        try Self.write(path, dims: dims, chunks: chunks, userBlock: userBlock)
        let file = try HDF5Object.openFile(path)
        let data = try #require(try file.child("data"))
        let started = ContinuousClock.now
        let layout = try data.layout(chunksToList: ChunkTable.mostListed)
        let elapsed = ContinuousClock.now - started
        #expect(layout.chunkTable?.offsets.count == 40_000)
        #expect(elapsed < .seconds(2), "listing 40 000 chunks took \(elapsed)")
        let table = try #require(layout.chunkTable)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for place in [0, 12_345, 39_999] {
            let at = table.offsets[place] + 2 * 5
            let value = UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
            #expect(value == UInt16(truncatingIfNeeded: (place * 16 + 5) &* 2_654_435_761 >> 7))
        }
    }

    /// A Velox-like stream kept in chunks without a filter is read where its chunks lie in the mapped
    /// file, value for value; one whole, the same.
    @Test(arguments: [true, false])
    func aStreamIsReadWhereItLies(chunked: Bool) throws {
        let path = Self.scratch("stream\(chunked)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let count = 5_000 * 16 + 3
        try Self.write(path, dims: [count, 1], chunks: chunked ? [16, 1] : nil)
        let file = try HDF5Object.openFile(path)
        let data = try #require(try file.child("data"))
        let layout = try data.layout(chunksToList: ChunkTable.mostListed)
        #expect((layout.chunkTable != nil) == chunked)
        let values = try #require(VeloxSpectra.inPlace(layout, in: try MappedFile.bytes(of: path)))
        for position in [0, 15, 16, 12_345, count - 1] {
            #expect(values.value(at: position) == UInt16(truncatingIfNeeded: position &* 2_654_435_761 >> 7))
        }
        var seen = 0
        values.forEachStretch { first, bytes in
            for offset in 0..<(bytes.count / 2) {
                let value = bytes.streamValue(offset)
                let position = first + offset
                if value != UInt16(truncatingIfNeeded: position &* 2_654_435_761 >> 7) {
                    Issue.record("value \(position)")
                }
                seen += 1
            }
        }
        #expect(seen == count)
    }
}
