/// What a dataset is, as a microscopist names it.
public enum SignalKind: String, Sendable, CaseIterable, Equatable {
    /// One 2-D image.
    case image
    /// Images of the same size in a series: frames in time, focus or tilt.
    case stack
    /// A spectrum at every pixel of a 2-D scan (EELS, EDS, cathodoluminescence).
    case spectrumImage = "spectrum-image"
    /// A spectrum at every position along a line.
    case lineScan = "line-scan"
    /// One spectrum.
    case spectrum

    /// As spoken and printed: "spectrum image".
    public var spoken: String { rawValue.replacing("-", with: " ") }
}

/// One axis of a dataset: `size` points, point i at `offset + i · scale` `units`. Navigation axes say
/// where (the scan's x and y, a stack's frames); signal axes say what was measured there (an image's x
/// and y, a spectrum's energy).
public struct SignalAxis: Sendable, Equatable {
    public var name: String
    public var size: Int
    public var scale: Double
    public var offset: Double
    /// As the file writes them: "nm", "eV", "keV", "s", "" …
    public var units: String
    public var navigation: Bool

    public init(name: String, size: Int, scale: Double = 1, offset: Double = 0, units: String = "", navigation: Bool) {
        self.name = name
        self.size = size
        self.scale = scale
        self.offset = offset
        self.units = units
        self.navigation = navigation
    }

    /// The axis of an image or frame from its calibration (uncalibrated: scale 1, no units).
    public init(name: String, size: Int, calibration: AxisCalibration?, navigation: Bool) {
        self.init(
            name: name, size: size, scale: calibration?.scale ?? 1, offset: calibration?.offset ?? 0,
            units: calibration?.unit ?? "", navigation: navigation)
    }

    /// The calibration an image's axis has, or nil when it has none (scale 1 without units).
    public var calibration: AxisCalibration? {
        scale == 1 && units.isEmpty ? nil : AxisCalibration(scale: scale, offset: offset, unit: units)
    }

    /// Where point `index` lies, in the axis's units.
    public func position(_ index: Int) -> Double { offset + Double(index) * scale }

    /// The lowest and highest positions of the axis's points.
    public var range: ClosedRange<Double> {
        let (first, last) = (position(0), position(size - 1))
        return min(first, last)...max(first, last)
    }

    /// The point nearest `value`, as HyperSpy finds it (`value2index`), so that a window asked for in
    /// units takes the channels HyperSpy's `isig[start:end]` takes; nil beyond the axis. The
    /// fraction is cut to 12 decimals first, as HyperSpy does, so that 4.36 keV at 0.01 keV a channel
    /// is channel 436 and not 435.99…; halves round towards zero for positions at or above zero,
    /// away from it below.
    public func index(nearest value: Double) -> Int? {
        guard value.isFinite, scale != 0, scale.isFinite else { return nil }
        let cut = ((value - offset) / scale * 1e12).rounded(.towardZero) / 1e12
        let towardZero = (value >= 0) == (scale > 0)
        let magnitude = Swift.abs(cut)
        let rounded = towardZero ? (magnitude - 0.5).rounded(.up) : (magnitude + 0.5).rounded(.down)
        let index = cut < 0 ? -rounded : rounded
        guard index >= 0, index < Double(size) else { return nil }
        return Int(index)
    }

    /// The channels HyperSpy's `isig[start:end]` takes: from the one nearest `start` up to, not
    /// including, the one nearest `end`. A start below the axis begins at its first channel, an end
    /// beyond it runs to its last; a window wholly outside the axis, or one holding no channel, is
    /// refused.
    public func channels(from start: Double, to end: Double) throws(ImageFileError) -> Range<Int> {
        let described = "\(Self.text(start)) to \(Self.text(end))\(units.isEmpty ? "" : " " + units)"
        guard start.isFinite, end.isFinite else { throw ImageFileError("the window \(described) is not a number") }
        let span = range
        guard start <= span.upperBound else {
            throw ImageFileError(
                "the window \(described) starts beyond the axis, which ends at \(Self.text(span.upperBound))")
        }
        guard end >= span.lowerBound else {
            throw ImageFileError(
                "the window \(described) ends below the axis, which begins at \(Self.text(span.lowerBound))")
        }
        let first = index(nearest: start) ?? 0
        let last = index(nearest: end) ?? size
        guard first < last else { throw ImageFileError("the window \(described) holds no channel") }
        return first..<last
    }

    /// Numbers in messages: up to 6 significant digits.
    public static func text(_ value: Double) -> String { NumberText.significant(value, digits: 6) }
}
