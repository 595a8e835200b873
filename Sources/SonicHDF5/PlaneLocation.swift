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
    func read(from file: HDF5File) throws(ImageFileError) -> GrayImage {
        let (width, height) = (self.width, self.height)
        try ImageLimits.check(width: width, height: height)
        var start = dims.map { _ in 0 }, count = dims
        if let frameAxis {
            start[frameAxis] = frame
            count[frameAxis] = 1
        }
        let shared = try file.read(
            Hyperslab(path: path, dims: dims, sampleType: sampleType, start: start, count: count))
        let stored = UnsafeBufferPointer(shared.bytes.bindMemory(to: Float.self))
        guard transposed else {
            return GrayImage(width: width, height: height, sampleType: sampleType, samples: Array(stored))
        }
        // Column by column in the file, row by row in the image: tiles keep both in the cache.
        let tile = 64
        let pixels = width * height
        let samples = [Float](unsafeUninitializedCapacity: pixels) { image, initialized in
            for x0 in stride(from: 0, to: width, by: tile) {
                for y0 in stride(from: 0, to: height, by: tile) {
                    for x in x0..<min(x0 + tile, width) {
                        for y in y0..<min(y0 + tile, height) { image[y * width + x] = stored[x * height + y] }
                    }
                }
            }
            initialized = pixels
        }
        return GrayImage(width: width, height: height, sampleType: sampleType, samples: samples)
    }
}
