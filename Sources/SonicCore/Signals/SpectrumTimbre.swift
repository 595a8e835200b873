import Synchronization

/// Which spectrum the spectrum mode plays: the spectra within `radius` pixels of a pixel, summed.
public struct SpectrumRequest: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public var radius: Int

    public init(x: Int, y: Int, radius: Int) {
        self.x = x
        self.y = y
        self.radius = radius
    }

    /// The pen's pressure widens the neighbourhood: radius 0 up to a quarter of full pressure, then one pixel more
    /// each quarter, up to `SpectrumTimbre.largestRadius`.
    public static func radius(pressure: Double) -> Int {
        min(SpectrumTimbre.largestRadius, max(0, Int((pressure * 4).rounded(.down))))
    }
}

/// A spectrum reduced to what the spectrum bank plays: the amplitude of each band's sine.
public struct SpectrumLevels: Sendable, Equatable {
    public var request: SpectrumRequest
    /// `SpectrumBank.bands` amplitudes, the lowest band first.
    public var amplitudes: [Float]

    public init(request: SpectrumRequest, amplitudes: [Float]) {
        self.request = request
        self.amplitudes = amplitudes
    }
}

/// How a spectrum sounds: its energy axis cut into `SpectrumBank.bands` bands of equal width, band b (from the
/// axis's low end) sounding a sine at 100 · 50^((b + ½) / 48) Hz — the axis laid out evenly in octaves over
/// 100–5000 Hz, so a peak is a tone at its place. Each band's power is its share of the spectrum's counts (its
/// amplitude the square root of that share), so the bank is as loud as one tone; that loudness follows the counts a
/// pixel (the spectrum's total over its pixels) against the image's 99th percentile of total counts, up to the
/// profile's tone amplitude. Where the amplitudes add up to more than `peak`, they are scaled down to it, so the
/// bank's sum never passes it whatever the phases.
public struct SpectrumTimbre: Sendable {
    /// The widest neighbourhood the pen's pressure reaches.
    public static let largestRadius = 3
    /// The share of pixels with fewer total counts than a pixel that sounds at full loudness.
    public static let fullPercentile = 99.0

    public let channels: Int
    /// The counts a pixel sounding at full loudness holds.
    public let fullCounts: Double
    /// The loudness of a pixel with `fullCounts` or more.
    public let amplitude: Double
    public let peak: Double

    public init(channels: Int, fullCounts: Double, amplitude: Double, peak: Double) {
        self.channels = channels
        self.fullCounts = fullCounts
        self.amplitude = amplitude
        self.peak = peak
    }

    /// The band channel `channel` (of `channels`) falls in: the axis cut into equal parts.
    public static func band(ofChannel channel: Int, channels: Int) -> Int {
        min(SpectrumBank.bands - 1, max(0, channel * SpectrumBank.bands / max(1, channels)))
    }

    /// The bank's amplitudes for `spectrum`, the spectra of `pixels` pixels summed. Negative counts (a spectrum
    /// with its background taken away) count as none.
    public func amplitudes(of spectrum: [Double], pixels: Int) -> [Float] {
        var counts = [Double](repeating: 0, count: SpectrumBank.bands)
        for (channel, value) in spectrum.enumerated() where value > 0 {
            counts[Self.band(ofChannel: channel, channels: spectrum.count)] += value
        }
        let total = counts.reduce(0, +)
        guard total > 0, total.isFinite, fullCounts > 0 else { return [Float](repeating: 0, count: counts.count) }
        let loudness = amplitude * min(1, total / Double(max(1, pixels)) / fullCounts)
        var amplitudes = counts.map { loudness * ($0 / total).squareRoot() }
        let sum = amplitudes.reduce(0, +)
        if sum > peak { amplitudes = amplitudes.map { $0 * peak / sum } }
        return amplitudes.map { Float($0) }
    }
}

/// A spectrum image as the spectrum mode plays it: the spectrum near a pixel read from the file and reduced to the
/// bank's amplitudes, and its strongest peaks. The same file gives the same amplitudes live and in `render`. Safe to
/// use from any thread: live, spectra are read on a thread of their own, never the audio thread.
public final class SpectrumVoice: Sendable {
    public let cube: SpectrumCube
    private let amplitude: Double
    private let peak: Double
    /// The timbre, once the image's total counts are known (one pass over the spectra, on first use).
    private let found = Mutex<SpectrumTimbre?>(nil)
    /// The windows of the identified elements' lines, once the summed spectrum has been read.
    private let lines = Mutex<LineWindows?>(nil)

    public init(cube: SpectrumCube, amplitude: Double, peak: Double) {
        self.cube = cube
        self.amplitude = amplitude
        self.peak = peak
    }

    /// As loud as the profile's tone, within its limiter's threshold.
    public convenience init(cube: SpectrumCube, profile: Profile) {
        self.init(cube: cube, amplitude: profile.amplitude, peak: profile.chain.limiterThreshold)
    }

    public var width: Int { cube.width }
    public var height: Int { cube.height }

    /// The timbre, with the counts a pixel sounding at full loudness: the 99th percentile of the total counts (or,
    /// where that is none, the highest).
    public func timbre() throws(ImageFileError) -> SpectrumTimbre {
        if let timbre = found.withLock({ $0 }) { return timbre }
        let totals = try cube.totalCounts().values.filter(\.isFinite).sorted()
        let rank = Int((SpectrumTimbre.fullPercentile / 100 * Double(max(0, totals.count - 1))).rounded(.up))
        let percentile = totals.isEmpty ? 0 : totals[min(rank, totals.count - 1)]
        let full = percentile > 0 ? percentile : max(totals.last ?? 0, 1)
        let timbre = SpectrumTimbre(channels: cube.channels, fullCounts: full, amplitude: amplitude, peak: peak)
        found.withLock { $0 = timbre }
        return timbre
    }

    /// The spectra within the request's radius of its pixel, summed, and how many pixels that is.
    public func spectrum(_ request: SpectrumRequest) throws(ImageFileError) -> (values: [Double], pixels: Int) {
        let values = try cube.spectrum(x: request.x, y: request.y, radius: request.radius)
        let columns = max(0, request.x - request.radius)..<min(width, request.x + request.radius + 1)
        let rows = max(0, request.y - request.radius)..<min(height, request.y + request.radius + 1)
        return (values, columns.count * rows.count)
    }

    /// What the bank plays for the request.
    public func levels(_ request: SpectrumRequest) throws(ImageFileError) -> SpectrumLevels {
        let (values, pixels) = try spectrum(request)
        return SpectrumLevels(request: request, amplitudes: try timbre().amplitudes(of: values, pixels: pixels))
    }

    /// The windows of the lines and edges of the elements the summed spectrum holds: one pass over the spectra on
    /// first use (a play session makes it before it starts); none where the spectra cannot be read.
    public func lineWindows() -> LineWindows {
        if let known = lines.withLock({ $0 }) { return known }
        let made = (try? cube.overview().summed).map { LineWindows(summed: $0, cube: cube) } ?? LineWindows.none
        lines.withLock { $0 = made }
        return made
    }

    /// The strongest peaks of the request's spectrum, most prominent first, each named where it can be.
    public func peaks(_ request: SpectrumRequest, count: Int = 3) throws(ImageFileError) -> [SpectrumPeak] {
        SpectrumPeaks.strongest(
            try spectrum(request).values, axis: cube.spectralAxis, spectroscopy: cube.spectroscopy,
            resolution: cube.resolution, count: count)
    }
}
