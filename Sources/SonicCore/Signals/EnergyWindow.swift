/// A window on a spectrum's axis: its bounds in the axis's units and, when it was chosen for an
/// element, what it holds.
public struct EnergyWindow: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// "Ti Kα", "O K"; nil for a window given by its bounds.
    public var feature: String?
    /// "titanium K alpha", "oxygen K edge".
    public var spokenFeature: String?

    public init(start: Double, end: Double, feature: String? = nil, spokenFeature: String? = nil) {
        self.start = start
        self.end = end
        self.feature = feature
        self.spokenFeature = spokenFeature
    }

    /// A window written "A:B" with an optional unit after it ("450:470eV", "4.4:4.6 keV"), in the
    /// units of `axis`; without a unit, in the axis's own. Nil when the text is not such a window.
    public init?(parsing text: String, on axis: SignalAxis) throws(ImageFileError) {
        var body = Substring(text.filter { !$0.isWhitespace })
        var unit: EnergyUnit?
        for candidate in [EnergyUnit.kiloelectronvolt, .electronvolt]
        where body.lowercased().hasSuffix(candidate.rawValue.lowercased()) {
            unit = candidate
            body = body.dropLast(candidate.rawValue.count)
            break
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Double(parts[0]), let end = Double(parts[1]), start.isFinite, end.isFinite
        else { return nil }
        let factor = try unit.map { (unit) throws(ImageFileError) in
            try Self.electronvolts(per: axis) / unit.electronvolts
        }
        self.init(start: start / (factor ?? 1), end: end / (factor ?? 1))
    }

    /// How many electronvolts one unit of the axis is; throws for an axis that is not an energy.
    static func electronvolts(per axis: SignalAxis) throws(ImageFileError) -> Double {
        guard let unit = EnergyUnit(axis.units) else {
            let units = axis.units.isEmpty ? "no units" : axis.units
            throw ImageFileError(
                "the spectra's axis is in \(units), not in electronvolts: give the window without a unit")
        }
        return unit.electronvolts
    }

    /// The window of the same width just below this one, where the background under a peak or an
    /// edge is measured.
    public var before: EnergyWindow { EnergyWindow(start: start - (end - start), end: start) }

    /// The channels the window takes on `axis`, as HyperSpy's `isig[start:end]` does.
    public func channels(on axis: SignalAxis) throws(ImageFileError) -> Range<Int> {
        try axis.channels(from: start, to: end)
    }

    /// The window for `element` on a spectrum of `spectroscopy`: its main X-ray line (EDS), from
    /// Kα, Lα and Mα the first that lies within the axis, one line width (FWHM, for a detector of
    /// `resolution` at Mn Kα, else the default) either side; or its
    /// main edge (EELS), from K, L2,3 and M4,5 the first within the axis, from its onset over
    /// 20 eV or 5 % of the onset, whichever is wider.
    public static func element(
        _ element: Element, on axis: SignalAxis, spectroscopy: Spectroscopy, resolution: Double? = nil
    ) throws(ImageFileError) -> EnergyWindow {
        let perUnit = try electronvolts(per: axis)
        let range = axis.range
        func inRange(_ window: EnergyWindow) -> Bool {
            range.contains(window.start) && range.contains(window.end)
        }
        switch spectroscopy {
        case .eels:
            for edge in Edge.allCases {
                guard let onset = element.onset(of: edge) else { continue }
                let width = max(20, 0.05 * onset)
                let window = EnergyWindow(
                    start: onset / perUnit, end: (onset + width) / perUnit,
                    feature: "\(element.symbol) \(edge.rawValue)", spokenFeature: "\(element.name) \(edge.spoken)")
                if inRange(window) { return window }
            }
            throw ImageFileError(
                "\(element.name) has no K, L2,3 or M4,5 edge between \(describe(range, axis)) in this spectrum")
        case .cathodoluminescence:
            throw ImageFileError("cathodoluminescence spectra have no element lines: give a window")
        case .eds, .unknown:
            for line in [XRayLine.kAlpha, .lAlpha, .mAlpha] {
                guard let energy = element.energy(of: line) else { continue }
                let halfWidth = lineWidth(at: energy * 1000, resolution: usableResolution(resolution))
                let window = EnergyWindow(
                    start: (energy * 1000 - halfWidth) / perUnit, end: (energy * 1000 + halfWidth) / perUnit,
                    feature: "\(element.symbol) \(line.rawValue)", spokenFeature: "\(element.name) \(line.spoken)")
                if inRange(window) { return window }
            }
            throw ImageFileError(
                "\(element.name) has no K alpha, L alpha or M alpha line between \(describe(range, axis)) in this spectrum"
            )
        }
    }

    /// A detector's resolution where its file gives none: 130 eV at Mn Kα, HyperSpy's default.
    public static let defaultResolution = 130.0

    /// `resolution` where it is a detector's (20 to 1000 eV), else the default.
    public static func usableResolution(_ resolution: Double?) -> Double {
        guard let resolution, resolution.isFinite, resolution >= 20, resolution <= 1000 else {
            return defaultResolution
        }
        return resolution
    }

    /// An X-ray line's width (FWHM) in eV at `energy` eV, for a detector whose width at Mn Kα (5898.7 eV) is
    /// `resolution` eV, as HyperSpy takes it (after Fiori and Newbury, the statistical spread of the charge a photon
    /// makes in silicon): FWHM(E)² = FWHM(Mn Kα)² + 2.5 (E − 5898.7 eV), in eV.
    public static func lineWidth(at energy: Double, resolution: Double = defaultResolution) -> Double {
        let manganese = 5898.7
        return max(2.5 * (energy - manganese) + resolution * resolution, 1).squareRoot()
    }

    private static func describe(_ range: ClosedRange<Double>, _ axis: SignalAxis) -> String {
        "\(SignalAxis.text(range.lowerBound)) and \(SignalAxis.text(range.upperBound)) \(axis.units)"
    }
}
