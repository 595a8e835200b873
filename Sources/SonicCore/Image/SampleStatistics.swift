/// Order statistics of an image's samples, from one exact histogram pass.
public struct SampleStatistics: Sendable {
    /// count[v] = how many samples have value v.
    private let histogram: [Int]
    public let count: Int
    public let minimum: UInt16
    public let maximum: UInt16

    public init(_ image: GrayImage) {
        var histogram = [Int](repeating: 0, count: image.maxSampleValue + 1)
        image.samples.withUnsafeBufferPointer { samples in
            for v in samples { histogram[Int(v)] += 1 }
        }
        self.histogram = histogram
        count = image.samples.count
        minimum = UInt16(histogram.firstIndex { $0 > 0 }!)
        maximum = UInt16(histogram.lastIndex { $0 > 0 }!)
    }

    /// The nearest-rank percentile: the smallest sample with at least p % of all samples at or below it.
    public func percentile(_ p: Double) -> UInt16 {
        precondition(p >= 0 && p <= 100, "percentile is 0...100")
        // Rank 1...count; the small epsilon keeps p·N/100 that is an integer in exact arithmetic from rounding up.
        let rank = min(count, max(1, Int((p * Double(count) / 100 - 1e-9).rounded(.up))))
        var seen = 0
        for (value, n) in histogram.enumerated() {
            seen += n
            if seen >= rank { return UInt16(value) }
        }
        return maximum
    }

    public var mean: Double {
        var sum = 0.0
        for (value, n) in histogram.enumerated() where n > 0 { sum += Double(value) * Double(n) }
        return sum / Double(count)
    }

    /// Counts of samples in `bins` equal-width bands spanning minimum...maximum, with each band's
    /// first value.
    public func bands(_ bins: Int) -> [(from: Int, count: Int)] {
        precondition(bins > 0)
        let lo = Int(minimum), span = Int(maximum) - lo + 1
        var counts = [Int](repeating: 0, count: bins)
        for value in lo...Int(maximum) where histogram[value] > 0 {
            counts[(value - lo) * bins / span] += histogram[value]
        }
        return counts.enumerated().map { (lo + ($0.offset * span + bins - 1) / bins, $0.element) }
    }
}
