/// The frames of a stack, each read when asked for: a stack of any length takes the memory of the
/// frames in use.
public struct FrameStack: Sendable {
    public let count: Int
    public let width: Int
    public let height: Int
    public let sampleType: SampleType
    private let reader: @Sendable (Int) throws(ImageFileError) -> GrayImage

    public init(
        count: Int, width: Int, height: Int, sampleType: SampleType,
        read: @escaping @Sendable (Int) throws(ImageFileError) -> GrayImage
    ) {
        self.count = count
        self.width = width
        self.height = height
        self.sampleType = sampleType
        self.reader = read
    }

    /// Frame `index` (from 0).
    public func frame(_ index: Int) throws(ImageFileError) -> GrayImage {
        guard index >= 0, index < count else {
            throw ImageFileError("there is no frame \(index + 1): the stack has \(count)")
        }
        let frame = try reader(index)
        guard frame.width == width, frame.height == height else {
            throw ImageFileError(
                "frame \(index + 1) is \(frame.width) × \(frame.height) pixels, not the stack's \(width) × \(height)")
        }
        return frame
    }

    /// Every frame added pixel by pixel, as 32-bit floats; divided by the count, their mean.
    public func sum(mean: Bool = false) throws(ImageFileError) -> GrayImage {
        var total = [Double](repeating: 0, count: width * height)
        for index in 0..<count {
            let samples = try frame(index).samples
            for pixel in total.indices { total[pixel] += Double(samples[pixel]) }
        }
        let divisor = mean ? Double(count) : 1
        return GrayImage(
            width: width, height: height, sampleType: .float32, samples: total.map { Float($0 / divisor) })
    }
}
