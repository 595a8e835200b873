import RealModule

/// Finds the reflections of a power spectrum (`Diffractogram`): the peaks that stand out from its background, each
/// placed below a step of the frequency grid.
struct ReflectionSearch {
    /// A reflection needs this many periods across the image's shorter side: fewer is a slow change of the background,
    /// not a lattice, and lies in the zero frequency's main lobe.
    static let minimumPeriods = 8.0
    /// The background at a distance from the centre is pooled over neighbouring rings until it rests on this many
    /// values: the median of 200 exponential values is within about 10 % of the true one.
    static let minimumBackgroundSamples = 200
    /// The median of exponentially distributed power is ln 2 times its mean.
    static let medianOverMean = Double.log(2.0)

    let power: [Double]
    let size: Int
    let width: Int, height: Int
    let windowX: SpectralWindow, windowY: SpectralWindow
    /// How far a peak's main lobe reaches either way, in steps of the transform.
    let lobeX: Int, lobeY: Int
    /// Steps of the transform per ring of the background: one frequency step of the image.
    let ringWidth: Double
    /// The power a bin's must exceed, in means of the background: where pure noise passes it with chance
    /// `Significance.falseAlarms` over every independent bin of the half-plane searched.
    let threshold: Double

    init(power: [Double], size: Int, width: Int, height: Int) {
        self.power = power; self.size = size; self.width = width; self.height = height
        windowX = SpectralWindow(count: width)
        windowY = SpectralWindow(count: height)
        lobeX = Int((SpectralWindow.mainLobeHalfWidth * Double(size) / Double(width)).rounded(.up))
        lobeY = Int((SpectralWindow.mainLobeHalfWidth * Double(size) / Double(height)).rounded(.up))
        ringWidth = Double(size) / Double(max(width, height))
        // Padding adds steps between the image's own frequencies, not independent ones.
        let tests = Double(width * height) / 2
        threshold = Double.log(tests / Significance.falseAlarms)
    }

    /// The signed frequency index of transform index `k`.
    private func signed(_ k: Int) -> Int { k < size / 2 ? k : k - size }

    /// The bins of the half-plane searched (fy > 0, or fy = 0 and fx > 0), far enough from the centre.
    private func halfPlane(_ body: (_ kx: Int, _ ky: Int, _ ring: Int) -> Void) {
        let nearest = Self.minimumPeriods * Double(size) / Double(min(width, height))
        for ky in 0..<(size / 2) {
            for kx in 0..<size where ky > 0 || (kx > 0 && kx < size / 2) {
                let fx = Double(signed(kx)), fy = Double(ky)
                let radius = (fx * fx + fy * fy).squareRoot()
                guard radius >= nearest else { continue }
                body(kx, ky, Int(radius / ringWidth))
            }
        }
    }

    /// The background's mean power in each ring, from the median of the bins not `excluded`.
    private func background(excluding excluded: [Bool]?) -> [Double] {
        var rings: [[Double]] = []
        halfPlane { kx, ky, ring in
            let index = ky * size + kx
            if excluded?[index] == true { return }
            while rings.count <= ring { rings.append([]) }
            rings[ring].append(power[index])
        }
        let counts = rings.map(\.count)
        return rings.indices.map { ring in
            var low = ring, high = ring, count = counts[ring]
            while count < Self.minimumBackgroundSamples && (low > 0 || high < rings.count - 1) {
                if low > 0 { low -= 1; count += counts[low] }
                if high < rings.count - 1 { high += 1; count += counts[high] }
            }
            let pooled = (low...high).flatMap { rings[$0] }
            return LatticeAnalysis.median(pooled) / Self.medianOverMean
        }
    }

    /// Bins above the threshold over `background` and the highest within a main lobe round them.
    private func peaks(over background: [Double]) -> [(kx: Int, ky: Int, ring: Int)] {
        var found: [(kx: Int, ky: Int, ring: Int)] = []
        halfPlane { kx, ky, ring in
            let value = power[ky * size + kx]
            guard ring < background.count, value > threshold * background[ring], isHighest(kx, ky) else { return }
            found.append((kx, ky, ring))
        }
        return found
    }

    /// Whether no bin within a main lobe of (kx, ky) holds more power (ties go to the first in the scan).
    private func isHighest(_ kx: Int, _ ky: Int) -> Bool {
        let value = power[ky * size + kx]
        for dy in -lobeY...lobeY {
            let y = (ky + dy + size) % size
            for dx in -lobeX...lobeX where dx != 0 || dy != 0 {
                let other = power[y * size + (kx + dx + size) % size]
                if other > value || (other == value && (dy < 0 || (dy == 0 && dx < 0))) { return false }
            }
        }
        return true
    }

    /// The reflections, strongest first, not yet grouped into grains.
    func reflections() -> [Reflection] {
        let first = peaks(over: background(excluding: nil))
        // The background again without the peaks' main lobes, which lift the median of their rings.
        var excluded = [Bool](repeating: false, count: size * size)
        for peak in first {
            for dy in -lobeY...lobeY {
                for dx in -lobeX...lobeX {
                    excluded[((peak.ky + dy + size) % size) * size + (peak.kx + dx + size) % size] = true
                }
            }
        }
        let background = self.background(excluding: excluded)
        let candidates = peaks(over: background).map { peak in
            (refined: refine(peak.kx, peak.ky), background: background[peak.ring])
        }
        .sorted { $0.refined.power > $1.refined.power }
        // A far side lobe of a much stronger peak is no reflection: each peak must stand out from the background and
        // what the stronger ones leak to it.
        var kept: [(g: PixelVector, power: Double, background: Double)] = []
        for candidate in candidates {
            let g = candidate.refined.g
            let leaked = kept.reduce(0.0) { sum, stronger in
                sum + stronger.power * (leakage(from: stronger.g, to: g) + leakage(from: -1 * stronger.g, to: g))
            }
            if candidate.refined.power > threshold * (candidate.background + leaked) {
                kept.append((g, candidate.refined.power, candidate.background))
            }
        }
        let strongest = kept.first?.power ?? 1
        return kept.map { peak in
            var g = peak.g
            if g.y < 0 || (g.y == 0 && g.x < 0) { g = -1 * g }
            return Reflection(g: g, intensity: peak.power / strongest, prominence: peak.power / peak.background)
        }
    }

    /// The share of a peak's power at `source` that the window spreads to `target`.
    private func leakage(from source: PixelVector, to target: PixelVector) -> Double {
        let x = windowX.response(target.x - source.x) / windowX.response(0)
        let y = windowY.response(target.y - source.y) / windowY.response(0)
        return x * x * y * y
    }

    /// The peak at bin (kx, ky) placed below a step: its frequency (cycles per pixel) and its power at that frequency.
    private func refine(_ kx: Int, _ ky: Int) -> (g: PixelVector, power: Double) {
        func magnitude(_ dx: Int, _ dy: Int) -> Double {
            power[((ky + dy + size) % size) * size + (kx + dx + size) % size].squareRoot()
        }
        // The magnitude is the product of the window's transforms along x and y, so the sums across the three rows
        // (or columns) through the peak follow the shape along one axis alone.
        let alongX = (-1...1).map { dx in (-1...1).reduce(0.0) { $0 + magnitude(dx, $1) } }
        let alongY = (-1...1).map { dy in (-1...1).reduce(0.0) { $0 + magnitude($1, dy) } }
        let shiftX = offset(alongX, window: windowX), shiftY = offset(alongY, window: windowY)
        let step = 1 / Double(size)
        let peakShare =
            windowX.response(shiftX * step) / windowX.response(0) * windowY.response(shiftY * step)
            / windowY.response(0)
        let g = PixelVector(x: (Double(signed(kx)) + shiftX) * step, y: (Double(signed(ky)) + shiftY) * step)
        return (g, power[ky * size + kx] / (peakShare * peakShare))
    }

    /// The fraction of a step by which the peak lies beyond the middle of three magnitudes one step apart: where the
    /// window's transform, shifted by it, gives their difference over their sum.
    private func offset(_ magnitudes: [Double], window: SpectralWindow) -> Double {
        let total = magnitudes.reduce(0, +)
        guard total > 0 else { return 0 }
        let measured = (magnitudes[2] - magnitudes[0]) / total
        let step = 1 / Double(size)
        func model(_ shift: Double) -> Double {
            let values = (-1...1).map { abs(window.response((Double($0) - shift) * step)) }
            return (values[2] - values[0]) / values.reduce(0, +)
        }
        // The model rises with the shift over a step either way: halve the bracket until it pins the value.
        var low = -1.0, high = 1.0
        for _ in 0..<Self.bisections {
            let middle = (low + high) / 2
            if model(middle) < measured { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// Halvings of the offset's bracket of two steps: 2⁻⁴⁰ of a step, far below any noise.
    private static let bisections = 40
}
