/// The energy window whose map a spectrum image plays and shows, as `play --window` or `--element` and the window
/// keys choose it.
public struct PlayedWindow: Sendable, Equatable {
    /// Its bounds, in the spectral axis's units.
    public var start: Double
    public var end: Double
    /// Whether a flat background, measured in a window as wide just below it, is taken away (where the axis has
    /// room below it).
    public var background: Bool

    /// How much narrower or wider a window key makes the window.
    public static let widthStep = 1.5

    public init(start: Double, end: Double, background: Bool = false) {
        self.start = start
        self.end = end
        self.background = background
    }

    public init(_ window: EnergyWindow, background: Bool = false) {
        self.init(start: window.start, end: window.end, background: background)
    }

    /// The window the keys start from when none was chosen: a 48th of the axis (a band of the spectrum mode), in
    /// its middle.
    public static func starting(on axis: SignalAxis) -> PlayedWindow {
        let range = axis.range
        let width = max((range.upperBound - range.lowerBound) / Double(SpectrumBank.bands), Swift.abs(axis.scale))
        let middle = (range.lowerBound + range.upperBound) / 2
        return PlayedWindow(start: middle - width / 2, end: middle + width / 2)
    }

    /// The window's map: the counts in its channels at every pixel, less the background when asked for.
    public func map(of cube: SpectrumCube) throws(ImageFileError) -> GrayImage {
        let window = EnergyWindow(start: start, end: end)
        let axis = cube.spectralAxis
        let channels = try window.channels(on: axis)
        let below = background ? try? window.before.channels(on: axis) : nil
        return try cube.map(channels, background: below.flatMap { $0.isEmpty ? nil : $0 }).image
    }

    /// Moved by `steps` of its width (negative: to lower energies); nil where it would leave the axis.
    public func moved(by steps: Int, on axis: SignalAxis) -> PlayedWindow? {
        let shift = Double(steps) * (end - start)
        let moved = PlayedWindow(start: start + shift, end: end + shift, background: background)
        return moved.fits(axis) ? moved : nil
    }

    /// Narrower (`factor` below 1) or wider around its middle, from one channel's width to the whole axis, kept
    /// within the axis; nil where it is already as narrow or as wide as it goes.
    public func scaled(by factor: Double, on axis: SignalAxis) -> PlayedWindow? {
        let channel = Swift.abs(axis.scale)
        let range = axis.range
        let span = range.upperBound - range.lowerBound + channel
        let width = min(max((end - start) * factor, channel), span)
        guard Swift.abs(width - (end - start)) > channel * 1e-6 else { return nil }
        let middle = (start + end) / 2
        var scaled = PlayedWindow(start: middle - width / 2, end: middle + width / 2, background: background)
        if scaled.start < range.lowerBound {
            scaled = PlayedWindow(start: range.lowerBound, end: range.lowerBound + width, background: background)
        }
        if scaled.end > range.upperBound + channel {
            scaled = PlayedWindow(
                start: range.upperBound + channel - width, end: range.upperBound + channel, background: background)
        }
        return scaled
    }

    /// Whether the window lies on the axis (its end may reach one channel past the last, which it does not take).
    func fits(_ axis: SignalAxis) -> Bool {
        let range = axis.range
        let slack = Swift.abs(axis.scale) * 1e-6
        return start >= range.lowerBound - slack && end <= range.upperBound + Swift.abs(axis.scale) + slack
            && (try? axis.channels(from: start, to: end)) != nil
    }
}
