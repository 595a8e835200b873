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
        let records = VeloxRecords(survey.veloxRecords)
        let labels = displayLabels(survey.veloxRecords)
        var entries: [ImageEntry] = []
        var images: [String: Int] = [:]
        var spectrumImages: [Int] = []
        var streams: [VeloxDataset] = []
        var streamsAt: Int?
        for dataset in survey.velox {
            switch dataset.kind {
            case "Image":
                let metadata = dataset.metadata.flatMap(JSONValue.parse)
                let title =
                    labels[dataset.id] ?? detectorName(of: dataset, operations: operations, metadata: metadata)
                    ?? dataset.kind
                let dims = dataset.layout.dims
                let shape =
                    switch dims.count {
                    case 2: [dims[1], dims[0]]
                    case 3: dims[2] == 1 ? [dims[1], dims[0]] : [dims[1], dims[0], dims[2]]
                    default: Array(dims.reversed())
                    }
                images[dataset.id] = entries.count
                entries += maker.entries(
                    title: title, layout: dataset.layout, path: dataset.path, shape: shape,
                    frameAxis: dims.count == 3 ? 2 : nil, transposed: false,
                    calibration: calibration(metadata))
            case "Spectrum":
                entries.append(VeloxSpectra.spectrum(dataset, maker: maker))
            case "EelsSpectrumImage":
                spectrumImages.append(entries.count)
                entries.append(VeloxSpectra.eels(dataset, survey: survey, maker: maker))
            case VeloxDataset.streamKind:
                // Every detector's stream makes one spectrum image, listed where the first is.
                if streamsAt == nil {
                    streamsAt = entries.count
                    spectrumImages.append(entries.count)
                    entries.append(ImageEntry(title: "EDS", shape: [], sampleType: nil, skipped: ""))
                }
                streams.append(dataset)
            case "SpectrumImage":
                entries.append(
                    ImageEntry(
                        title: "EDS", shape: dataset.layout.dims.filter { $0 != 1 },
                        sampleType: dataset.layout.sampleType,
                        skipped: "Velox's compressed copy of the EDS spectrum image, whose streams are read instead"))
            default:
                let metadata = dataset.metadata.flatMap(JSONValue.parse)
                let title = detectorName(of: dataset, operations: operations, metadata: metadata) ?? dataset.kind
                entries.append(
                    ImageEntry(
                        title: title, shape: dataset.layout.dims.filter { $0 != 1 },
                        sampleType: dataset.layout.sampleType,
                        skipped: "Velox \(dataset.kind) data, not an image"))
            }
        }
        if let streamsAt { entries[streamsAt] = VeloxSpectra.eds(streams, records: records, maker: maker) }
        // The record names the survey of the whole raster; the same detector's image of the spectra's
        // scan area is what was acquired with them.
        if let reference = records.referenceImage.flatMap({ images[$0] }) {
            for index in spectrumImages where entries[index].kind == .spectrumImage {
                entries[index].acquiredImage = images.values.sorted().first { image in
                    entries[image].isImage && entries[image].title == entries[reference].title
                        && entries[image].width == entries[index].width
                        && entries[image].height == entries[index].height
                }
            }
        }
        return entries
    }

    /// The label each image is shown under, by its data set's id, as RosettaSciIO titles images: a display's `id`,
    /// for the data its `data` reference's `dataPath` ends in (format version 11 on); else a display's
    /// `display.label`, for the data its own `dataPath` ends in. The newer records come first.
    static func displayLabels(_ records: [String: String]) -> [String: String] {
        var labels: [String: String] = [:]
        for (path, text) in records.sorted(by: { $0.key < $1.key }) {
            guard let prefix = VeloxDataset.displayPaths.first(where: { path.hasPrefix($0 + "/") }),
                let record = JSONValue.parse(text)
            else { continue }
            let newer = prefix == VeloxDataset.displayPaths[0]
            let dataPath =
                newer
                ? record["data"]?.text.flatMap { records[$0] }.flatMap(JSONValue.parse)?["dataPath"]?.text
                : record["dataPath"]?.text
            let label = newer ? record["id"]?.text : record["display"]?["label"]?.text
            guard let id = dataPath?.split(separator: "/").last.map(String.init), let label, !label.isEmpty,
                newer || labels[id] == nil
            else { continue }
            labels[id] = label
        }
        return labels
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
