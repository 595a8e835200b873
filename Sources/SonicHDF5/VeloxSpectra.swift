import SonicCore

/// Velox's spectra: single spectra (`/Data/Spectrum`, stored as channels × spectra), EELS spectrum
/// images (`/Data/EelsSpectrumImage`, stored as x × channels × y, as RosettaSciIO reads them) and
/// the EDS spectrum image its detectors' streams hold (`/Data/SpectrumStream`, one per detector,
/// summed).
enum VeloxSpectra {
    /// One `/Data/Spectrum` dataset: a spectrum, or a row of them.
    static func spectrum(_ dataset: VeloxDataset, maker: DatasetEntries) -> ImageEntry {
        let dims = dataset.layout.dims
        guard (1...2).contains(dims.count), !dims.contains(0), let sampleType = dataset.layout.sampleType else {
            return skipped(
                dataset, title: "EDS", reason: dataset.layout.unsupported ?? "a spectrum of \(dims.count) dimensions")
        }
        let metadata = dataset.metadata.flatMap(JSONValue.parse)
        let energy = energyAxis(metadata, name: "Energy", channels: dims[0])
        let source = HDF5Spectra(
            file: maker.file, path: dataset.path, dims: dims, sampleType: sampleType,
            storage: dataset.layout.storage, chunks: dataset.layout.chunks,
            chunkTable: dataset.layout.chunkTable, x: dims.count == 2 && dims[1] > 1 ? 1 : nil,
            y: nil, channel: 0)
        let scan = source.width > 1 ? [SignalAxis(name: "spectrum", size: source.width, navigation: true)] : []
        return entry(
            dataset, title: "EDS", source: source, axes: scan + [energy], spectroscopy: .eds, sampleType: sampleType)
    }

    /// One `/Data/EelsSpectrumImage` dataset, its scan calibrated as the file's `/Data/SpectrumImage` is.
    static func eels(_ dataset: VeloxDataset, survey: Survey, maker: DatasetEntries) -> ImageEntry {
        let dims = dataset.layout.dims
        guard (2...3).contains(dims.count), !dims.contains(0), let sampleType = dataset.layout.sampleType else {
            return skipped(
                dataset, title: "EELS", reason: dataset.layout.unsupported ?? "EELS data of \(dims.count) dimensions")
        }
        let settings = dataset.settings.flatMap(JSONValue.parse)?["Data"]
        guard let offset = settings?["offset"]?.double, let dispersion = settings?["dispersion"]?.double,
            offset.isFinite, dispersion.isFinite, dispersion != 0
        else { return skipped(dataset, title: "EELS", reason: "an EELS spectrum image without its energy calibration") }
        let energy = SignalAxis(
            name: "Energy-loss", size: dims[1], scale: dispersion, offset: offset, units: "eV", navigation: false)
        let scanMetadata = survey.velox.first { $0.kind == "SpectrumImage" }?.metadata.flatMap(JSONValue.parse)
        let calibration = VeloxEntries.calibration(scanMetadata)
        let source = HDF5Spectra(
            file: maker.file, path: dataset.path, dims: dims, sampleType: sampleType,
            storage: dataset.layout.storage, chunks: dataset.layout.chunks,
            chunkTable: dataset.layout.chunkTable, x: 0, y: dims.count == 3 ? 2 : nil,
            channel: 1)
        var scan = [SignalAxis(name: "x", size: dims[0], calibration: calibration.x, navigation: true)]
        if dims.count == 3 {
            scan.append(SignalAxis(name: "y", size: dims[2], calibration: calibration.y, navigation: true))
        }
        return entry(
            dataset, title: "EELS", source: source, axes: scan + [energy], spectroscopy: .eels, sampleType: sampleType)
    }

    /// The EDS spectrum image of every detector's stream, summed: the scan's size and the channels
    /// from the streams' `AcquisitionSettings`, the scan narrowed to the area Velox's spectrum-imaging
    /// record gives, the calibration from the first stream's metadata.
    static func eds(_ streams: [VeloxDataset], records: VeloxRecords, maker: DatasetEntries) -> ImageEntry {
        let first = streams[0]
        func skip(_ reason: String) -> ImageEntry { skipped(first, title: "EDS", reason: reason) }
        let settings = streams.map { $0.settings.flatMap(JSONValue.parse) }
        guard let channels = settings[0]?["bincount"]?.double, channels == channels.rounded(), channels >= 1,
            channels < 65535,
            let rasterWidth = settings[0]?["RasterScanDefinition"]?["Width"]?.double,
            let rasterHeight = settings[0]?["RasterScanDefinition"]?["Height"]?.double,
            rasterWidth == rasterWidth.rounded(), rasterHeight == rasterHeight.rounded(),
            rasterWidth >= 1, rasterHeight >= 1, rasterWidth <= 65536, rasterHeight <= 65536
        else { return skip("spectrum streams without their channels and scan size") }
        guard settings.allSatisfy({ $0?["bincount"]?.double == channels }) else {
            return skip("spectrum streams of different numbers of channels")
        }
        guard streams.allSatisfy({ $0.layout.sampleType == .uint16 && $0.layout.unsupported == nil }),
            streams.allSatisfy({ $0.layout.dims.count <= 2 && $0.layout.dims.dropFirst().allSatisfy { $0 == 1 } })
        else { return skip("spectrum streams that are not runs of 16-bit values") }
        let (width, height) = records.scanArea(width: Int(rasterWidth), height: Int(rasterHeight))
        let metadata = first.metadata.flatMap(JSONValue.parse)
        let calibration = VeloxEntries.calibration(metadata)
        let energy = energyAxis(metadata, name: "X-ray energy", channels: Int(channels))
        let file = maker.file
        let source = DeferredSpectra(width: width, height: height, channels: Int(channels)) {
            () throws(ImageFileError) -> any SpectrumSource in
            try VeloxStreamSpectra(
                pieces: try values(of: streams, file: file), width: width, height: height, channels: Int(channels))
        }
        let scan = [
            SignalAxis(name: "x", size: width, calibration: calibration.x, navigation: true),
            SignalAxis(name: "y", size: height, calibration: calibration.y, navigation: true)
        ]
        return entry(
            first, title: "EDS", source: source, axes: scan + [energy], spectroscopy: .eds, sampleType: .uint16)
    }

    /// Each stream's values where they lie in the mapped file — stored whole, or in chunks without a
    /// filter — or else read whole in a helper process.
    static func values(of streams: [VeloxDataset], file: HDF5File) throws(ImageFileError) -> [VeloxStreamValues] {
        guard let mapped = try? MappedFile.bytes(of: file.path) else {
            return try read(streams, file: file).map(VeloxStreamValues.init(whole:))
        }
        var values: [VeloxStreamValues] = []
        for stream in streams {
            if let inPlace = inPlace(stream.layout, in: mapped) {
                values.append(inPlace)
            } else {
                values += try read([stream], file: file).map(VeloxStreamValues.init(whole:))
            }
        }
        return values
    }

    /// A stream's values in the mapped file: little-endian, whole in one place or in chunks of every
    /// value's one column that no filter changed; nil otherwise.
    static func inPlace(_ layout: DatasetLayout, in file: FileBytes) -> VeloxStreamValues? {
        guard layout.sampleType == .uint16, let count = layout.dims.first, count > 0,
            layout.dims.dropFirst().allSatisfy({ $0 == 1 })
        else { return nil }
        if let storage = layout.storage {
            guard storage.littleEndian else { return nil }
            return try? VeloxStreamValues(file: file, starts: [storage.offset], pieceLength: count, count: count)
        }
        guard let table = layout.chunkTable, let chunks = layout.chunks, table.filters.isEmpty, table.littleEndian,
            let length = chunks.first, chunks.dropFirst().allSatisfy({ $0 == 1 }),
            table.sizes.allSatisfy({ $0 == 2 * length })
        else { return nil }
        return try? VeloxStreamValues(file: file, starts: table.offsets, pieceLength: length, count: count)
    }

    /// Each stream's values, read whole in a helper process.
    static func read(_ streams: [VeloxDataset], file: HDF5File) throws(ImageFileError) -> [FileBytes] {
        var bytes: [FileBytes] = []
        for stream in streams {
            let slab = Hyperslab(path: stream.path, dims: stream.layout.dims, sampleType: .uint16, element: .uint16)
            let shared = try file.read(slab)
            bytes.append(
                FileBytes(
                    buffer: UnsafeRawBufferPointer(shared.bytes),
                    release: { _ in withExtendedLifetime(shared) {} }, giveBack: { _ in }))
        }
        return bytes
    }

    /// The energy axis Velox's metadata gives an EDS detector: its `Dispersion` and `OffsetEnergy`
    /// in eV, shown in keV; uncalibrated without them.
    static func energyAxis(_ metadata: JSONValue?, name: String, channels: Int) -> SignalAxis {
        let detector = metadata?["BinaryResult"]?["Detector"]?.text ?? ""
        if !detector.isEmpty, case .object(let detectors)? = metadata?["Detectors"] {
            for key in detectors.keys.sorted() {
                let described = detectors[key]!
                guard described["DetectorName"]?.text?.contains(detector) == true,
                    let dispersion = described["Dispersion"]?.double, let offset = described["OffsetEnergy"]?.double,
                    dispersion.isFinite, offset.isFinite, dispersion != 0
                else { continue }
                return SignalAxis(
                    name: name, size: channels, scale: dispersion / 1000, offset: offset / 1000, units: "keV",
                    navigation: false)
            }
        }
        return SignalAxis(name: name, size: channels, navigation: false)
    }

    /// The entry of the spectra of `dataset`, or one saying why they are skipped: a scan or
    /// channels beyond what the program accepts.
    private static func entry(
        _ dataset: VeloxDataset, title: String, source: any SpectrumSource, axes: [SignalAxis],
        spectroscopy: Spectroscopy, sampleType: SampleType
    ) -> ImageEntry {
        do throws(ImageFileError) {
            try ImageLimits.check(width: source.width, height: source.height, channels: source.channels)
        } catch {
            return skipped(dataset, title: title, reason: error.message)
        }
        let cube = SpectrumCube(source: source, spectralAxis: axes.last!, spectroscopy: spectroscopy)
        return ImageEntry(title: title, spectra: cube, axes: axes, sampleType: sampleType)
    }

    private static func skipped(_ dataset: VeloxDataset, title: String, reason: String) -> ImageEntry {
        ImageEntry(
            title: title, shape: dataset.layout.dims.reversed().filter { $0 != 1 },
            sampleType: dataset.layout.sampleType,
            skipped: reason)
    }
}

/// What Velox's spectrum-imaging record (`/Features/SIFeature/…`) says: the part of the scan the
/// spectra cover, and the image acquired with them.
struct VeloxRecords {
    /// The scan area's width and height as fractions of the raster.
    let areaFraction: (width: Double, height: Double)?
    /// The `/Data/Image/<id>` of the STEM image acquired with the spectra.
    let referenceImage: String?

    init(_ records: [String: String]) {
        let feature = records.keys.sorted().filter { $0.hasPrefix("/Features/SIFeature/") }.first
            .flatMap { records[$0] }.flatMap(JSONValue.parse)
        let size = feature?["stem"]?["scanArea"]?["size"]
        if let width = size?["width"]?.double, let height = size?["height"]?.double, width > 0, width <= 1, height > 0,
            height <= 1
        {
            areaFraction = (width, height)
        } else {
            areaFraction = nil
        }
        let reference = feature?["stem"]?["stemDetectors"]?.items?.first?["referenceImage"]?.text
        let dataPath = reference.flatMap { records[$0] }.flatMap(JSONValue.parse)?["dataPath"]?.text
        referenceImage = dataPath.flatMap { $0.hasPrefix("/Data/Image/") ? String($0.dropFirst(12)) : nil }
    }

    /// The scan's size in pixels: the raster's, narrowed to the scan area when the record gives one.
    func scanArea(width: Int, height: Int) -> (Int, Int) {
        guard let areaFraction else { return (width, height) }
        return (
            max(1, Int((Double(width) * areaFraction.width).rounded())),
            max(1, Int((Double(height) * areaFraction.height).rounded()))
        )
    }
}
