import CHDF5
import Glibc
import SonicCore

/// A block of a dataset — `count` elements along each axis from `start`, HDF5's order — that a
/// helper process reads, converted by libhdf5, straight into memory shared with the caller.
struct Hyperslab: Sendable, Equatable {
    /// What each element becomes in memory: floats for samples, 16-bit counts for a Velox stream.
    enum Element: String, Sendable {
        case float32, uint16

        var size: Int { self == .float32 ? 4 : 2 }
    }

    var path: [String]
    /// The dataset's extent and type as listed; reading checks them again.
    var dims: [Int]
    var sampleType: SampleType
    var start: [Int]
    var count: [Int]
    var element: Element

    /// The whole dataset.
    init(path: [String], dims: [Int], sampleType: SampleType, element: Element = .float32) {
        self.init(
            path: path, dims: dims, sampleType: sampleType, start: dims.map { _ in 0 }, count: dims, element: element)
    }

    init(path: [String], dims: [Int], sampleType: SampleType, start: [Int], count: [Int], element: Element = .float32) {
        self.path = path
        self.dims = dims
        self.sampleType = sampleType
        self.start = start
        self.count = count
        self.element = element
    }

    /// The block lies inside the dataset and holds something.
    private var isInside: Bool {
        dims.count == start.count && dims.count == count.count
            && zip(zip(start, count), dims).allSatisfy { $0.0 >= 0 && $0.1 > 0 && $0.0 <= $1 - $0.1 }
    }

    /// How many elements the block holds, or nil when that is more than memory should hold at once.
    var elements: Int? {
        var total = 1
        for size in count {
            let (product, overflow) = total.multipliedReportingOverflow(by: size)
            guard !overflow, product <= Self.maxElements else { return nil }
            total = product
        }
        return total
    }

    /// No block read at once is larger (1 GiB of floats).
    static let maxElements = 1 << 28

    /// How many bytes the block takes in memory, or nil when that is more than memory should hold at once.
    var bytes: Int? { isInside ? elements.map { $0 * element.size } : nil }

    /// Why the block cannot be read.
    var tooLarge: ImageFileError {
        guard isInside else { return ImageFileError("a block outside the dataset \(path.joined(separator: "/"))") }
        return ImageFileError(
            "a block of \(count.map(String.init).joined(separator: " × ")) values, too many to read at once")
    }

    /// What the caller sends the helper to read.
    func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.strings(path)
        out.ints(dims)
        out.string(sampleType.rawValue)
        out.ints(start)
        out.ints(count)
        out.string(element.rawValue)
        return out.bytes
    }

    init(decoding bytes: [UInt8]) throws(ImageFileError) {
        let garbled = ImageFileError("the HDF5 reader's helper got a garbled request")
        var input = ByteReader(bytes)
        path = try input.strings()
        dims = try input.ints()
        guard let sampleType = SampleType(rawValue: try input.string()) else { throw garbled }
        self.sampleType = sampleType
        start = try input.ints()
        count = try input.ints()
        guard let element = Element(rawValue: try input.string()), input.atEnd else { throw garbled }
        self.element = element
    }
}

/// In the helper: the file open and the datasets read so far, kept from request to request.
final class SlabReader {
    private let path: String
    private var file: HDF5Object?
    private var datasets: [[String]: (HDF5Object, [Int], SampleType?)] = [:]

    /// Each dataset keeps this many bytes of decompressed chunks, so that neighbouring blocks read
    /// one after another decompress their shared chunks once.
    static let chunkCacheBytes = 32 << 20

    init(file: String) { path = file }

    /// Reads `slab` into the shared memory file open on `sharedDescriptor` (at least as large as
    /// the block), the elements converted by libhdf5, HDF5's order.
    func read(_ slab: Hyperslab, sharedDescriptor: Int32) throws(ImageFileError) {
        guard let bytes = slab.bytes, let elements = slab.elements else {
            throw ImageFileError("the HDF5 reader's helper got a garbled request")
        }
        var info = stat()
        guard sharedDescriptor >= 0, fstat(sharedDescriptor, &info) == 0, Int(info.st_size) >= bytes,
            let address = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, sharedDescriptor, 0),
            address != MAP_FAILED
        else { throw ImageFileError("the HDF5 reader's helper got no memory for the samples") }
        defer { munmap(address, bytes) }
        let dataset = try self.dataset(slab)
        var first = slab.start.map { hsize_t($0) }
        var extent = slab.count.map { hsize_t($0) }
        let memoryType = slab.element == .float32 ? sonic_h5_native_float() : sonic_h5_native_ushort()
        guard let space = HDF5Object(H5Dget_space(dataset.id), close: H5Sclose),
            H5Sselect_hyperslab(space.id, H5S_SELECT_SET, &first, nil, &extent, nil) >= 0,
            // Of the block's own shape: libhdf5 maps a selection to memory of another shape
            // element by element.
            let memory = HDF5Object(
                extent.isEmpty
                    ? H5Screate_simple(1, [hsize_t(elements)], nil)
                    : H5Screate_simple(Int32(extent.count), extent, nil),
                close: H5Sclose),
            H5Dread(dataset.id, memoryType, memory.id, space.id, sonic_h5_default(), address) >= 0
        else { throw HDF5Failure.current("cannot read the samples of \(slab.path.joined(separator: "/"))") }
    }

    /// The block's dataset, opened once, checked to be as listed.
    private func dataset(_ slab: Hyperslab) throws(ImageFileError) -> HDF5Object {
        if let kept = datasets[slab.path], kept.1 == slab.dims, kept.2 == slab.sampleType { return kept.0 }
        guard datasets[slab.path] == nil else { throw ImageFileError("the file changed while it was being read") }
        if file == nil { file = try HDF5Object.openFile(path) }
        var object = file!
        for name in slab.path.dropLast() {
            guard let next = try object.child(name) else {
                throw ImageFileError("the dataset \(slab.path.joined(separator: "/")) is gone")
            }
            object = next
        }
        guard let name = slab.path.last, let access = HDF5Object(H5Pcreate(sonic_h5_dataset_access()), close: H5Pclose),
            H5Pset_chunk_cache(access.id, 4099, Self.chunkCacheBytes, 0.75) >= 0, try object.child(name) != nil,
            let dataset = HDF5Object(H5Dopen2(object.id, name, access.id), close: H5Dclose)
        else { throw ImageFileError("the dataset \(slab.path.joined(separator: "/")) is gone") }
        guard let layout = try? dataset.layout(), layout.dims == slab.dims, layout.sampleType == slab.sampleType else {
            throw ImageFileError("the file changed while it was being read")
        }
        datasets[slab.path] = (dataset, layout.dims, layout.sampleType)
        return dataset
    }
}
