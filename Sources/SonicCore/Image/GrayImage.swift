/// A decoded grayscale image: raw samples, row-major, top row first.
///
/// 8-bit images keep their 0...255 values; 16-bit images keep their raw 0...65535 values.
/// Nothing here rescales: the sample under the pen is the sample in the file.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let bitDepth: Int
    public let samples: [UInt16]

    public init(width: Int, height: Int, bitDepth: Int, samples: [UInt16]) {
        precondition(width > 0 && height > 0, "image must not be empty")
        precondition(bitDepth == 8 || bitDepth == 16, "bit depth is 8 or 16")
        precondition(samples.count == width * height, "sample count must match the dimensions")
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.samples = samples
    }

    public var maxSampleValue: Int { bitDepth == 16 ? 65535 : 255 }

    @inlinable
    public subscript(x: Int, y: Int) -> UInt16 { samples[y * width + x] }

    public func contains(pixelX x: Int, y: Int) -> Bool {
        x >= 0 && x < width && y >= 0 && y < height
    }
}
