/// Order statistics of an image's samples.
///
/// 8- and 16-bit images are counted value by value in one exact histogram pass. Other types (32-bit
/// integers, floats) are counted in fine bins between the minimum and maximum, and a percentile is
/// then made exact by ranking the few samples of its bin.
public struct SampleStatistics: Sendable {
    private let samples: [Float]
    private let sampleType: SampleType
    /// counts[b] = how many samples fall in bin b (one value per bin for 8- and 16-bit images).
    private let counts: [Int]
    public let count: Int
    public let minimum: Double
    public let maximum: Double
    public let mean: Double

    /// Bins for types with too many values to count one by one.
    static let fineBins = 65_536

    public init(_ image: GrayImage) {
        samples = image.samples
        sampleType = image.sampleType
        count = samples.count
        var lowest = Float.infinity, highest = -Float.infinity, sum = 0.0
        samples.withUnsafeBufferPointer { values in
            for v in values {
                lowest = min(lowest, v)
                highest = max(highest, v)
                sum += Double(v)
            }
        }
        minimum = Double(lowest)
        maximum = Double(highest)
        mean = sum / Double(count)
        let binCount = sampleType.smallIntegerRange?.count ?? Self.fineBins
        var counts = [Int](repeating: 0, count: binCount)
        let binning = Binning(sampleType: sampleType, minimum: minimum, maximum: maximum, bins: binCount)
        samples.withUnsafeBufferPointer { values in
            for v in values { counts[binning.bin(v)] += 1 }
        }
        self.counts = counts
    }

    /// The nearest-rank percentile: the smallest sample with at least p % of all samples at or below it.
    public func percentile(_ p: Double) -> Double {
        precondition(p >= 0 && p <= 100, "percentile is 0...100")
        // Rank 1...count; the small epsilon keeps p·N/100 that is an integer in exact arithmetic from rounding up.
        let rank = min(count, max(1, Int((p * Double(count) / 100 - 1e-9).rounded(.up))))
        var seen = 0
        for (bin, n) in counts.enumerated() where n > 0 {
            guard seen + n >= rank else {
                seen += n
                continue
            }
            if let range = sampleType.smallIntegerRange { return Double(range.lowerBound + bin) }
            let binning = Binning(sampleType: sampleType, minimum: minimum, maximum: maximum, bins: counts.count)
            var inBin = samples.filter { binning.bin($0) == bin }
            inBin.sort()
            return Double(inBin[rank - seen - 1])
        }
        return maximum
    }

    /// Counts of samples in `bands` equal-width bands spanning minimum...maximum, with each band's
    /// lowest value. Integer images' bands start on whole values.
    public func bands(_ bands: Int) -> [(from: Double, count: Int)] {
        precondition(bands > 0)
        var tally = [Int](repeating: 0, count: bands)
        if let range = sampleType.smallIntegerRange {
            let lo = Int(minimum), span = Int(maximum) - lo + 1
            for (bin, n) in counts.enumerated() where n > 0 {
                tally[(range.lowerBound + bin - lo) * bands / span] += n
            }
            return tally.enumerated().map { (Double(lo + ($0.offset * span + bands - 1) / bands), $0.element) }
        }
        if !sampleType.isFloat, minimum.isFinite, maximum.isFinite {
            // Wider integers: bands of whole values too, each starting on a value.
            let lo = minimum, span = maximum - minimum + 1
            samples.withUnsafeBufferPointer { values in
                for v in values { tally[min(bands - 1, max(0, Int(((Double(v) - lo) * Double(bands) / span))))] += 1 }
            }
            return tally.enumerated().map { (lo + (Double($0.offset) * span / Double(bands)).rounded(.up), $0.element) }
        }
        let binning = Binning(sampleType: sampleType, minimum: minimum, maximum: maximum, bins: bands)
        samples.withUnsafeBufferPointer { values in
            for v in values { tally[binning.bin(v)] += 1 }
        }
        let width = (maximum - minimum) / Double(bands)
        return tally.enumerated().map { (minimum + Double($0.offset) * width, $0.element) }
    }
}

/// Which bin a sample falls in: its value's place in the type's range, or an equal-width share of
/// minimum...maximum.
private struct Binning {
    let offset: Double
    let scale: Double
    let last: Int

    init(sampleType: SampleType, minimum: Double, maximum: Double, bins: Int) {
        last = bins - 1
        if let range = sampleType.smallIntegerRange, range.count == bins {
            offset = Double(range.lowerBound)
            scale = 1
        } else {
            offset = minimum
            scale = maximum > minimum ? Double(bins) / (maximum - minimum) : 0
        }
    }

    @inline(__always)
    func bin(_ value: Float) -> Int {
        min(last, max(0, Int((Double(value) - offset) * scale)))
    }
}
