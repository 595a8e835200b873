/// The energy windows of the lines (EDS) or edges (EELS) of the elements a spectrum image's summed spectrum holds,
/// which the window keys step through, the strongest first to play; and what a window holds.
public struct LineWindows: Sendable {
    /// One a significant line or edge of an identified element, by energy, each with what the voice calls it.
    public let windows: [(window: PlayedWindow, spoken: String)]
    /// The window of the identified element with the most counts.
    public let strongest: PlayedWindow?
    private let summed: [Double]
    private let reading: SpectrumReading
    private let axis: SignalAxis?
    private let spectroscopy: Spectroscopy

    static let none = LineWindows(
        windows: [], strongest: nil, summed: [], reading: .empty, axis: nil, spectroscopy: .unknown)

    private init(
        windows: [(window: PlayedWindow, spoken: String)], strongest: PlayedWindow?, summed: [Double],
        reading: SpectrumReading, axis: SignalAxis?, spectroscopy: Spectroscopy
    ) {
        self.windows = windows
        self.strongest = strongest
        self.summed = summed
        self.reading = reading
        self.axis = axis
        self.spectroscopy = spectroscopy
    }

    /// From the summed spectrum of `cube`: each named peak's window one line width either side of its line (as
    /// `--element` takes it), each edge's from its onset over 5 % of it (at least 20 eV).
    public init(summed: [Double], cube: SpectrumCube) {
        let axis = cube.spectralAxis
        let reading = ElementIdentification.read(
            summed, axis: axis, spectroscopy: cube.spectroscopy,
            resolution: EnergyWindow.usableResolution(cube.resolution))
        let perUnit = EnergyUnit(axis.units)?.electronvolts ?? 1
        func lineWidth(_ energy: Double) -> Double {
            EnergyWindow.lineWidth(at: energy, resolution: EnergyWindow.usableResolution(cube.resolution))
        }
        func window(_ energy: Double, edge: Bool) -> PlayedWindow {
            let (start, end) =
                edge
                ? (energy, energy + max(20, 0.05 * energy))
                : (energy - lineWidth(energy), energy + lineWidth(energy))
            return PlayedWindow(start: start / perUnit, end: end / perUnit)
        }
        var found: [(window: PlayedWindow, spoken: String, energy: Double)] = []
        for peak in reading.peaks {
            guard let spoken = peak.spokenLine, let line = peak.line else { continue }
            let symbol = String(line.split(separator: " ").first ?? "")
            guard let element = Element.named(symbol) else { continue }
            let energy: Double? =
                cube.spectroscopy == .eels
                ? Edge.allCases.first { "\(symbol) \($0.rawValue)" == line }.flatMap { element.onset(of: $0) }
                : XRayLine.allCases.first { "\(symbol) \($0.rawValue)" == line }.flatMap { element.energy(of: $0) }
                    .map { $0 * 1000 }
            guard let energy, !found.contains(where: { $0.spoken == spoken }) else { continue }
            found.append((window(energy, edge: cube.spectroscopy == .eels), spoken, energy))
        }
        found.sort { $0.energy < $1.energy }
        self.init(
            windows: found.map { ($0.window, $0.spoken) },
            strongest: reading.elements.first.map { window($0.energy, edge: cube.spectroscopy == .eels) },
            summed: summed, reading: reading, axis: axis, spectroscopy: cube.spectroscopy)
    }

    /// The next window above (or below) the middle of `current`; nil where there is none.
    public func step(from current: PlayedWindow, up: Bool) -> PlayedWindow? {
        let middle = (current.start + current.end) / 2
        let tolerance = (current.end - current.start) * 1e-6
        let centres = windows.map { ($0.window, ($0.window.start + $0.window.end) / 2) }
        let chosen =
            up ? centres.first { $0.1 > middle + tolerance } : centres.last { $0.1 < middle - tolerance }
        return chosen.map { PlayedWindow(start: $0.0.start, end: $0.0.end, background: current.background) }
    }

    /// What the window holds, as the voice says it: the identified line or edge it takes in ("iron K alpha"); nil
    /// where it takes in none.
    public func feature(of window: PlayedWindow) -> String? {
        let named = windows.filter { $0.window.start < window.end && window.start < $0.window.end }
        guard !named.isEmpty else { return nil }
        // The line whose window it shares most of.
        return named.max { overlap($0.window, window) < overlap($1.window, window) }?.spoken
    }

    private func overlap(_ a: PlayedWindow, _ b: PlayedWindow) -> Double { min(a.end, b.end) - max(a.start, b.start) }

    /// Whether the window's counts in the summed spectrum stand significantly above the background (true where
    /// that cannot be told).
    public func holdsSignal(_ window: PlayedWindow) -> Bool {
        guard let axis, let channels = try? EnergyWindow(start: window.start, end: window.end).channels(on: axis) else {
            return true
        }
        let z = ElementMaps.significance(
            of: channels, summed: summed, reading: reading, axis: axis, spectroscopy: spectroscopy)
        return z.value.map { $0 >= SpectrumBackground.significance } ?? true
    }
}
