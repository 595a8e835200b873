/// The per-pixel noise level of an image, robustly: the median absolute response to Immerkær's mask
///
///     1 −2  1
///    −2  4 −2
///     1 −2  1
///
/// (a difference of two Laplacians, blind to planes and nearly blind to smooth structure such as columns a few
/// pixels wide), scaled to a Gaussian standard deviation. A median, not a mean, so the sharp parts of the image
/// (column flanks, edges) do not count as long as they cover less than half of it.
enum NoiseLevel {
    /// Below a quantization step the noise level is meaningless; never report less.
    static let floor = 0.5

    /// Estimated from a central crop of at most `crop`×`crop` pixels, every other pixel in each direction.
    static func estimate(_ image: GrayImage, crop: Int = 512) -> Double {
        var responses = Self.responses(image, crop: crop).map(\.response)
        guard !responses.isEmpty else { return floor }
        return max(floor, standardDeviation(medianResponse: Double(select(&responses, rank: responses.count / 2))))
    }

    /// The mask's absolute response and the 3×3 mean around it, at every other pixel in each direction of a
    /// central crop of at most `crop`×`crop` pixels.
    static func responses(_ image: GrayImage, crop: Int) -> [(mean: Float, response: Float)] {
        let w = image.width, h = image.height
        guard w >= 3 && h >= 3 else { return [] }
        let cw = min(crop, w), ch = min(crop, h)
        let x0 = (w - cw) / 2, y0 = (h - ch) / 2
        var responses: [(mean: Float, response: Float)] = []
        responses.reserveCapacity(((cw - 2) / 2 + 1) * ((ch - 2) / 2 + 1))
        image.samples.withUnsafeBufferPointer { s in
            var y = y0 + 1
            while y < y0 + ch - 1 {
                var x = x0 + 1
                while x < x0 + cw - 1 {
                    let up = (y - 1) * w + x, mid = y * w + x, down = (y + 1) * w + x
                    // Exact for 8- and 16-bit values: the sums stay far below Float's 2^24.
                    let corners = s[up - 1] + s[up + 1] + s[down - 1] + s[down + 1]
                    let edges = s[up] + s[down] + s[mid - 1] + s[mid + 1]
                    responses.append(((corners + edges + s[mid]) / 9, abs(corners - 2 * edges + 4 * s[mid])))
                    x += 2
                }
                y += 2
            }
        }
        return responses
    }

    /// The noise's standard deviation from the median absolute response: the mask's weights have a root sum of
    /// squares of 6, and the median of |N(0, 1)| is 0.6745.
    static func standardDeviation(medianResponse median: Double) -> Double { median / (6 * 0.674_489_75) }

    /// The element of the given rank (0-based) in sorted order; reorders `values`.
    static func select<Value: Comparable>(_ values: inout [Value], rank: Int) -> Value {
        var lo = 0, hi = values.count - 1
        while lo < hi {
            let pivot = values[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j { values.swapAt(i, j); i += 1; j -= 1 }
            }
            if rank <= j { hi = j } else if rank >= i { lo = i } else { return values[rank] }
        }
        return values[rank]
    }
}
