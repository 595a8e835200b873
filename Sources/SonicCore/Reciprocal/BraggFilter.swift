import Dispatch
import RealModule

/// Bragg filtering for geometric phase analysis: the image, a plane fitted to it taken away (its ramp would make a
/// step where the transform wraps round), padded with zeros to powers of two at least one mask's reach in the image
/// larger than it, transformed, multiplied by a Gaussian mask round a reflection and transformed back.
///
/// Padding, not cropping, keeps the whole image; the margin of zeros keeps the far edge's fringes out of the near
/// edge's filtered image, which wrapping round would mix in with the wrong phase, so the maps hold up close to the
/// edges. The mask covers a small window of the transform, so only that window is computed: the rows transformed
/// whole, then only the window's columns; and back, only the window's columns, then only the image's rows.
struct BraggFilter {
    /// The image's size, and the transform's.
    let width: Int, height: Int
    let paddedWidth: Int, paddedHeight: Int
    private let image: GrayImage
    /// The fitted plane: its value at the image's middle and its slopes.
    private let mean: Double, slopeX: Double, slopeY: Double

    /// The zeros round the image reach this many of the mask's real-space standard deviations, where its weight is
    /// below 10⁻⁵.
    static let paddingReach = 5.0
    /// The window of the transform kept round a reflection reaches this many of the mask's standard deviations:
    /// the mask's own reach and one more, so a refined reflection is filtered from the same window.
    static let windowReach = GeometricPhase.maskReach + 1
    /// Rows and columns are shared among the cores in this many parts.
    static let parts = 16

    init(_ image: GrayImage, smoothingLength: Double) {
        self.image = image
        width = image.width
        height = image.height
        let margin = Int((Self.paddingReach * smoothingLength).rounded(.up))
        var pw = 1, ph = 1
        while pw < width + margin { pw *= 2 }
        while ph < height + margin { ph *= 2 }
        paddedWidth = pw
        paddedHeight = ph
        // On a full grid of centred coordinates the plane's level and two slopes are independent.
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        var sum = 0.0, sumX = 0.0, sumY = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let value = Double(image.samples[y * width + x])
                sum += value
                sumX += value * (Double(x) - cx)
                sumY += value * (Double(y) - cy)
            }
        }
        let squaresX = (0..<width).reduce(0.0) { $0 + (Double($1) - cx) * (Double($1) - cx) } * Double(height)
        let squaresY = (0..<height).reduce(0.0) { $0 + (Double($1) - cy) * (Double($1) - cy) } * Double(width)
        mean = sum / Double(width * height)
        slopeX = squaresX > 0 ? sumX / squaresX : 0
        slopeY = squaresY > 0 ? sumY / squaresY : 0
    }

    /// The transform's windows round each of `centres` (cycles per pixel), reaching `reach` cycles per pixel either
    /// way: the image's rows transformed once for them all.
    func windows(around centres: [PixelVector], reach: Double) -> [SpectrumWindow] {
        let pw = paddedWidth, ph = paddedHeight, w = width, h = height
        let bounds = centres.map { centre -> (firstX: Int, firstY: Int, columns: Int, rows: Int) in
            let firstX = Int((Double(pw) * (centre.x - reach)).rounded(.down))
            let firstY = Int((Double(ph) * (centre.y - reach)).rounded(.down))
            return (
                firstX, firstY, min(pw, Int((Double(pw) * (centre.x + reach)).rounded(.up)) - firstX + 1),
                min(ph, Int((Double(ph) * (centre.y + reach)).rounded(.up)) - firstY + 1)
            )
        }
        // Every window's columns side by side in the rows kept.
        let offsets = bounds.reduce(into: [0]) { $0.append($0.last! + $1.columns) }
        let kept = offsets.last!
        let rowFFT = FFT(count: pw), columnFFT = FFT(count: ph)
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        let samples = image.samples, mean = mean, slopeX = slopeX, slopeY = slopeY
        // The image's rows transformed, the windows' columns kept: rowsKept[y·kept + column].
        let rowsKept = Self.filled(2 * h * kept) { out in
            Self.shared(h) { range in
                let re = UnsafeMutablePointer<Double>.allocate(capacity: pw)
                let im = UnsafeMutablePointer<Double>.allocate(capacity: pw)
                defer { re.deallocate(); im.deallocate() }
                for y in range {
                    re.initialize(repeating: 0, count: pw)
                    im.initialize(repeating: 0, count: pw)
                    for x in 0..<w {
                        re[x] =
                            Double(samples[y * w + x]) - mean - slopeX * (Double(x) - cx) - slopeY * (Double(y) - cy)
                    }
                    rowFFT.transform(real: re, imag: im, inverse: false)
                    for (b, bound) in bounds.enumerated() {
                        for j in 0..<bound.columns {
                            let k = Self.wrapped(bound.firstX + j, pw)
                            out[2 * (y * kept + offsets[b] + j)] = re[k]
                            out[2 * (y * kept + offsets[b] + j) + 1] = im[k]
                        }
                    }
                }
            }
        }
        // Then each window's columns, its rows kept.
        return bounds.enumerated().map { b, bound in
            let columns = bound.columns, rows = bound.rows, offset = offsets[b]
            let values = Self.filled(2 * rows * columns) { out in
                Self.shared(columns) { range in
                    let re = UnsafeMutablePointer<Double>.allocate(capacity: ph)
                    let im = UnsafeMutablePointer<Double>.allocate(capacity: ph)
                    defer { re.deallocate(); im.deallocate() }
                    for j in range {
                        re.initialize(repeating: 0, count: ph)
                        im.initialize(repeating: 0, count: ph)
                        for y in 0..<h {
                            re[y] = rowsKept[2 * (y * kept + offset + j)]
                            im[y] = rowsKept[2 * (y * kept + offset + j) + 1]
                        }
                        columnFFT.transform(real: re, imag: im, inverse: false)
                        for i in 0..<rows {
                            let k = Self.wrapped(bound.firstY + i, ph)
                            out[2 * (i * columns + j)] = re[k]
                            out[2 * (i * columns + j) + 1] = im[k]
                        }
                    }
                }
            }
            return SpectrumWindow(
                firstX: bound.firstX, firstY: bound.firstY, columns: columns, rows: rows, values: values)
        }
    }

    /// The image filtered through a Gaussian mask of standard deviation `sigma` round `g` (within `window`), at each
    /// of the image's pixels, times exp(−2πi g·r): what is left of the fringes once their carrier is taken away.
    /// Interleaved real and imaginary parts, row by row.
    func filtered(_ window: SpectrumWindow, g: PixelVector, sigma: Double) -> [Double] {
        let pw = paddedWidth, ph = paddedHeight, w = width, h = height
        let columns = window.columns, rows = window.rows
        let rowFFT = FFT(count: pw), columnFFT = FFT(count: ph)
        let reach = GeometricPhase.maskReach * sigma
        let weights = (0..<rows).flatMap { i in
            (0..<columns).map { j -> Double in
                let dx = Double(window.firstX + j) / Double(pw) - g.x
                let dy = Double(window.firstY + i) / Double(ph) - g.y
                return abs(dx) > reach || abs(dy) > reach ? 0 : Double.exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
            }
        }
        // Back along the window's columns, the image's rows kept: columnsBack[y·columns + j].
        let columnsBack = Self.filled(2 * h * columns) { out in
            Self.shared(columns) { range in
                let re = UnsafeMutablePointer<Double>.allocate(capacity: ph)
                let im = UnsafeMutablePointer<Double>.allocate(capacity: ph)
                defer { re.deallocate(); im.deallocate() }
                for j in range {
                    re.initialize(repeating: 0, count: ph)
                    im.initialize(repeating: 0, count: ph)
                    for i in 0..<rows {
                        let k = Self.wrapped(window.firstY + i, ph)
                        re[k] = window.values[2 * (i * columns + j)] * weights[i * columns + j]
                        im[k] = window.values[2 * (i * columns + j) + 1] * weights[i * columns + j]
                    }
                    columnFFT.transform(real: re, imag: im, inverse: true)
                    for y in 0..<h {
                        out[2 * (y * columns + j)] = re[y]
                        out[2 * (y * columns + j) + 1] = im[y]
                    }
                }
            }
        }
        let carrierX = (0..<w).map { Self.turn(-2 * Double.pi * g.x * Double($0)) }
        let carrierY = (0..<h).map { Self.turn(-2 * Double.pi * g.y * Double($0)) }
        // Then along the image's rows, the image's pixels kept and the carrier taken away.
        return Self.filled(2 * w * h) { out in
            Self.shared(h) { range in
                let re = UnsafeMutablePointer<Double>.allocate(capacity: pw)
                let im = UnsafeMutablePointer<Double>.allocate(capacity: pw)
                defer { re.deallocate(); im.deallocate() }
                for y in range {
                    re.initialize(repeating: 0, count: pw)
                    im.initialize(repeating: 0, count: pw)
                    for j in 0..<columns {
                        let k = Self.wrapped(window.firstX + j, pw)
                        re[k] = columnsBack[2 * (y * columns + j)]
                        im[k] = columnsBack[2 * (y * columns + j) + 1]
                    }
                    rowFFT.transform(real: re, imag: im, inverse: true)
                    for x in 0..<w {
                        let c = Self.times(carrierX[x], carrierY[y])
                        let v = Self.times((re[x], im[x]), c)
                        out[2 * (y * w + x)] = v.0
                        out[2 * (y * w + x) + 1] = v.1
                    }
                }
            }
        }
    }

    /// The phase field of reflection `initial`, whose window of the transform is `first`: filtered, g refined until
    /// the phase's mean gradient over `reference` vanishes, and its mean phase there taken away. Nil when the
    /// reference region holds no pixel.
    func phaseField(
        _ initial: PixelVector, window first: SpectrumWindow, maskRadius sigma: Double, reference: ImageRectangle
    ) -> PhaseField? {
        let x0 = max(0, Int(reference.x0.rounded(.up))), x1 = min(width - 1, Int(reference.x1.rounded(.down)))
        let y0 = max(0, Int(reference.y0.rounded(.up))), y1 = min(height - 1, Int(reference.y1.rounded(.down)))
        guard x0 <= x1, y0 <= y1 else { return nil }
        let w = width, h = height
        var g = initial
        var centre = g
        var window = first
        var field = filtered(window, g: g, sigma: sigma)
        var round = 0
        while true {
            // The mean gradient weighed by the filtered image's power: the phase of the summed products of
            // neighbours two pixels apart.
            var sx = (0.0, 0.0), sy = (0.0, 0.0)
            for y in y0...y1 {
                for x in x0...x1 {
                    let here = y * w + x
                    if x > 0 && x < w - 1 { sx = Self.plus(sx, Self.timesConjugate(field, here + 1, here - 1)) }
                    if y > 0 && y < h - 1 { sy = Self.plus(sy, Self.timesConjugate(field, here + w, here - w)) }
                }
            }
            let shift = PixelVector(
                x: Double.atan2(y: sx.1, x: sx.0) / (4 * Double.pi), y: Double.atan2(y: sy.1, x: sy.0) / (4 * Double.pi)
            )
            g = g + shift
            if shift.length <= GeometricPhase.refilterShift * sigma || round == GeometricPhase.refinements {
                // The small shift left is taken away in the image, as a carrier of its own.
                let carrierX = (0..<w).map { Self.turn(-2 * Double.pi * shift.x * Double($0)) }
                let carrierY = (0..<h).map { Self.turn(-2 * Double.pi * shift.y * Double($0)) }
                for y in 0..<h {
                    for x in 0..<w {
                        let i = 2 * (y * w + x)
                        (field[i], field[i + 1]) = Self.times(
                            (field[i], field[i + 1]), Self.times(carrierX[x], carrierY[y]))
                    }
                }
                break
            }
            if max(abs(g.x - centre.x), abs(g.y - centre.y)) > (Self.windowReach - GeometricPhase.maskReach) * sigma {
                centre = g
                window = windows(around: [centre], reach: Self.windowReach * sigma)[0]
            }
            field = filtered(window, g: g, sigma: sigma)
            round += 1
        }
        var mean = (0.0, 0.0)
        for y in y0...y1 {
            for x in x0...x1 { mean = Self.plus(mean, (field[2 * (y * w + x)], field[2 * (y * w + x) + 1])) }
        }
        let length = (mean.0 * mean.0 + mean.1 * mean.1).squareRoot()
        let back = length > 0 ? (mean.0 / length, -mean.1 / length) : (1.0, 0.0)
        var re = [Float](repeating: 0, count: w * h), im = re
        for i in re.indices {
            let v = Self.times((field[2 * i], field[2 * i + 1]), back)
            re[i] = Float(v.0)
            im[i] = Float(v.1)
        }
        return PhaseField(g: g, real: re, imaginary: im)
    }

    /// `count` values, zero until `body` fills them (in parallel: each value by one core).
    private static func filled(_ count: Int, _ body: (SharedValues) -> Void) -> [Double] {
        [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: 0)
            body(SharedValues(buffer: buffer))
            initialized = count
        }
    }

    /// Runs `body` over parts of 0..<count, the parts shared among the cores.
    private static func shared(_ count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let parts = min(count, Self.parts)
        guard parts > 0 else { return }
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            body((part * count / parts)..<((part + 1) * count / parts))
        }
    }

    private static func wrapped(_ k: Int, _ n: Int) -> Int { ((k % n) + n) % n }
    private static func turn(_ angle: Double) -> (Double, Double) { (Double.cos(angle), Double.sin(angle)) }
    private static func times(_ p: (Double, Double), _ q: (Double, Double)) -> (Double, Double) {
        (p.0 * q.0 - p.1 * q.1, p.0 * q.1 + p.1 * q.0)
    }
    private static func plus(_ p: (Double, Double), _ q: (Double, Double)) -> (Double, Double) {
        (p.0 + q.0, p.1 + q.1)
    }
    /// field[i]·conj(field[j]), the field interleaved.
    private static func timesConjugate(_ field: [Double], _ i: Int, _ j: Int) -> (Double, Double) {
        let (ar, ai, br, bi) = (field[2 * i], field[2 * i + 1], field[2 * j], field[2 * j + 1])
        return (ar * br + ai * bi, ai * br - ar * bi)
    }
}

/// An array's storage that the cores fill at once, each its own values.
struct SharedValues: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Double>
    subscript(index: Int) -> Double {
        get { buffer[index] }
        nonmutating set { buffer[index] = newValue }
    }
}

/// A window of a padded transform: `columns` × `rows` bins from signed bin (firstX, firstY), interleaved real and
/// imaginary parts, row by row.
struct SpectrumWindow {
    let firstX: Int, firstY: Int, columns: Int, rows: Int
    let values: [Double]
}

/// A Bragg-filtered image with its carrier taken away: the reflection refined over the reference region, and the
/// filtered image, its phase P_g(r) = −2π g·u(r) zero on average over the reference region.
struct PhaseField {
    var g: PixelVector
    var real: [Float], imaginary: [Float]
}
