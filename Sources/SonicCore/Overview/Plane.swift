import RealModule

/// Values over an image's pixels, row by row: what the overview smooths, thresholds and floods when it tells what
/// an image without a lattice holds.
struct Plane: Sendable {
    let width: Int, height: Int
    var values: [Double]

    init(width: Int, height: Int, values: [Double]) {
        self.width = width; self.height = height; self.values = values
    }

    init(_ image: GrayImage) {
        self.init(width: image.width, height: image.height, values: image.samples.map(Double.init))
    }

    subscript(x: Int, y: Int) -> Double { values[y * width + x] }

    /// Smoothed by a Gaussian of `sigma` pixels, row then column, the edge pixels repeated beyond the edge.
    func smoothed(sigma: Double) -> Plane {
        let reach = max(1, Int((3 * sigma).rounded(.up)))
        var weights = (-reach...reach).map { Double.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        var rows = [Double](repeating: 0, count: values.count)
        var out = [Double](repeating: 0, count: values.count)
        let w = width, h = height
        values.withUnsafeBufferPointer { v in
            rows.withUnsafeMutableBufferPointer { r in
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0.0
                        for k in -reach...reach { sum += weights[k + reach] * v[y * w + min(w - 1, max(0, x + k))] }
                        r[y * w + x] = sum
                    }
                }
            }
        }
        rows.withUnsafeBufferPointer { r in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0.0
                        for k in -reach...reach { sum += weights[k + reach] * r[min(h - 1, max(0, y + k)) * w + x] }
                        o[y * w + x] = sum
                    }
                }
            }
        }
        return Plane(width: w, height: h, values: out)
    }

    /// How much a Gaussian of `sigma` pixels shrinks independent pixels' noise: 1 / (2 σ √π).
    static func noiseFactor(sigma: Double) -> Double { 1 / (2 * sigma * Double.pi.squareRoot()) }

    /// How many independent tests a search over a plane smoothed by `sigma` makes: one per patch of 4πσ² pixels.
    func tests(sigma: Double) -> Int { max(1, Int(Double(values.count) / (4 * Double.pi * sigma * sigma))) }

    /// The value of the given rank (0 the lowest) among `values`, found without sorting them all.
    static func ranked(_ values: [Double], _ rank: Int) -> Double {
        guard !values.isEmpty else { return 0 }
        var copy = values.map(Float.init)
        return Double(NoiseLevel.select(&copy, rank: min(values.count - 1, max(0, rank))))
    }

    static func median(_ values: [Double]) -> Double { ranked(values, values.count / 2) }
}
