/// How the noise of a pixel grows with its mean level: variance = gain · mean + offset, as for a counting detector
/// (shot noise, whose variance is proportional to the signal, plus read noise). The offset absorbs a detector's
/// dark level too, so it may be negative; the variance never falls below `floor`.
///
/// Measured from the image itself: over a central crop, every other pixel's local mean (its 3×3 neighbourhood)
/// and its response to the noise mask of `NoiseLevel`, which is blind to planes and nearly blind to columns. The
/// pixels are sorted by local mean into bins of equal count; each bin's noise variance comes from the median
/// response, robust against the sharp parts of the image, and a line through the bins' (mean, variance) pairs gives
/// gain and offset.
struct NoiseModel: Sendable, Equatable {
    var gain: Double
    var offset: Double
    /// The least variance any level is given: a share of the variance at the darkest bin, so a line that dips
    /// towards zero at the dark end never makes a pixel weigh without limit.
    var floor: Double

    func variance(atMean mean: Double) -> Double { max(floor, gain * mean + offset) }

    static let binCount = 16
    /// Fewer sampled pixels per bin than this leave the bins' variances too uncertain to trust a slope from.
    static let minimumPerBin = 200
    /// The variance must grow by at least this factor across the bins' range for the model to matter; below it,
    /// equal weights are as good.
    static let minimumGrowth = 1.25

    /// The noise model of the image, or nil where it cannot be trusted (too few pixels, a flat image, no clear
    /// growth of the variance with the level, a line that does not describe the bins): then every pixel is taken
    /// to be as noisy as any other.
    static func estimate(_ image: GrayImage, crop: Int = 512) -> NoiseModel? {
        var pairs = NoiseLevel.responses(image, crop: crop)
        guard pairs.count >= binCount * minimumPerBin else { return nil }
        pairs.sort { $0.mean < $1.mean }
        var means: [Double] = [], variances: [Double] = []
        var responses: [Float] = []
        for b in 0..<binCount {
            let bin = pairs[(b * pairs.count / binCount)..<((b + 1) * pairs.count / binCount)]
            responses = bin.map(\.response)
            let sd = NoiseLevel.standardDeviation(
                medianResponse: Double(NoiseLevel.select(&responses, rank: responses.count / 2)))
            means.append(Double(bin[bin.startIndex + bin.count / 2].mean))
            variances.append(sd * sd)
        }
        guard let lowest = variances.min(), lowest > 0, means.last! > means.first! else { return nil }
        // Each bin's variance is uncertain in proportion to itself: a line fitted by relative error.
        var sw = 0.0, sm = 0.0, sv = 0.0, smm = 0.0, smv = 0.0
        for (m, v) in zip(means, variances) {
            let weight = 1 / (v * v)
            sw += weight; sm += weight * m; sv += weight * v; smm += weight * m * m; smv += weight * m * v
        }
        let determinant = sw * smm - sm * sm
        guard determinant > 0 else { return nil }
        let gain = (sw * smv - sm * sv) / determinant
        let offset = (sv - gain * sm) / sw
        let model = NoiseModel(gain: gain, offset: offset, floor: 0.5 * lowest)
        guard gain > 0,
            model.variance(atMean: means.last!) >= minimumGrowth * model.variance(atMean: means.first!)
        else { return nil }
        // A line that misses the bins by more than their spread allows is no model of them.
        let misfit = zip(means, variances).map { abs(model.variance(atMean: $0) / $1 - 1) }.sorted()
        guard misfit[misfit.count / 2] < 0.15 else { return nil }
        return model
    }
}
