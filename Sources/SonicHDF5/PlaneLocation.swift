import CHDF5
import Glibc
import SonicCore

/// Where one image plane lies in a dataset: which frame of which axis, and how the two remaining
/// axes map to rows and columns.
struct PlaneLocation: Sendable, Equatable {
    var path: [String]
    /// The dataset's extent as listed, HDF5's order; reading checks it again.
    var dims: [Int]
    var sampleType: SampleType
    var frameAxis: Int?
    var frame = 0
    /// Whether the first of the two remaining axes runs along a row (x), as in HyperSpy's Berkeley
    /// files, rather than down a column (y), as in Velox's.
    var transposed: Bool

    private var planeAxes: [Int] { dims.indices.filter { $0 != frameAxis } }
    var width: Int { planeAxes.count == 2 ? dims[planeAxes[transposed ? 0 : 1]] : 0 }
    var height: Int { planeAxes.count == 2 ? dims[planeAxes[transposed ? 1 : 0]] : 0 }

    /// Reads the plane: libhdf5 converts the samples to floats in a helper process, straight into
    /// memory shared with it.
    func read(file: String, limits: ChildProcess.Limits) throws(ImageFileError) -> GrayImage {
        let (width, height) = (self.width, self.height)
        try ImageLimits.check(width: width, height: height)
        let count = width * height
        let shared = try ChildProcess.SharedMemory(count: count * MemoryLayout<Float>.size)
        _ = try HDF5Helper.run(.plane, file: file, request: encoded(), shared: shared, limits: limits)
        let stored = UnsafeBufferPointer(shared.bytes.bindMemory(to: Float.self))
        guard transposed else {
            return GrayImage(width: width, height: height, sampleType: sampleType, samples: Array(stored))
        }
        // Column by column in the file, row by row in the image: tiles keep both in the cache.
        let tile = 64
        let samples = [Float](unsafeUninitializedCapacity: count) { image, initialized in
            for x0 in stride(from: 0, to: width, by: tile) {
                for y0 in stride(from: 0, to: height, by: tile) {
                    for x in x0..<min(x0 + tile, width) {
                        for y in y0..<min(y0 + tile, height) { image[y * width + x] = stored[x * height + y] }
                    }
                }
            }
            initialized = count
        }
        return GrayImage(width: width, height: height, sampleType: sampleType, samples: samples)
    }

    /// In the helper: reads the plane into the shared memory file open on `sharedDescriptor`.
    func readInHelper(file: String, sharedDescriptor: Int32) throws(ImageFileError) {
        try ImageLimits.check(width: width, height: height)
        let count = width * height
        var info = stat()
        guard fstat(sharedDescriptor, &info) == 0, Int(info.st_size) == count * MemoryLayout<Float>.size,
            let address = mmap(nil, Int(info.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, sharedDescriptor, 0),
            address != MAP_FAILED
        else { throw ImageFileError("the HDF5 reader's helper got no memory for the samples") }
        defer { munmap(address, Int(info.st_size)) }
        try read(
            file: file, count: count, into: UnsafeMutableRawBufferPointer(start: address, count: Int(info.st_size)))
    }

    private func read(file: String, count: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ImageFileError) {
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
        var start = [hsize_t](repeating: 0, count: dims.count)
        var extent = dims.map { hsize_t($0) }
        if let frameAxis {
            start[frameAxis] = hsize_t(frame)
            extent[frameAxis] = 1
        }
        guard let space = HDF5Object(H5Dget_space(object.id), close: H5Sclose),
            H5Sselect_hyperslab(space.id, H5S_SELECT_SET, &start, nil, &extent, nil) >= 0,
            let memory = HDF5Object(H5Screate_simple(1, [hsize_t(count)], nil), close: H5Sclose),
            H5Dread(object.id, sonic_h5_native_float(), memory.id, space.id, sonic_h5_default(), buffer.baseAddress)
                >= 0
        else { throw HDF5Failure.current("cannot read the samples of \(path.joined(separator: "/"))") }
    }
}

extension PlaneLocation {
    /// What the caller sends the helper to read.
    func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.strings(path)
        out.ints(dims)
        out.string(sampleType.rawValue)
        out.int(frameAxis ?? -1)
        out.int(frame)
        out.bool(transposed)
        return out.bytes
    }

    init(decoding bytes: [UInt8]) throws(ImageFileError) {
        var input = ByteReader(bytes)
        path = try input.strings()
        dims = try input.ints()
        guard let sampleType = SampleType(rawValue: try input.string()) else {
            throw ImageFileError("the HDF5 reader's helper got a garbled request")
        }
        self.sampleType = sampleType
        let axis = try input.int()
        frameAxis = axis < 0 ? nil : axis
        frame = try input.int()
        transposed = try input.bool()
        guard input.atEnd, frameAxis.map({ dims.indices.contains($0) }) ?? true else {
            throw ImageFileError("the HDF5 reader's helper got a garbled request")
        }
    }
}
