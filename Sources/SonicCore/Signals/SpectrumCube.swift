import Synchronization

/// Which spectroscopy a spectrum's axis belongs to: it decides what `--element` looks for (X-ray
/// lines or edges) and how the axis is named.
public enum Spectroscopy: String, Sendable, Equatable {
    /// Energy-dispersive X-ray spectroscopy: peaks at the elements' X-ray lines.
    case eds = "EDS"
    /// Electron energy-loss spectroscopy: edges at the elements' binding energies.
    case eels = "EELS"
    /// Cathodoluminescence: light, its axis usually a wavelength.
    case cathodoluminescence = "CL"
    case unknown = ""

    /// From what a file says (DigitalMicrograph's "X-ray", HyperSpy's "EDS_TEM" …) or, failing
    /// that, from the spectral axis's units: keV is EDS, eV is EELS.
    public init(signal: String?, units: String) {
        let said = (signal ?? "").uppercased()
        if said.hasPrefix("EDS") || said == "X-RAY" || said == "EDX" {
            self = .eds
        } else if said.hasPrefix("EELS") {
            self = .eels
        } else if said == "CL" || said.hasPrefix("CL_") {
            self = .cathodoluminescence
        } else {
            switch EnergyUnit(units) {
            case .kiloelectronvolt: self = .eds
            case .electronvolt: self = .eels
            case nil: self = .unknown
            }
        }
    }
}

/// The units an energy axis may be in.
public enum EnergyUnit: String, Sendable, CaseIterable, Equatable {
    case electronvolt = "eV"
    case kiloelectronvolt = "keV"

    public init?(_ written: String) {
        switch written.filter({ !$0.isWhitespace }).lowercased() {
        case "ev": self = .electronvolt
        case "kev": self = .kiloelectronvolt
        default: return nil
        }
    }

    /// How many electronvolts one of this unit is.
    public var electronvolts: Double { self == .electronvolt ? 1 : 1000 }
}

/// A spectrum image (or line scan, or single spectrum) read lazily: the spectrum near a pixel, the
/// map of an energy window, the total counts and the spectrum summed over every pixel. Safe to use
/// from any thread; a play session asks it for spectra and maps away from the audio thread.
public final class SpectrumCube: Sendable {
    public let source: any SpectrumSource
    /// The axis the channels lie on.
    public let spectralAxis: SignalAxis
    public let spectroscopy: Spectroscopy
    /// An EDS detector's resolution as the file gives it: the width (FWHM) of Mn Kα, in eV; nil where it gives none.
    public let resolution: Double?
    /// The total counts and summed spectrum, found on first use.
    private let overviewFound = Mutex<SpectrumOverview?>(nil)
    /// The total counts alone, found on first use when the summed spectrum was not asked for.
    private let totalFound = Mutex<WindowMap?>(nil)
    /// Windows' sums at every pixel found in the pass that found the overview, kept for `map`.
    private let mapsFound = Mutex<[Range<Int>: [Double]]>([:])

    public init(
        source: any SpectrumSource, spectralAxis: SignalAxis, spectroscopy: Spectroscopy, resolution: Double? = nil
    ) {
        self.source = source
        self.spectralAxis = spectralAxis
        self.spectroscopy = spectroscopy
        self.resolution = resolution
    }

    public var width: Int { source.width }
    public var height: Int { source.height }
    public var channels: Int { source.channels }

    /// The spectra of the pixels within `radius` of (x, y) (a square, cut at the edges), summed.
    public func spectrum(x: Int, y: Int, radius: Int = 0) throws(ImageFileError) -> [Double] {
        guard x >= 0, x < width, y >= 0, y < height, radius >= 0 else {
            throw ImageFileError("pixel (\(x), \(y)) is outside the \(width) × \(height) scan")
        }
        let columns = max(0, x - radius)..<min(width, x + radius + 1)
        let rows = max(0, y - radius)..<min(height, y + radius + 1)
        let values = try source.spectra(columns: columns, rows: rows)
        guard values.count == columns.count * rows.count * channels else {
            throw ImageFileError("the spectra read are not the size they should be")
        }
        var summed = [Double](repeating: 0, count: channels)
        for start in stride(from: 0, to: values.count, by: max(channels, 1)) {
            for channel in 0..<channels { summed[channel] += Double(values[start + channel]) }
        }
        return summed
    }

    /// The total counts at every pixel and the spectrum summed over every pixel (one pass, then kept).
    public func overview() throws(ImageFileError) -> SpectrumOverview { try overview(with: []) }

    /// The overview and, when it is still to be found, the sums of `windows` at every pixel in the same
    /// pass, kept for `map` to give: what is asked for next is read with it, not in a pass of its own.
    @discardableResult
    public func overview(with windows: [Range<Int>]) throws(ImageFileError) -> SpectrumOverview {
        if let found = overviewFound.withLock({ $0 }) { return found }
        // The total counts are found anyway.
        let windows = windows.filter {
            !$0.isEmpty && $0.lowerBound >= 0 && $0.upperBound <= channels && $0 != 0..<channels
        }
        let sweep = try source.sweep(windows: [0..<channels] + windows, summing: true)
        let found = SpectrumOverview(
            totalCounts: WindowMap(
                width: width, height: height, channels: 0..<channels, background: nil, values: sweep.maps[0]),
            summed: sweep.summed ?? [])
        overviewFound.withLock { $0 = found }
        mapsFound.withLock { kept in for (window, map) in zip(windows, sweep.maps.dropFirst()) { kept[window] = map } }
        return found
    }

    /// The total counts at every pixel: what a spectrum image plays as. One pass when the overview
    /// has not been found, the summed spectrum left out.
    public func totalCounts() throws(ImageFileError) -> WindowMap {
        if let found = overviewFound.withLock({ $0 }) { return found.totalCounts }
        if let found = totalFound.withLock({ $0 }) { return found }
        let sweep = try source.sweep(windows: [0..<channels], summing: false)
        let found = WindowMap(
            width: width, height: height, channels: 0..<channels, background: nil, values: sweep.maps[0])
        totalFound.withLock { $0 = found }
        return found
    }

    /// The sums of `windows` at every pixel (within the channels): those found already (the total counts, the
    /// windows kept from the overview's pass) as found, the others in one pass.
    func maps(_ windows: [Range<Int>]) throws(ImageFileError) -> [[Double]] {
        let totals = overviewFound.withLock { $0?.totalCounts.values } ?? totalFound.withLock { $0?.values }
        let kept = mapsFound.withLock { kept in windows.map { $0 == 0..<channels ? totals : kept[$0] } }
        let missing = windows.indices.filter { kept[$0] == nil }
        guard !missing.isEmpty else { return kept.map { $0! } }
        let read = try source.sweep(windows: missing.map { windows[$0] }, summing: false).maps
        var maps = kept.map { $0 ?? [] }
        for (index, map) in zip(missing, read) { maps[index] = map }
        return maps
    }

    /// The sum of channels `window` at every pixel; with a background window, minus that window's
    /// mean per channel times the window's channels (a flat background under the peak or edge).
    public func map(_ window: Range<Int>, background: Range<Int>? = nil) throws(ImageFileError) -> WindowMap {
        for channels in [window] + (background.map { [$0] } ?? []) {
            guard !channels.isEmpty, channels.lowerBound >= 0, channels.upperBound <= self.channels else {
                throw ImageFileError(
                    "channels \(channels.lowerBound) to \(channels.upperBound) are not within the "
                        + "spectrum's \(self.channels)")
            }
        }
        if window == 0..<channels, background == nil { return try totalCounts() }
        let maps = try self.maps([window] + (background.map { [$0] } ?? []))
        var values = maps[0]
        if let background {
            let share = Double(window.count) / Double(background.count)
            for pixel in values.indices { values[pixel] -= share * maps[1][pixel] }
        }
        return WindowMap(width: width, height: height, channels: window, background: background, values: values)
    }
}

/// A spectrum image's total counts and its spectrum summed over every pixel.
public struct SpectrumOverview: Sendable {
    public var totalCounts: WindowMap
    public var summed: [Double]
}

/// An energy-window map: one value per pixel, row by row.
public struct WindowMap: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The channels summed at each pixel.
    public var channels: Range<Int>
    /// The channels whose flat background was taken away, if any.
    public var background: Range<Int>?
    public var values: [Double]

    public init(width: Int, height: Int, channels: Range<Int>, background: Range<Int>?, values: [Double]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.background = background
        self.values = values
    }

    public var minimum: Double { values.min() ?? 0 }
    public var maximum: Double { values.max() ?? 0 }
    public var mean: Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }

    public subscript(x: Int, y: Int) -> Double { values[y * width + x] }

    /// The map as an image to play and show: its values as 32-bit floats.
    public var image: GrayImage {
        GrayImage(width: width, height: height, sampleType: .float32, samples: values.map { Float($0) })
    }
}
