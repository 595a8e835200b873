/// A decoded grayscale image: the file's own sample values, row-major, top row first.
///
/// Nothing here rescales: the sample under the pen is the sample in the file (8- and 16-bit values
/// as they are, float data in its own units). A float image's NaN and infinite samples hold no
/// value to play; they are replaced by the image's lowest finite value and counted.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let sampleType: SampleType
    public let samples: [Float]
    /// How many samples were not finite numbers in the file (float data only).
    public let nonFiniteCount: Int

    public init(width: Int, height: Int, sampleType: SampleType, samples: [Float]) {
        precondition(width > 0 && height > 0, "image must not be empty")
        precondition(samples.count == width * height, "sample count must match the dimensions")
        self.width = width
        self.height = height
        self.sampleType = sampleType
        guard sampleType.isFloat, samples.contains(where: { !$0.isFinite }) else {
            self.samples = samples
            nonFiniteCount = 0
            return
        }
        // With no finite value at all there is nothing to stand in, and the image plays as zero.
        let lowest = samples.lazy.filter(\.isFinite).min() ?? 0
        var count = 0
        self.samples = samples.map { value in
            guard value.isFinite else { count += 1; return lowest }
            return value
        }
        nonFiniteCount = count
    }

    /// An 8- or 16-bit unsigned image from its raw values.
    public init(width: Int, height: Int, bitDepth: Int, samples: [UInt16]) {
        precondition(bitDepth == 8 || bitDepth == 16, "bit depth is 8 or 16")
        self.init(
            width: width, height: height, sampleType: bitDepth == 16 ? .uint16 : .uint8,
            samples: samples.map(Float.init))
    }

    public var bitDepth: Int { sampleType.bits }

    @inlinable
    public subscript(x: Int, y: Int) -> Float { samples[y * width + x] }

    public func contains(pixelX x: Int, y: Int) -> Bool {
        x >= 0 && x < width && y >= 0 && y < height
    }
}
