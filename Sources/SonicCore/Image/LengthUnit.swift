/// Units of length a file's calibration may use: spellings seen in microscope files (DigitalMicrograph,
/// Velox, ImageJ), each with its size in picometres and its spoken name.
enum LengthUnit {
    static let units: [String: (picometres: Double, name: String)] = [
        "pm": (1, "picometres"), "nm": (1e3, "nanometres"), "Å": (100, "ångströms"), "A": (100, "ångströms"),
        "Angstrom": (100, "ångströms"), "µm": (1e6, "micrometres"), "μm": (1e6, "micrometres"),
        "um": (1e6, "micrometres"), "micron": (1e6, "micrometres"), "mm": (1e9, "millimetres"), "m": (1e12, "metres")
    ]

    /// A length is spoken in the largest of these that keeps it at or above 1.
    static let spokenSteps = ["pm", "nm", "µm", "mm"]

    /// "17.8 picometres", "2.35 nanometres".
    static func speak(picometres value: Double) -> String {
        let unit = spokenSteps.compactMap { units[$0] }.last { value >= $0.picometres } ?? (1, "picometres")
        let number = threeDigits(value / unit.picometres)
        return "\(number) \(number == "1" ? String(unit.name.dropLast()) : unit.name)"
    }

    /// "17.99 pm", "158.7 nm": as `speak`, written short, to four significant digits.
    static func written(picometres value: Double) -> String {
        let unit = spokenSteps.last { value >= units[$0]!.picometres } ?? "pm"
        return "\(NumberText.readable(value / units[unit]!.picometres)) \(unit)"
    }

    /// Three significant digits, without trailing zeros: 17.8, 0.174, 1250.
    static func threeDigits(_ value: Double) -> String { NumberText.significant(value, digits: 3) }
}

extension PixelSize {
    /// "17.8 picometres", "2.35 nanometres".
    public var spoken: String { LengthUnit.speak(picometres: picometres) }
}

extension Calibration {
    /// The axis that sets the pixel size: x, or y where only y is calibrated.
    private var axis: AxisCalibration? { x ?? y }

    /// The pixel's size when the file calibrates it as a length (pm, nm, Å, µm …); nil for reciprocal
    /// units (a diffraction pattern's 1/nm), other units or none.
    public var pixelSize: PixelSize? {
        guard let axis, let unit = LengthUnit.units[axis.unit] else { return nil }
        return PixelSize(picometres: Swift.abs(axis.scale) * unit.picometres)
    }

    /// Reciprocal nanometres a pixel where the file calibrates it in reciprocal lengths (a diffraction pattern's
    /// 1/nm, 1/Å …); nil otherwise.
    public var reciprocalPerPixel: Double? {
        guard let axis, axis.unit.hasPrefix("1/"), let unit = LengthUnit.units[String(axis.unit.dropFirst(2))],
            axis.scale.isFinite, axis.scale != 0
        else { return nil }
        return Swift.abs(axis.scale) * 1000 / unit.picometres
    }

    /// Reciprocal lengths per pixel (a diffraction pattern's calibration), spoken: "0.174 reciprocal nanometres".
    var spokenReciprocal: String? {
        guard let axis, axis.unit.hasPrefix("1/"), let unit = LengthUnit.units[String(axis.unit.dropFirst(2))] else {
            return nil
        }
        return "\(LengthUnit.threeDigits(Swift.abs(axis.scale))) reciprocal \(unit.name)"
    }
}
