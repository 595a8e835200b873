import SonicCore

/// Thermo Fisher Velox EMD: `/Data/<kind>/<id>/Data`, images stored as (rows, columns, frames),
/// each with JSON metadata beside it that gives the detector and the pixel size.
enum VeloxEntries {
    /// Velox's `/Version` record names the writer: Velox itself or its developers' kit.
    static func isVelox(version: String) -> Bool {
        guard let format = JSONValue.parse(version)?["format"]?.text else { return false }
        return format == "Velox" || format == "DevelopersKit"
    }

    static func entries(_ survey: Survey, maker: DatasetEntries) -> [ImageEntry] {
        let operations = survey.operations.compactMap(JSONValue.parse)
        return survey.velox.flatMap { dataset -> [ImageEntry] in
            let metadata = dataset.metadata.flatMap(JSONValue.parse)
            let title = detectorName(of: dataset, operations: operations, metadata: metadata) ?? dataset.kind
            let dims = dataset.layout.dims
            guard dataset.kind == "Image" else {
                let reason =
                    switch dataset.kind {
                    case "Spectrum": "a spectrum, not an image"
                    case "SpectrumStream": "a spectrum stream, not an image"
                    case "SpectrumImage", "EelsSpectrumImage": "a spectrum image, not an image"
                    default: "Velox \(dataset.kind) data, not an image"
                    }
                // Velox stores spectra as (channels, spectra): listed fastest axis first, single ones dropped.
                var unsupported = dataset.layout
                unsupported.unsupported = unsupported.unsupported ?? reason
                return maker.entries(
                    title: title, layout: unsupported, path: dataset.path, shape: dims.filter { $0 != 1 },
                    frameAxis: nil, transposed: false, calibration: .none)
            }
            let shape =
                switch dims.count {
                case 2: [dims[1], dims[0]]
                case 3: dims[2] == 1 ? [dims[1], dims[0]] : [dims[1], dims[0], dims[2]]
                default: Array(dims.reversed())
                }
            return maker.entries(
                title: title, layout: dataset.layout, path: dataset.path, shape: shape,
                frameAxis: dims.count == 3 ? 2 : nil, transposed: false,
                calibration: calibration(metadata))
        }
    }

    /// The name Velox shows: the camera or STEM detector of the operation that wrote the data,
    /// else the detector the metadata points to.
    static func detectorName(of dataset: VeloxDataset, operations: [JSONValue], metadata: JSONValue?) -> String? {
        for operation in operations where operation["dataPath"]?.text?.hasSuffix("/" + dataset.id) == true {
            if let name = operation["cameraName"]?.text ?? operation["detector"]?.text, !name.isEmpty { return name }
        }
        let result = metadata?["BinaryResult"]
        if let index = result?["DetectorIndex"]?.double, index.isFinite, abs(index) < 1e6,
            let name = metadata?["Detectors"]?["Detector-\(Int(index))"]?["DetectorName"]?.text, !name.isEmpty
        {
            return name
        }
        if let name = result?["Detector"]?.text, !name.isEmpty { return name }
        return nil
    }

    /// Pixel size and offset, both axes in the unit that suits the x pixel size (as Velox's own
    /// scale bar does): "m" becomes pm, nm, µm or mm; "1/m" becomes 1/nm.
    static func calibration(_ metadata: JSONValue?) -> Calibration {
        guard let result = metadata?["BinaryResult"], let size = result["PixelSize"] else { return .none }
        let unitX = result["PixelUnitX"]?.text ?? ""
        let x = axis(size["width"]?.double, result["Offset"]?["x"]?.double, unit: unitX, shownAs: nil)
        let y = axis(
            size["height"]?.double, result["Offset"]?["y"]?.double,
            unit: result["PixelUnitY"]?.text ?? unitX, shownAs: x?.unit)
        return Calibration(x: x, y: y)
    }

    /// Units Velox writes, as multiples of a metre (or of 1/metre, for reciprocal space).
    private static let lengths: [String: Double] = [
        "m": 1, "mm": 1e-3, "µm": 1e-6, "um": 1e-6, "nm": 1e-9, "Å": 1e-10, "pm": 1e-12
    ]
    private static let reciprocals: [String: Double] = ["1/m": 1, "1/nm": 1e9, "1/Å": 1e10, "1/pm": 1e12]
    /// The units sizes are shown in: each with its factor from metres, for sizes below `below` metres.
    private static let shownLengths: [(unit: String, perMetre: Double, below: Double)] =
        [("pm", 1e12, 1e-9), ("nm", 1e9, 1e-6), ("µm", 1e6, 1e-3), ("mm", 1e3, 1), ("m", 1, .infinity)]

    /// One axis, shown in `preferred` when its unit is a length, else in the unit that suits its size.
    private static func axis(_ size: Double?, _ offset: Double?, unit: String, shownAs preferred: String?)
        -> AxisCalibration?
    {
        guard let size, size.isFinite, size != 0 else { return nil }
        let shown: String, factor: Double
        if let toMetres = lengths[unit] {
            let choice =
                shownLengths.first { $0.unit == preferred }
                ?? shownLengths.first { abs(size * toMetres) < $0.below } ?? ("m", 1, .infinity)
            (shown, factor) = (choice.unit, toMetres * choice.perMetre)
        } else if let toPerMetre = reciprocals[unit] {
            (shown, factor) = ("1/nm", toPerMetre * 1e-9)
        } else {
            (shown, factor) = (unit, 1)
        }
        let scale = size * factor, start = (offset ?? 0) * factor
        guard scale.isFinite, start.isFinite, !(shown.isEmpty && scale == 1) else { return nil }
        return AxisCalibration(scale: scale, offset: start, unit: shown)
    }
}
