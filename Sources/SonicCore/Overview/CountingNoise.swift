import RealModule

/// What the image's noise leaves uncertain in a column's integrated intensity, and the intensity held at a site: from
/// the noise the column finder measured (`NoiseModel` where the noise grows with the level, as counting noise does;
/// else the same noise everywhere), in the working units the finder fits in.
struct CountingNoise {
    private let image: GrayImage
    /// File units per working unit.
    private let scale: Double
    private let noise: Double
    private let model: NoiseModel?
    private let geometry: ColumnGeometry

    init(_ finder: ColumnFinder, spacing: Double) {
        image = finder.image
        scale = finder.range.scale
        noise = finder.noise
        model = finder.noiseModel
        geometry = ColumnGeometry(spacing: spacing)
    }

    private func variance(atLevel level: Double) -> Double { model?.variance(atMean: level) ?? noise * noise }

    /// The pixels of the window the column finder fits a column of width `sigma` at `centre` in: each pixel's
    /// offset from the centre, its value (working units) and its index.
    private func window(at centre: PixelVector, sigma: Double) -> [(dx: Double, dy: Double, value: Double)] {
        let radius = geometry.secondWindow(sigma: sigma)
        let x0 = max(0, Int((centre.x - radius).rounded(.up))),
            x1 = min(image.width - 1, Int((centre.x + radius).rounded(.down)))
        let y0 = max(0, Int((centre.y - radius).rounded(.up))),
            y1 = min(image.height - 1, Int((centre.y + radius).rounded(.down)))
        guard x0 <= x1 && y0 <= y1 else { return [] }
        var pixels: [(dx: Double, dy: Double, value: Double)] = []
        for y in y0...y1 {
            for x in x0...x1 {
                let dx = Double(x) - centre.x, dy = Double(y) - centre.y
                if dx * dx + dy * dy <= radius * radius {
                    pixels.append((dx, dy, Double(image.samples[y * image.width + x])))
                }
            }
        }
        return pixels
    }

    /// The standard error of the column's integrated intensity over the intensity: the Cramér–Rao bound of its
    /// Gaussian's height and width (and the background under it) in the window the finder fits it in, at the
    /// noise of each pixel's level.
    func relativeError(of column: AtomColumn) -> Double {
        let amplitude = column.peak / scale, sigma = column.sigma
        let pixels = window(at: PixelVector(x: column.x, y: column.y), sigma: sigma)
        guard amplitude > 0, sigma > 0, pixels.count > 3 else { return .infinity }
        let half = 1 / (2 * sigma * sigma)
        let gaussians = pixels.map { Double.exp(-($0.dx * $0.dx + $0.dy * $0.dy) * half) }
        let background = zip(pixels, gaussians).map { $0.value - amplitude * $1 }.reduce(0, +) / Double(pixels.count)
        // Information on (height, width, background), each pixel weighed by its noise.
        var information = [Double](repeating: 0, count: 9)
        for (pixel, g) in zip(pixels, gaussians) {
            let weight = 1 / variance(atLevel: background + amplitude * g)
            let r2 = pixel.dx * pixel.dx + pixel.dy * pixel.dy
            let gradient = [g, amplitude * g * r2 / (sigma * sigma * sigma), 1]
            for i in 0..<3 { for j in 0..<3 { information[3 * i + j] += weight * gradient[i] * gradient[j] } }
        }
        // The intensity 2π·A·σ² moves with the height and width: its variance is ∇ᵀ·I⁻¹·∇.
        let intensity = 2 * Double.pi * amplitude * sigma * sigma
        let direction = [2 * Double.pi * sigma * sigma, 4 * Double.pi * amplitude * sigma, 0]
        guard Cholesky.factor(&information, size: 3) else { return .infinity }
        var solved = direction
        Cholesky.solve(information, size: 3, &solved)
        let variance = zip(direction, solved).map { $0 * $1 }.reduce(0, +)
        return variance > 0 ? variance.squareRoot() / intensity : .infinity
    }

    /// The integrated intensity (file units × pixels) a column of width `sigma` held at `site` would have, fitted by
    /// least squares with a plane under it after the `neighbours`' Gaussians are taken away, and its standard error;
    /// nil where the window holds too few pixels.
    func intensity(at site: PixelVector, sigma: Double, neighbours: [AtomColumn]) -> (value: Double, error: Double)? {
        let pixels = window(at: site, sigma: sigma)
        guard pixels.count > 8, sigma > 0 else { return nil }
        let half = 1 / (2 * sigma * sigma)
        let rows = pixels.map { pixel -> (basis: [Double], data: Double, others: Double) in
            let x = site.x + pixel.dx, y = site.y + pixel.dy
            let others = neighbours.reduce(0.0) { sum, c in
                let ex = x - c.x, ey = y - c.y
                return sum + c.peak / scale * Double.exp(-(ex * ex + ey * ey) / (2 * c.sigma * c.sigma))
            }
            let g = Double.exp(-(pixel.dx * pixel.dx + pixel.dy * pixel.dy) * half)
            return ([g, 1, pixel.dx, pixel.dy], pixel.value - others, others)
        }
        // Weighed first alike, then by the noise at the level that fit predicts: never the pixels' own values.
        var weights = [Double](repeating: 1, count: rows.count)
        var solution: (parameters: [Double], covariance: Double)?
        for round in 0..<2 {
            if round == 1, let fit = solution?.parameters {
                weights = rows.map { row in
                    let level = zip(row.basis, fit).map { $0 * $1 }.reduce(0, +) + row.others
                    return 1 / variance(atLevel: level)
                }
            }
            var normal = [Double](repeating: 0, count: 16)
            var right = [Double](repeating: 0, count: 4)
            for (row, weight) in zip(rows, weights) {
                for i in 0..<4 {
                    right[i] += weight * row.basis[i] * row.data
                    for j in 0..<4 { normal[4 * i + j] += weight * row.basis[i] * row.basis[j] }
                }
            }
            guard Cholesky.factor(&normal, size: 4) else { return nil }
            Cholesky.solve(normal, size: 4, &right)
            var unit = [1.0, 0, 0, 0]
            Cholesky.solve(normal, size: 4, &unit)
            solution = (right, unit[0])
        }
        guard let solution else { return nil }
        let area = 2 * Double.pi * sigma * sigma * scale
        return (solution.parameters[0] * area, solution.covariance.squareRoot() * area)
    }
}
