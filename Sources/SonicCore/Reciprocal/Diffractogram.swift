import RealModule

/// A peak of the diffractogram: one set of lattice fringes, counted once with its Friedel mate −g.
public struct Reflection: Sendable, Equatable {
    /// Cycles per pixel, in image axes (x right, y down); of g and −g, the one whose direction lies in [0°, 180°).
    public var g: PixelVector
    /// The peak's power over the strongest reflection's: 1 for the strongest.
    public var intensity: Double
    /// The peak's power over the mean power of the spectrum's background at its distance from the centre.
    public var prominence: Double
    /// The grain it belongs to (an index into `Diffractogram.grains`); nil when it fits no lattice of two reflections.
    public var grain: Int?

    public init(g: PixelVector, intensity: Double, prominence: Double, grain: Int? = nil) {
        self.g = g; self.intensity = intensity; self.prominence = prominence; self.grain = grain
    }

    /// The fringes' spacing d = 1/|g|, in pixels.
    public var spacing: Double { 1 / g.length }

    /// The direction of g in degrees, from +x towards +y (clockwise on screen), in [0, 180).
    public var direction: Double { Self.direction(of: g) }

    /// The direction of `g` in degrees modulo 180, in [0, 180).
    static func direction(of g: PixelVector) -> Double {
        let degrees = Double.atan2(y: g.y, x: g.x) * 180 / Double.pi
        let folded = degrees < 0 ? degrees + 180 : degrees
        return folded >= 180 ? folded - 180 : folded
    }
}

/// The image's diffractogram: its Fourier transform's power, the image tapered by a smooth window first
/// (`SpectralWindow`), and the reflections that stand out from the spectrum's own background, grouped into the grains
/// whose lattices they form.
///
/// - Reflections: local maxima of the power whose power lies further above the background's mean than its noise
///   (exponentially distributed, as the power of noise is) would put any bin of the spectrum, with a chance of 1 % over
///   the whole spectrum (`Significance.falseAlarms`). The background at each distance from the centre is the median of
///   the power there, the peaks' main lobes left out, so rings of amorphous material and the columns' fall-off are
///   background too, and a noise image shows no reflection.
/// - Each reflection is placed below a step of the frequency grid by the window's own peak shape: along each axis,
///   the three steps round its maximum are matched to the window's transform shifted by the unknown fraction, which
///   is exact for a perfect lattice.
/// - Grains (`ReciprocalGrain`): the lattice that takes in the most power of the reflections as integer combinations
///   of two of them, its basis refined by least squares over them all; then the same among the reflections left.
public struct Diffractogram: Sendable {
    /// The image's size, in pixels.
    public let imageWidth: Int, imageHeight: Int
    /// The transform's side: the power of two at least the image's larger side. The image, windowed, is padded with
    /// zeros to it (after the window there is no edge for the zeros to make), rather than cropped, which would lose up
    /// to half of it; both ways the same, so a step of the diffractogram is one frequency along x and along y.
    public let size: Int
    /// Strongest first.
    public let reflections: [Reflection]
    /// The grains, the one whose reflections hold the most power first.
    public let grains: [ReciprocalGrain]
    /// The logarithm of the power, zero frequency at pixel (size/2, size/2), frequencies growing right and down as
    /// the image's axes do; the 16-bit levels span from the spectrum's 1st percentile to its maximum.
    public let image: GrayImage

    /// The lowest level shown is the power's `displayFloor` quantile: the troughs of the noise, not the zeros
    /// the padding leaves far out.
    static let displayFloor = 0.01
    /// At most this many values are sorted for the display's floor.
    static let displaySamples = 100_000

    public init(image source: GrayImage) {
        imageWidth = source.width
        imageHeight = source.height
        var size = 1
        while size < max(source.width, source.height) { size *= 2 }
        self.size = size
        let power = Self.powerSpectrum(source, size: size)
        let search = ReflectionSearch(power: power, size: size, width: source.width, height: source.height)
        let found = search.reflections()
        let grouping = ReciprocalGrain.group(found, width: source.width, height: source.height)
        reflections = grouping.reflections
        grains = grouping.grains
        self.image = Self.display(power, size: size)
    }

    /// The pixel of `image` where the frequency `g` (cycles per pixel) lies.
    public func point(for g: PixelVector) -> ImagePoint {
        ImagePoint(x: Double(size / 2) + g.x * Double(size), y: Double(size / 2) + g.y * Double(size))
    }

    /// The frequency (cycles per pixel) at a point of `image`.
    public func frequency(at point: ImagePoint) -> PixelVector {
        PixelVector(x: (point.x - Double(size / 2)) / Double(size), y: (point.y - Double(size / 2)) / Double(size))
    }

    /// The reflection whose peak, or its Friedel mate's, lies nearest `point` of `image` and within `radius` pixels
    /// of it: an index into `reflections`.
    public func reflection(near point: ImagePoint, within radius: Double) -> Int? {
        let f = frequency(at: point)
        let distances = reflections.map { min(($0.g - f).length, ($0.g + f).length) * Double(size) }
        guard let nearest = distances.indices.min(by: { distances[$0] < distances[$1] }),
            distances[nearest] <= radius
        else { return nil }
        return nearest
    }

    /// The power of the windowed image's transform, `size` × `size`, zero frequency at index 0.
    private static func powerSpectrum(_ source: GrayImage, size: Int) -> [Double] {
        let w = source.width, h = source.height
        let windowX = SpectralWindow(count: w), windowY = SpectralWindow(count: h)
        // The mean taken away first, so the zero frequency's peak is small and its lobe stays near the centre.
        let mean = source.samples.reduce(0.0) { $0 + Double($1) } / Double(w * h)
        var real = [Double](repeating: 0, count: size * size)
        var imaginary = [Double](repeating: 0, count: size * size)
        for y in 0..<h {
            let weight = windowY.values[y]
            for x in 0..<w {
                real[y * size + x] = (Double(source.samples[y * w + x]) - mean) * windowX.values[x] * weight
            }
        }
        FFT2D(width: size, height: size).transformConcurrently(real: &real, imag: &imaginary, inverse: false)
        for i in real.indices { real[i] = real[i] * real[i] + imaginary[i] * imaginary[i] }
        return real
    }

    /// The power's logarithm, centred, as 16-bit levels.
    private static func display(_ power: [Double], size: Int) -> GrayImage {
        let stride = max(1, power.count / displaySamples)
        let sample = Swift.stride(from: 0, to: power.count, by: stride).map { power[$0] }.filter { $0 > 0 }.sorted()
        let top = power.max() ?? 0
        guard let low = sample.isEmpty ? nil : sample[Int(displayFloor * Double(sample.count - 1))], top > low else {
            return GrayImage(
                width: size, height: size, bitDepth: 16, samples: [UInt16](repeating: 0, count: size * size))
        }
        let floor = Double.log(low), scale = 65_535 / (Double.log(top) - floor)
        var levels = [UInt16](repeating: 0, count: size * size)
        let half = size / 2
        for ky in 0..<size {
            let row = (ky + half) % size
            for kx in 0..<size {
                let value = power[ky * size + kx]
                let level = value > low ? (Double.log(value) - floor) * scale : 0
                levels[row * size + (kx + half) % size] = UInt16(min(65_535, level.rounded()))
            }
        }
        return GrayImage(width: size, height: size, bitDepth: 16, samples: levels)
    }
}
