import CHDF5
import Glibc
import SonicCore

/// An open HDF5 identifier (file, group, dataset, attribute, type, space), closed when released.
///
/// Only the helper process (`HDF5Helper`) opens these: libhdf5 never runs in the program itself.
final class HDF5Object {
    let id: hid_t
    private let close: (hid_t) -> herr_t

    /// Nil when libhdf5 returned an error instead of an identifier.
    init?(_ id: hid_t, close: @escaping (hid_t) -> herr_t) {
        guard id >= 0 else { return nil }
        self.id = id
        self.close = close
    }

    deinit { _ = close(id) }

    static func openFile(_ path: String) throws(ImageFileError) -> HDF5Object {
        H5Eset_auto2(sonic_h5_error_stack(), nil, nil)
        // Filters from plugins would load code named by the file.
        H5PLset_loading_state(0)
        guard let file = HDF5Object(H5Fopen(path, sonic_h5_read_only(), sonic_h5_default()), close: H5Fclose) else {
            throw HDF5Failure.openingFile(path: path)
        }
        return file
    }

    var isGroup: Bool { H5Iget_type(id) == H5I_GROUP }
    var isDataset: Bool { H5Iget_type(id) == H5I_DATASET }

    /// The names of this group's hard links, in creation order where the file keeps it, else by
    /// name; soft and external links are left out so that nothing leads outside the file.
    func hardLinks(limit: Int) throws(ImageFileError) -> [HardLink] {
        var collector = LinkCollector(limit: limit)
        for order in [H5_INDEX_CRT_ORDER, H5_INDEX_NAME] {
            collector.links.removeAll()
            var next: hsize_t = 0
            let status = withUnsafeMutablePointer(to: &collector) {
                H5Literate(id, order, H5_ITER_INC, &next, collectHardLink, $0)
            }
            if status >= 0 { return collector.links }
        }
        throw HDF5Failure.current("cannot list a group")
    }

    /// The object a hard link of this group leads to, or nil when there is none by that name.
    func child(_ name: String) throws(ImageFileError) -> HDF5Object? {
        guard !name.isEmpty, name != ".", !name.contains("/") else { return nil }
        let exists = H5Lexists(id, name, sonic_h5_default())
        guard exists >= 0 else { throw HDF5Failure.current("cannot look up \(name)") }
        guard exists > 0 else { return nil }
        var info = H5L_info_t()
        guard H5Lget_info(id, name, &info, sonic_h5_default()) >= 0 else {
            throw HDF5Failure.current("cannot look up \(name)")
        }
        guard info.type == H5L_TYPE_HARD else { return nil }
        guard let object = HDF5Object(H5Oopen(id, name, sonic_h5_default()), close: H5Oclose) else {
            throw HDF5Failure.current("cannot open \(name)")
        }
        return object
    }

    func hasAttribute(_ name: String) -> Bool { H5Aexists(id, name) > 0 }

    /// A one-element attribute as text (string types) or nil.
    func attributeText(_ name: String, maxBytes: Int) -> String? {
        guard hasAttribute(name),
            let attribute = HDF5Object(H5Aopen(id, name, sonic_h5_default()), close: H5Aclose),
            let type = HDF5Object(H5Aget_type(attribute.id), close: H5Tclose),
            let space = HDF5Object(H5Aget_space(attribute.id), close: H5Sclose)
        else { return nil }
        return HDF5Text.read(type: type, space: space, maxBytes: maxBytes) { H5Aread(attribute.id, $0, $1) }
    }

    /// A one-element integer attribute, or nil.
    func attributeInteger(_ name: String) -> Int? {
        guard hasAttribute(name),
            let attribute = HDF5Object(H5Aopen(id, name, sonic_h5_default()), close: H5Aclose),
            let type = HDF5Object(H5Aget_type(attribute.id), close: H5Tclose),
            let space = HDF5Object(H5Aget_space(attribute.id), close: H5Sclose),
            H5Tget_class(type.id) == H5T_INTEGER, H5Sget_simple_extent_npoints(space.id) == 1
        else { return nil }
        var value: Int64 = 0
        guard H5Aread(attribute.id, sonic_h5_native_llong(), &value) >= 0 else { return nil }
        return Int(value)
    }

    /// A one-element numeric attribute (integer, float, or an enumeration such as numpy's booleans)
    /// as a number, or nil.
    func attributeNumber(_ name: String) -> Double? {
        guard hasAttribute(name),
            let attribute = HDF5Object(H5Aopen(id, name, sonic_h5_default()), close: H5Aclose),
            let type = HDF5Object(H5Aget_type(attribute.id), close: H5Tclose),
            let space = HDF5Object(H5Aget_space(attribute.id), close: H5Sclose),
            H5Sget_simple_extent_npoints(space.id) == 1
        else { return nil }
        switch H5Tget_class(type.id) {
        case H5T_INTEGER, H5T_FLOAT:
            var value = 0.0
            return H5Aread(attribute.id, sonic_h5_native_double(), &value) >= 0 ? value : nil
        case H5T_ENUM:
            // Enumerations convert only to themselves: read the stored integer as it is.
            guard let base = HDF5Object(H5Tget_super(type.id), close: H5Tclose),
                let native = HDF5Object(H5Tget_native_type(type.id, H5T_DIR_ASCEND), close: H5Tclose)
            else { return nil }
            let size = H5Tget_size(native.id)
            guard (1...8).contains(size) else { return nil }
            var raw = [UInt8](repeating: 0, count: 8)
            guard raw.withUnsafeMutableBytes({ H5Aread(attribute.id, native.id, $0.baseAddress) }) >= 0 else {
                return nil
            }
            var value: UInt64 = 0
            for index in (0..<size).reversed() { value = value << 8 | UInt64(raw[index]) }
            let signed = H5Tget_sign(base.id) == H5T_SGN_2
            guard signed, size < 8, value >> (8 * UInt64(size) - 1) & 1 == 1 else { return Double(value) }
            return Double(Int64(bitPattern: value | ~0 << (8 * UInt64(size))))
        default:
            return nil
        }
    }

    /// Whether a dataset's samples live in other files (external or virtual storage), which could
    /// name any file, a pipe or a device; nil when the library cannot tell.
    var keepsDataElsewhere: Bool? {
        guard let creation = HDF5Object(H5Dget_create_plist(id), close: H5Pclose) else { return nil }
        return H5Pget_layout(creation.id) == H5D_VIRTUAL || H5Pget_external_count(creation.id) != 0
    }

    /// A dataset holding one string, as text, or nil.
    func datasetText(maxBytes: Int) -> String? {
        guard keepsDataElsewhere == false,
            let type = HDF5Object(H5Dget_type(id), close: H5Tclose),
            let space = HDF5Object(H5Dget_space(id), close: H5Sclose)
        else { return nil }
        return HDF5Text.read(type: type, space: space, maxBytes: maxBytes) { memoryType, buffer in
            H5Dread(id, memoryType, sonic_h5_all(), sonic_h5_all(), sonic_h5_default(), buffer)
        }
    }

    /// The first column of a 2-D byte dataset (Velox's metadata: one column per frame), up to the
    /// first NUL, as text.
    func firstColumnText(maxBytes: Int) -> String? {
        guard let layout = try? layout(), layout.sampleType == .uint8, (1...2).contains(layout.dims.count),
            let length = layout.dims.first, length > 0, layout.dims.allSatisfy({ $0 > 0 }),
            let space = HDF5Object(H5Dget_space(id), close: H5Sclose)
        else { return nil }
        let count = min(length, maxBytes)
        var start = [hsize_t](repeating: 0, count: layout.dims.count)
        var extent = [hsize_t](repeating: 1, count: layout.dims.count)
        extent[0] = hsize_t(count)
        var bytes = [UInt8](repeating: 0, count: count)
        guard H5Sselect_hyperslab(space.id, H5S_SELECT_SET, &start, nil, &extent, nil) >= 0,
            let memory = HDF5Object(H5Screate_simple(1, [hsize_t(count)], nil), close: H5Sclose),
            bytes.withUnsafeMutableBytes({
                H5Dread(id, sonic_h5_native_uchar(), memory.id, space.id, sonic_h5_default(), $0.baseAddress)
            }) >= 0
        else { return nil }
        let text = bytes.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Every value of a small 1-D numeric dataset, or nil.
    func doubles(maxCount: Int) -> [Double]? {
        guard let layout = try? layout(), layout.sampleType != nil, layout.dims.count == 1,
            let count = layout.dims.first, (1...maxCount).contains(count)
        else { return nil }
        var values = [Double](repeating: 0, count: count)
        let status = values.withUnsafeMutableBytes {
            H5Dread(id, sonic_h5_native_double(), sonic_h5_all(), sonic_h5_all(), sonic_h5_default(), $0.baseAddress)
        }
        return status >= 0 ? values : nil
    }

    /// The dataset's extent and element type; and, when it is chunked and has at most `chunksToList`
    /// chunks, where each lies in the file.
    func layout(chunksToList: Int = 0) throws(ImageFileError) -> DatasetLayout {
        guard let space = HDF5Object(H5Dget_space(id), close: H5Sclose),
            let type = HDF5Object(H5Dget_type(id), close: H5Tclose)
        else { throw HDF5Failure.current("cannot read a dataset's description") }
        let dims: [Int]
        switch H5Sget_simple_extent_type(space.id) {
        case H5S_SCALAR: dims = []
        case H5S_SIMPLE:
            let rank = H5Sget_simple_extent_ndims(space.id)
            guard rank >= 0, rank <= 32 else { throw HDF5Failure.current("cannot read a dataset's rank") }
            var extent = [hsize_t](repeating: 0, count: Int(rank))
            guard H5Sget_simple_extent_dims(space.id, &extent, nil) == rank else {
                throw HDF5Failure.current("cannot read a dataset's dimensions")
            }
            guard extent.allSatisfy({ $0 <= hsize_t(DatasetLayout.maxDimension) }) else {
                throw ImageFileError("a dataset's dimension is out of range")
            }
            dims = extent.map { Int($0) }
        default:
            return DatasetLayout(dims: [0], sampleType: nil, unsupported: "an empty dataset")
        }
        guard let elsewhere = keepsDataElsewhere else { throw HDF5Failure.current("cannot read a dataset's storage") }
        if elsewhere { return DatasetLayout(dims: dims, sampleType: nil, unsupported: "data kept in other files") }
        let (sampleType, unsupported) = HDF5Types.describe(type.id)
        var layout = DatasetLayout(dims: dims, sampleType: sampleType, unsupported: unsupported)
        if let sampleType { layout.storage = inPlaceStorage(type: type.id, sampleType: sampleType, dims: dims) }
        layout.chunks = chunks(rank: dims.count)
        if let sampleType, let chunks = layout.chunks {
            layout.chunkTable = chunkTable(
                type: type.id, sampleType: sampleType, dims: dims, chunks: chunks, limit: chunksToList)
        }
        return layout
    }

    /// Each chunk's place in the file, size and filter mask: read from the file's own chunk index
    /// where it is one the program walks (`ChunkIndex`), up to `limit` chunks; else looked up through
    /// the library, up to `ChunkTable.mostLookedUp`. Nil when a chunk is not stored (never written),
    /// the elements are of a size or byte order the program does not read, or there are more.
    private func chunkTable(type: hid_t, sampleType: SampleType, dims: [Int], chunks: [Int], limit: Int)
        -> ChunkTable?
    {
        let order = H5Tget_order(type), size = sampleType.bits / 8
        guard H5Tget_size(type) == size, order == H5T_ORDER_LE || order == H5T_ORDER_BE || size == 1,
            dims.allSatisfy({ $0 > 0 }), let creation = HDF5Object(H5Dget_create_plist(id), close: H5Pclose)
        else { return nil }
        let grid = zip(dims, chunks).map { ($0 + $1 - 1) / $1 }
        var count = 1
        for extent in grid {
            count *= extent
            guard count <= limit else { return nil }
        }
        let filterCount = H5Pget_nfilters(creation.id)
        guard (0...32).contains(filterCount) else { return nil }
        var filters: [Int] = []
        for index in 0..<UInt32(filterCount) {
            var flags: UInt32 = 0, valueCount = 0, config: UInt32 = 0
            let filter = H5Pget_filter2(creation.id, index, &flags, &valueCount, nil, 0, nil, &config)
            guard filter >= 0 else { return nil }
            filters.append(Int(filter))
        }
        guard let file = ChunkedFile(of: self, rank: dims.count, firstChunk: lookedUpChunk(at: dims.map { _ in 0 }))
        else {
            return nil
        }
        let listed =
            walkedChunks(in: file, dims: dims, chunks: chunks, elementSize: size)
            ?? (count <= ChunkTable.mostLookedUp
                ? lookedUpChunks(in: file, count: count, dims: dims, chunks: chunks) : nil)
        guard let listed else { return nil }
        return ChunkTable(
            filters: filters, littleEndian: size == 1 || order == H5T_ORDER_LE, offsets: listed.map(\.offset),
            sizes: listed.map(\.size), skippedFilters: listed.map(\.skippedFilters))
    }

    /// The chunks as the file's own index lists them, when the library finds its first and last
    /// chunks where the walk did.
    func walkedChunks(in file: ChunkedFile, dims: [Int], chunks: [Int], elementSize: Int) -> [ChunkIndex.Chunk]? {
        var info = H5O_info_t()
        guard H5Oget_info2(id, &info, UInt32(H5O_INFO_BASIC)) >= 0, info.addr < haddr_t(Int.max) else {
            H5Eclear2(sonic_h5_error_stack())
            return nil
        }
        let descriptor = file.descriptor
        let index = ChunkIndex(addressSize: file.addressSize, lengthSize: file.lengthSize, base: file.userBlock) {
            offset, count in
            count <= 1 << 24 ? ChunkedFile.bytes(of: descriptor, at: offset, count: count) : nil
        }
        guard let walked = index.chunks(header: Int(info.addr), dims: dims, chunks: chunks, elementSize: elementSize)
        else { return nil }
        let last = zip(dims, chunks).map { ($0 - 1) / $1 * $1 }
        for (position, chunk) in [(dims.map { _ in 0 }, walked.first), (last, walked.last)] {
            guard let chunk, var known = lookedUpChunk(at: position) else { return nil }
            known.offset += file.libraryBase
            guard known == chunk else { return nil }
        }
        return walked
    }

    /// Every chunk, looked up by its coordinates through the library (by index costs the same: each
    /// lookup goes through the chunks from the first).
    func lookedUpChunks(in file: ChunkedFile, count: Int, dims: [Int], chunks: [Int]) -> [ChunkIndex.Chunk]? {
        var listed: [ChunkIndex.Chunk] = []
        listed.reserveCapacity(count)
        var position = [Int](repeating: 0, count: dims.count)
        for _ in 0..<count {
            guard var chunk = lookedUpChunk(at: position) else { return nil }
            chunk.offset += file.libraryBase
            listed.append(chunk)
            // The next chunk's coordinates, the last dimension fastest.
            for dimension in position.indices.reversed() {
                position[dimension] += chunks[dimension]
                if position[dimension] < dims[dimension] { break }
                position[dimension] = 0
            }
        }
        return listed
    }

    /// The chunk starting at `position`, as the library finds it (its address counted as the library
    /// counts it: see `ChunkedFile.libraryBase`); nil when it is not stored.
    func lookedUpChunk(at position: [Int]) -> ChunkIndex.Chunk? {
        var mask: UInt32 = 0, address: haddr_t = 0, stored: hsize_t = 0
        guard H5Dget_chunk_info_by_coord(id, position.map { hsize_t($0) }, &mask, &address, &stored) >= 0,
            address != haddr_t.max, stored > 0, address < haddr_t(Int.max / 2), stored < hsize_t(Int.max)
        else {
            H5Eclear2(sonic_h5_error_stack())
            return nil
        }
        return ChunkIndex.Chunk(offset: Int(address), size: Int(stored), skippedFilters: Int(mask))
    }

    /// The extent of the dataset's chunks, or nil when it is not stored in chunks.
    private func chunks(rank: Int) -> [Int]? {
        guard rank > 0, let creation = HDF5Object(H5Dget_create_plist(id), close: H5Pclose),
            H5Pget_layout(creation.id) == H5D_CHUNKED
        else { return nil }
        var extent = [hsize_t](repeating: 0, count: rank)
        guard H5Pget_chunk(creation.id, Int32(rank), &extent) == rank else { return nil }
        return extent.map { Int(min($0, hsize_t(DatasetLayout.maxDimension))) }
    }

    /// Where the dataset's elements lie in the file as they are — contiguous, unfiltered, whole, of a
    /// byte order the program reads — so that the program can map them itself; nil otherwise. The
    /// first and last elements read through the library must be the bytes found there.
    private func inPlaceStorage(type: hid_t, sampleType: SampleType, dims: [Int]) -> DatasetStorage? {
        let size = sampleType.bits / 8
        var elements = 1
        for extent in dims {
            let (product, overflow) = elements.multipliedReportingOverflow(by: extent)
            guard !overflow else { return nil }
            elements = product
        }
        guard elements > 0, let creation = HDF5Object(H5Dget_create_plist(id), close: H5Pclose),
            H5Pget_layout(creation.id) == H5D_CONTIGUOUS, H5Pget_nfilters(creation.id) == 0,
            H5Pget_external_count(creation.id) == 0, H5Tget_size(type) == size,
            H5Dget_storage_size(id) == hsize_t(elements * size)
        else { return nil }
        let order = H5Tget_order(type)
        guard order == H5T_ORDER_LE || order == H5T_ORDER_BE || size == 1 else { return nil }
        let address = H5Dget_offset(id)
        guard address != haddr_t.max, address < haddr_t(Int.max - elements * size),
            let file = HDF5Object(H5Iget_file_id(id), close: H5Fclose)
        else { return nil }
        var handle: UnsafeMutableRawPointer?
        guard H5Fget_vfd_handle(file.id, sonic_h5_default(), &handle) >= 0,
            let descriptor = handle?.load(as: Int32.self)
        else { return nil }
        let offset = Int(address)
        for index in Set([0, elements - 1]) {
            var stored = [UInt8](repeating: 0, count: size)
            guard let space = HDF5Object(H5Dget_space(id), close: H5Sclose),
                let one = HDF5Object(H5Screate_simple(1, [1], nil), close: H5Sclose)
            else { return nil }
            var position = [hsize_t](repeating: 0, count: dims.count)
            var rest = index
            for dimension in dims.indices.reversed() {
                position[dimension] = hsize_t(rest % dims[dimension])
                rest /= dims[dimension]
            }
            let read = stored.withUnsafeMutableBytes { bytes in
                H5Sselect_elements(space.id, H5S_SELECT_SET, 1, position) >= 0
                    && H5Dread(id, type, one.id, space.id, sonic_h5_default(), bytes.baseAddress) >= 0
            }
            guard read, ChunkedFile.bytes(of: descriptor, at: offset + index * size, count: size) == stored
            else { return nil }
        }
        return DatasetStorage(offset: offset, littleEndian: size == 1 || order == H5T_ORDER_LE)
    }
}

/// What reading a dataset's chunks from the file needs to know of the file: its descriptor, the
/// superblock's sizes, its user block, and where the library's chunk addresses count from.
struct ChunkedFile {
    let descriptor: Int32
    let addressSize: Int
    let lengthSize: Int
    let userBlock: Int
    /// libhdf5 1.10 gives a chunk's address from the file's base (past a user block), later versions
    /// from the file's start: the first chunk's bytes, read through the library and at each place,
    /// tell which.
    let libraryBase: Int

    /// `count` bytes of the open file at `offset`, or nil where it holds fewer.
    static func bytes(of descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return got == count ? bytes : nil
    }

    /// Nil when the file's sizes cannot be had, or the first chunk's bytes are at neither place.
    init?(of dataset: HDF5Object, rank: Int, firstChunk: ChunkIndex.Chunk?) {
        var addressSize = 0, lengthSize = 0, userBlock: hsize_t = 0
        var handle: UnsafeMutableRawPointer?
        guard let firstChunk, firstChunk.size <= 1 << 28,
            let file = HDF5Object(H5Iget_file_id(dataset.id), close: H5Fclose),
            let creation = HDF5Object(H5Fget_create_plist(file.id), close: H5Pclose),
            H5Pget_sizes(creation.id, &addressSize, &lengthSize) >= 0,
            H5Pget_userblock(creation.id, &userBlock) >= 0, userBlock < hsize_t(Int.max / 2),
            H5Fget_vfd_handle(file.id, sonic_h5_default(), &handle) >= 0,
            let descriptor = handle?.load(as: Int32.self)
        else {
            H5Eclear2(sonic_h5_error_stack())
            return nil
        }
        var stored = [UInt8](repeating: 0, count: firstChunk.size), mask: UInt32 = 0
        let zero = [hsize_t](repeating: 0, count: rank)
        guard
            stored.withUnsafeMutableBytes({
                H5Dread_chunk(dataset.id, sonic_h5_default(), zero, &mask, $0.baseAddress) >= 0
            })
        else {
            H5Eclear2(sonic_h5_error_stack())
            return nil
        }
        let found = [0, Int(userBlock)].first { base in
            Self.bytes(of: descriptor, at: firstChunk.offset + base, count: stored.count) == stored
        }
        guard let found else { return nil }
        self.descriptor = descriptor
        self.addressSize = addressSize
        self.lengthSize = lengthSize
        self.userBlock = Int(userBlock)
        libraryBase = found
    }
}

struct HardLink {
    var name: String
    /// Where the link leads in the file: the same address twice means a cycle or a shared object.
    var address: haddr_t
}

private struct LinkCollector {
    var limit: Int
    var links: [HardLink] = []
}

/// A C callback, so a global function (see the platform notes).
private func collectHardLink(
    _ group: hid_t, _ name: UnsafePointer<CChar>?, _ info: UnsafePointer<H5L_info_t>?,
    _ context: UnsafeMutableRawPointer?
) -> herr_t {
    guard let name, let info, let context else { return -1 }
    let collector = context.assumingMemoryBound(to: LinkCollector.self)
    if info.pointee.type == H5L_TYPE_HARD, strlen(name) <= 1024, let text = String(validatingCString: name) {
        collector.pointee.links.append(HardLink(name: text, address: info.pointee.u.address))
    }
    return collector.pointee.links.count >= collector.pointee.limit ? 1 : 0
}
