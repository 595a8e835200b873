import SonicCore

/// The pixel size a TIFF page states: ImageJ's description when it has one, otherwise the
/// resolution tags.
enum TIFFCalibration {
    static let imageJPrefix = "ImageJ="

    static func of(
        description: String?, xResolution: Float?, yResolution: Float?,
        resolutionUnit: UInt16?
    ) -> Calibration {
        if let description, description.hasPrefix(imageJPrefix),
            let imageJ = imageJ(description: description, xResolution: xResolution, yResolution: yResolution)
        {
            return imageJ
        }
        // TIFF's default unit is the inch; 1 means "no absolute unit".
        let millimetresPerUnit: Double
        switch resolutionUnit ?? 2 {
        case 2: millimetresPerUnit = 25.4
        case 3: millimetresPerUnit = 10
        default: return .none
        }
        return Calibration(
            x: axis(pixelsPerUnit: xResolution, unitLength: millimetresPerUnit, unit: "mm"),
            y: axis(pixelsPerUnit: yResolution, unitLength: millimetresPerUnit, unit: "mm"))
    }

    /// ImageJ writes its unit in the description and the pixels per unit in X/YResolution (with
    /// ResolutionUnit "none"); nil when the description names no unit, so the tags decide.
    private static func imageJ(description: String, xResolution: Float?, yResolution: Float?) -> Calibration? {
        let fields = imageJFields(description)
        guard let xUnitName = fields["unit"] else { return nil }
        let xUnit = unit(imageJName: xUnitName)
        let yUnit = fields["yunit"].map(unit(imageJName:)) ?? xUnit
        // ImageJ's origin is where coordinate 0 lies, in pixels: pixel 0 is at -origin · pixel size.
        let xOrigin = fields["xorigin"].flatMap { Double($0) } ?? 0
        let yOrigin = fields["yorigin"].flatMap { Double($0) } ?? 0
        return Calibration(
            x: xUnit.flatMap { axis(pixelsPerUnit: xResolution, unitLength: 1, unit: $0, origin: xOrigin) },
            y: yUnit.flatMap { axis(pixelsPerUnit: yResolution, unitLength: 1, unit: $0, origin: yOrigin) })
    }

    /// ImageJ's description: one `key=value` a line.
    static func imageJFields(_ description: String) -> [Substring: Substring] {
        var fields: [Substring: Substring] = [:]
        for line in description.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        return fields
    }

    /// The unit as this program writes it; nil for ImageJ's "pixel", which means uncalibrated.
    static func unit(imageJName: Substring) -> String? {
        let name = imageJName.trimmingWhitespace
        switch name {
        case "", "pixel", "pixels": return nil
        case "micron", "microns", "um", "\\u00B5m", "\\u00b5m", "µm", "μm": return "µm"
        case "A", "\\u00C5", "\\u00c5", "Å": return "Å"
        default: return String(name)
        }
    }

    private static func axis(
        pixelsPerUnit: Float?, unitLength: Double, unit: String,
        origin: Double = 0
    ) -> AxisCalibration? {
        guard let pixelsPerUnit, pixelsPerUnit.isFinite, pixelsPerUnit > 0 else { return nil }
        let scale = unitLength / Double(pixelsPerUnit)
        guard scale.isFinite, origin.isFinite else { return nil }
        return AxisCalibration(scale: scale, offset: origin == 0 ? 0 : -origin * scale, unit: unit)
    }
}
