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

    /// Reads the block in a helper process: the shared memory holding its elements, HDF5's order.
    func read(file: String, limits: ChildProcess.Limits) throws(ImageFileError) -> ChildProcess.SharedMemory {
        guard isInside else { throw ImageFileError("a block outside the dataset \(path.joined(separator: "/"))") }
        guard let elements else {
            throw ImageFileError(
                "a block of \(count.map(String.init).joined(separator: " × ")) values, too many to read at once")
        }
        let shared = try ChildProcess.SharedMemory(count: elements * element.size)
        _ = try HDF5Helper.run(.slab, file: file, request: encoded(), shared: shared, limits: limits)
        return shared
    }

    /// In the helper: reads the block into the shared memory file open on `sharedDescriptor`.
    func readInHelper(file: String, sharedDescriptor: Int32) throws(ImageFileError) {
        guard isInside, let elements else { throw ImageFileError("the HDF5 reader's helper got a garbled request") }
        let bytes = elements * element.size
        var info = stat()
        guard fstat(sharedDescriptor, &info) == 0, Int(info.st_size) == bytes,
            let address = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, sharedDescriptor, 0),
            address != MAP_FAILED
        else { throw ImageFileError("the HDF5 reader's helper got no memory for the samples") }
        defer { munmap(address, bytes) }
        var object = try HDF5Object.openFile(file)
        for name in path {
            guard let next = try object.child(name) else {
                throw ImageFileError("the dataset \(path.joined(separator: "/")) is gone")
            }
            object = next
        }
        guard object.isDataset, let layout = try? object.layout(), layout.dims == dims, layout.sampleType == sampleType
        else {
            throw ImageFileError("the file changed while it was being read")
        }
        var first = start.map { hsize_t($0) }
        var extent = count.map { hsize_t($0) }
        let memoryType = element == .float32 ? sonic_h5_native_float() : sonic_h5_native_ushort()
        guard let space = HDF5Object(H5Dget_space(object.id), close: H5Sclose),
            H5Sselect_hyperslab(space.id, H5S_SELECT_SET, &first, nil, &extent, nil) >= 0,
            let memory = HDF5Object(H5Screate_simple(1, [hsize_t(elements)], nil), close: H5Sclose),
            H5Dread(object.id, memoryType, memory.id, space.id, sonic_h5_default(), address) >= 0
        else { throw HDF5Failure.current("cannot read the samples of \(path.joined(separator: "/"))") }
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
