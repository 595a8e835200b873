/// The physical size of one pixel, for speaking lattice parameters in picometres.
public struct PixelSize: Sendable, Equatable, CustomStringConvertible {
    public let picometres: Double

    public init?(picometres: Double) {
        guard picometres > 0, picometres.isFinite else { return nil }
        self.picometres = picometres
    }

    /// Reads "9.33pm", "0.933 nm", "0.0933Å" (or "A"): a positive number and a unit.
    public init?(_ text: String) {
        let trimmed = text.filter { $0 != " " }
        let units: [(String, Double)] = [("pm", 1), ("nm", 1000), ("Å", 100), ("A", 100)]
        guard let (suffix, factor) = units.first(where: { trimmed.hasSuffix($0.0) }),
            let value = Double(trimmed.dropLast(suffix.count))
        else { return nil }
        self.init(picometres: value * factor)
    }

    /// "17.8 pm", "158.7 nm": four significant digits in the largest unit that keeps it at or above 1.
    public var description: String { LengthUnit.written(picometres: picometres) }
}
