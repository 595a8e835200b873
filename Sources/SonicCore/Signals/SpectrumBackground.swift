import RealModule

/// The smooth background under a spectrum's peaks and edges, and how far the counts stand above it given their
/// counting (Poisson) noise.
enum SpectrumBackground {
    /// How many standard deviations of counting noise make a peak, an edge or a line significant.
    static let significance = 5.0
    /// Where a channel stands far enough above the background to be left out of the fit: lower than `significance`,
    /// so a peak's flanks are left out too.
    static let maskSignificance = 2.5
    /// How far an EDS continuum fitted under a line may miss it, as a share of the background there: at hundreds of
    /// millions of counts counting noise alone would call the continuum's own bends peaks.
    static let continuumShare = 0.01
    /// How far a power law extrapolated over an EELS edge may miss the background, as a share of it.
    static let powerLawShare = 0.02

    /// An EDS spectrum's continuum: at each channel a quadratic fitted over about three line widths either side,
    /// to the channels that are not in a peak, with how well it fits there (its misfit, as `localQuadratic` gives it). Channels below
    /// `first` are left as they are. The peaks that tower over their surroundings (`tallPeaks`) are left out from the
    /// start, so that the first fit does not follow them; then peaks are found against the fit and left out of the
    /// next one, four times; a hump as broad as several line widths stays in the continuum, as the quadratic follows
    /// it.
    static func continuum(_ counts: [Double], first: Int, widths: [Double]) -> (
        background: [Double], misfit: [Double], masked: [Bool]
    ) {
        let n = counts.count
        var masked = tallPeaks(counts, first: first, widths: widths)
        if masked[first...].filter({ !$0 }).count < max(8, (n - first) / 5) {
            masked = [Bool](repeating: false, count: n)
        }
        for channel in 0..<min(first, n) { masked[channel] = true }
        var fit = localQuadratic(counts, masked: masked, first: first, widths: widths)
        for pass in 0..<4 {
            if pass > 0 { fit = localQuadratic(counts, masked: masked, first: first, widths: widths) }
            var next = masked
            let net = zip(counts, fit.background).map { $0 - $1 }
            for channel in first..<n {
                let half = max(1, Int((0.6 * widths[channel]).rounded()))
                let (excess, variance, under) = windowSum(
                    net, background: fit.background, counts: counts, around: channel, half: half)
                let systematic = continuumShare * under
                let noise = max(variance * fit.misfit[channel] + systematic * systematic, 1).squareRoot()
                guard excess > maskSignificance * noise else { continue }
                let spread = max(1, Int((1.2 * widths[channel]).rounded()))
                for neighbour in max(first, channel - spread)...min(n - 1, channel + spread) { next[neighbour] = true }
            }
            // A fit needs free channels: where peaks would cover nearly all, the last mask stays.
            guard next[first...].filter({ !$0 }).count >= max(8, (n - first) / 5), next != masked else { break }
            masked = next
        }
        return (fit.background, fit.misfit, masked)
    }

    /// The channels within three line widths of a peak that towers over its surroundings, whatever the continuum:
    /// its top-hat net counts on the counts themselves (`topHat` against no background) pass `significance` standard
    /// deviations and hold more than half the counts under it. A quadratic fitted over such a peak follows it and
    /// misses by far more than counting noise, which would hide the peak; three line widths leave out its tails.
    static func tallPeaks(_ counts: [Double], first: Int, widths: [Double]) -> [Bool] {
        let n = counts.count
        var masked = [Bool](repeating: false, count: n)
        let none = [Double](repeating: 0, count: n)
        for channel in max(0, first)..<n {
            let hat = topHat(counts, background: none, counts: counts, at: channel, width: widths[channel])
            let half = max(1, Int((0.6 * widths[channel]).rounded()))
            let under = counts[max(0, channel - half)...min(n - 1, channel + half)].reduce(0, +)
            guard hat.net > significance * hat.sigma, hat.net > 0.5 * under else { continue }
            let spread = max(1, Int((3 * widths[channel]).rounded()))
            for neighbour in max(first, channel - spread)...min(n - 1, channel + spread) { masked[neighbour] = true }
        }
        return masked
    }

    /// The background at each channel from `first` on: a quadratic fitted to the unmasked channels within three
    /// line widths of it, with at least three on either side (the window doubled, up to five times, until there
    /// are); and its misfit there: the free channels' reduced chi-square against counting noise, at least 1, by
    /// which the noise of a line there is widened where the quadratic cannot follow the continuum (as where it
    /// rises from nothing at the lowest energies).
    static func localQuadratic(_ counts: [Double], masked: [Bool], first: Int, widths: [Double]) -> (
        background: [Double], misfit: [Double]
    ) {
        let n = counts.count
        var fitted = counts
        var misfit = [Double](repeating: 1, count: n)
        for channel in first..<n {
            var half = max(4, Int((3 * widths[channel]).rounded()))
            for _ in 0..<5 {
                let window = max(first, channel - half)...min(n - 1, channel + half)
                var (s0, s1, s2, s3, s4, r0, r1, r2) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
                var (below, above) = (0, 0)
                for other in window where !masked[other] {
                    let t = Double(other - channel) / Double(half), tt = t * t, y = counts[other]
                    s0 += 1
                    s1 += t
                    s2 += tt
                    s3 += tt * t
                    s4 += tt * tt
                    r0 += y
                    r1 += t * y
                    r2 += tt * y
                    if other < channel { below += 1 } else if other > channel { above += 1 }
                }
                // Free channels on both sides, or many on the one side at the spectrum's ends.
                let balanced =
                    (below >= 3 && above >= 3) || (window.lowerBound == first && above >= 8)
                    || (window.upperBound == n - 1 && below >= 8)
                guard below + above >= 8, balanced,
                    let solution = Cramer.solve([[s0, s1, s2], [s1, s2, s3], [s2, s3, s4]], [r0, r1, r2])
                else {
                    half *= 2
                    continue
                }
                fitted[channel] = max(0, solution[0])
                var chiSquare = 0.0
                for other in window where !masked[other] {
                    let t = Double(other - channel) / Double(half)
                    let model = solution[0] + solution[1] * t + solution[2] * t * t
                    let difference = counts[other] - model
                    chiSquare += difference * difference / max(counts[other], model, 1)
                }
                misfit[channel] = max(1, chiSquare / Double(max(1, Int(s0) - 3)))
                break
            }
        }
        return (fitted, misfit)
    }

    /// The net counts in the `half` channels either side of `channel`; their variance: the counts, or the
    /// background where that is higher (few counts say little of their own noise); and the background under them.
    static func windowSum(_ net: [Double], background: [Double], counts: [Double], around channel: Int, half: Int)
        -> (excess: Double, variance: Double, under: Double)
    {
        var excess = 0.0, variance = 0.0, under = 0.0
        for other in max(0, channel - half)...min(net.count - 1, channel + half) {
            excess += net[other]
            variance += max(counts[other], background[other], 0)
            under += max(background[other], 0)
        }
        return (excess, variance, under)
    }

    /// A line's net counts at `channel` as a top hat: the net counts within 0.6 line widths, less the mean net
    /// count of the 1.2 line widths on either side of that times as many channels (so a residual broader than a
    /// line counts for nothing); with its standard deviation, counting noise and the continuum's uncertainty.
    static func topHat(_ net: [Double], background: [Double], counts: [Double], at channel: Int, width: Double)
        -> (net: Double, sigma: Double)
    {
        let n = net.count
        let half = max(1, Int((0.6 * width).rounded()))
        let flank = max(1, Int((1.2 * width).rounded()))
        var centre = 0.0, centreVariance = 0.0, centreCount = 0, under = 0.0
        var sides = 0.0, sidesVariance = 0.0, sidesCount = 0
        for other in max(0, channel - half - flank)...min(n - 1, channel + half + flank) {
            let variance = max(counts[other], background[other], 0)
            if Swift.abs(other - channel) <= half {
                centre += net[other]
                centreVariance += variance
                under += max(background[other], 0)
                centreCount += 1
            } else {
                sides += net[other]
                sidesVariance += variance
                sidesCount += 1
            }
        }
        guard centreCount > 0, sidesCount > 0 else { return (0, 1) }
        let share = Double(centreCount) / Double(sidesCount)
        let systematic = continuumShare * under
        return (
            centre - share * sides,
            max(centreVariance + share * share * sidesVariance + systematic * systematic, 1).squareRoot()
        )
    }

    /// A power law A·E^−r fitted by weighted least squares to the logarithms of the counts in `window` (weights: the
    /// counts, the inverse variance of a count's logarithm), then summed over `over`: the sum and its variance
    /// from the fit's uncertainty, both widened by the misfit (the fit's reduced chi-square, at least 1). Nil where
    /// the window holds too few counted channels.
    static func powerLaw(_ counts: [Double], energies: [Double], window: Range<Int>, over: Range<Int>)
        -> (background: [Double], sum: Double, variance: Double, misfit: Double)?
    {
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, t0 = 0.0, t1 = 0.0, used = 0
        for channel in window where counts[channel] > 0 && energies[channel] > 0 {
            let w = counts[channel], x = Double.log(energies[channel]), y = Double.log(counts[channel])
            s0 += w
            s1 += w * x
            s2 += w * x * x
            t0 += w * y
            t1 += w * x * y
            used += 1
        }
        let determinant = s0 * s2 - s1 * s1
        guard used >= max(4, window.count / 2), determinant > 0, determinant.isFinite else { return nil }
        // y = a + b x, with b = −r.
        let a = (s2 * t0 - s1 * t1) / determinant, b = (s0 * t1 - s1 * t0) / determinant
        let (varA, varB, covAB) = (s2 / determinant, s0 / determinant, -s1 / determinant)
        var chiSquare = 0.0
        for channel in window where counts[channel] > 0 && energies[channel] > 0 {
            let residual = Double.log(counts[channel]) - a - b * Double.log(energies[channel])
            chiSquare += counts[channel] * residual * residual
        }
        let misfit = max(1, chiSquare / Double(max(1, used - 2)))
        var background: [Double] = []
        var sum = 0.0, gradientA = 0.0, gradientB = 0.0
        for channel in over {
            let x = Double.log(max(energies[channel], 1e-9))
            let value = Double.exp(a + b * x)
            background.append(value)
            sum += value
            gradientA += value
            gradientB += value * x
        }
        let variance = gradientA * gradientA * varA + gradientB * gradientB * varB + 2 * gradientA * gradientB * covAB
        guard sum.isFinite, variance.isFinite, misfit.isFinite else { return nil }
        return (background, sum, max(variance, 0) * misfit, misfit)
    }
}
