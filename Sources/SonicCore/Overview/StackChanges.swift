import RealModule

/// What changes across a stack's frames: how far each frame has drifted from the first (by cross-correlation of a
/// central square, a power of two across, windowed), and how much brighter or dimmer the last frame is.
public struct StackChanges: Sendable {
    /// Each frame's shift from the first, in pixels (the first's is zero): where its content has moved to.
    public let shifts: [PixelVector]
    /// The last frame's mean over the first's, less one; nil when they differ by less than `brightnessStep`.
    public let brightness: Double?

    /// Drifts shorter than this (pixels) are not said.
    static let smallestDrift = 0.5
    /// Brightness changes smaller than this share are not said.
    static let brightnessStep = 0.02
    static let largestSide = 512

    /// The changes across `frames` (at least two, all one size); nil for fewer, or frames too small to compare.
    public init?(frames: [GrayImage]) {
        guard frames.count >= 2, let first = frames.first else { return nil }
        var side = 1
        while side * 2 <= min(first.width, first.height, Self.largestSide) { side *= 2 }
        guard side >= 16, frames.allSatisfy({ $0.width == first.width && $0.height == first.height }) else {
            return nil
        }
        let fft = FFT2D(width: side, height: side)
        let x0 = (first.width - side) / 2, y0 = (first.height - side) / 2
        // The central square less its mean, under a Hann window, transformed.
        func spectrum(_ image: GrayImage) -> (real: [Double], imag: [Double]) {
            var real = [Double](repeating: 0, count: side * side)
            var mean = 0.0
            for y in 0..<side { for x in 0..<side { mean += Double(image[x0 + x, y0 + y]) } }
            mean /= Double(side * side)
            for y in 0..<side {
                let wy = 0.5 - 0.5 * Double.cos(2 * Double.pi * Double(y) / Double(side))
                for x in 0..<side {
                    let wx = 0.5 - 0.5 * Double.cos(2 * Double.pi * Double(x) / Double(side))
                    real[y * side + x] = (Double(image[x0 + x, y0 + y]) - mean) * wx * wy
                }
            }
            var imag = [Double](repeating: 0, count: side * side)
            fft.transform(real: &real, imag: &imag, inverse: false)
            return (real, imag)
        }
        let reference = spectrum(first)
        var shifts = [PixelVector.zero]
        for frame in frames.dropFirst() {
            let moved = spectrum(frame)
            // The cross-power spectrum: its inverse, the cross-correlation, peaks at the shift. Not whitened: the
            // peak keeps the width of what moved, so noise does not make it and its top is a Gaussian's.
            var real = [Double](repeating: 0, count: side * side), imag = real
            for k in real.indices {
                real[k] = moved.real[k] * reference.real[k] + moved.imag[k] * reference.imag[k]
                imag[k] = moved.imag[k] * reference.real[k] - moved.real[k] * reference.imag[k]
            }
            fft.transform(real: &real, imag: &imag, inverse: true)
            let peak = real.indices.max { real[$0] < real[$1] }!
            let px = peak % side, py = peak / side
            func at(_ x: Int, _ y: Int) -> Double { real[((y + side) % side) * side + (x + side) % side] }
            // A Gaussian through the peak and its neighbours each way (a parabola through their logarithms), for the
            // shift to a fraction of a pixel.
            func offset(_ minus: Double, _ middle: Double, _ plus: Double) -> Double {
                guard minus > 0, middle > 0, plus > 0 else { return 0 }
                let (l, m, r) = (Double.log(minus), Double.log(middle), Double.log(plus))
                let curvature = l - 2 * m + r
                return curvature < 0 ? max(-0.5, min(0.5, 0.5 * (l - r) / curvature)) : 0
            }
            let dx = offset(at(px - 1, py), at(px, py), at(px + 1, py))
            let dy = offset(at(px, py - 1), at(px, py), at(px, py + 1))
            let sx = Double(px > side / 2 ? px - side : px) + dx, sy = Double(py > side / 2 ? py - side : py) + dy
            shifts.append(PixelVector(x: sx, y: sy))
        }
        self.shifts = shifts
        func mean(_ image: GrayImage) -> Double {
            image.samples.reduce(0) { $0 + Double($1) } / Double(max(1, image.samples.count))
        }
        let before = mean(first), after = mean(frames[frames.count - 1])
        let change = before > 0 ? after / before - 1 : 0
        brightness = abs(change) >= Self.brightnessStep ? change : nil
    }

    /// The drift from the first frame to the last, when it is long enough to say.
    public var drift: PixelVector? {
        guard let last = shifts.last, last.length >= Self.smallestDrift else { return nil }
        return last
    }
}

extension Phrases {
    /// "Across its 3 frames the image drifts 6.8 pixels towards the right (3.4 a frame) and grows 12 percent
    /// brighter.", "Across its 3 frames nothing drifts or fades."
    public static func stackChanges(_ changes: StackChanges, pixelSize: PixelSize?) -> String {
        let frames = changes.shifts.count
        var parts: [String] = []
        if let drift = changes.drift {
            let ways = ["right", "lower right", "bottom", "lower left", "left", "upper left", "top", "upper right"]
            let k = (Int((Double.atan2(y: drift.y, x: drift.x) * 180 / Double.pi / 45).rounded()) + 8) % 8
            let scale = pixelSize.map { $0.picometres / 1000 } ?? 1
            let unit = pixelSize == nil ? "pixels" : "nanometres"
            let total = NumberText.significant(drift.length * scale, digits: 2)
            let each = NumberText.significant(drift.length * scale / Double(frames - 1), digits: 2)
            parts.append("drifts \(total) \(unit) towards the \(ways[k]) (\(each) a frame)")
        }
        if let brightness = changes.brightness {
            parts.append("grows \(percent(abs(brightness))) percent \(brightness > 0 ? "brighter" : "dimmer")")
        }
        guard !parts.isEmpty else { return "Across its \(frames) frames nothing drifts or fades." }
        return "Across its \(frames) frames the image \(listed(parts))."
    }
}
