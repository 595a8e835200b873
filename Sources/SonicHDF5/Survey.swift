import SonicCore

/// What the helper process finds in an HDF5 file: the raw facts, which the reader then interprets.
/// Seen across the package, for the fuzz tool to damage them.
package struct Survey: Equatable {
    /// The JSON text of Velox's `/Version` dataset.
    package var veloxVersion: String?
    /// Berkeley EMD's `version_major` attribute sits on the root or on a top-level group.
    package var hasBerkeleyVersion = false
    package var velox: [VeloxDataset] = []
    package var berkeley: [BerkeleyDataset] = []
    /// Velox's camera and STEM input operations (JSON), which name the detector behind each image.
    package var operations: [String] = []
    /// Velox's records of spectrum imaging (`/Features/SIFeature/…`) and those they point to
    /// (`/SharedProperties/…`): JSON by path. They give an EDS scan's area and the image acquired
    /// with the spectra.
    package var veloxRecords: [String: String] = [:]
    /// The root's `file_format` attribute: "HyperSpy" in HyperSpy's files.
    package var fileFormat: String?
    package var hyperspy: [HyperSpyExperiment] = []
}

/// A dataset's extent, HDF5's order (slowest axis first), and how its elements can be read.
package struct DatasetLayout: Equatable {
    package var dims: [Int]
    package var sampleType: SampleType?
    /// Why the elements are not samples ("complex data", "not numeric data"), when they are not.
    package var unsupported: String?
    /// Where the elements lie in the file, when they lie there as they are.
    package var storage: DatasetStorage?
    /// The extent of each chunk, when the dataset is stored in chunks (HDF5's order): reading whole
    /// chunks decompresses each once.
    package var chunks: [Int]?
    /// Where each chunk lies in the file, when every one is stored there (and the survey's budget
    /// of chunks listed allowed it), so that the program can read them itself.
    package var chunkTable: ChunkTable?

    package init(
        dims: [Int], sampleType: SampleType? = nil, unsupported: String? = nil, storage: DatasetStorage? = nil,
        chunks: [Int]? = nil, chunkTable: ChunkTable? = nil
    ) {
        self.dims = dims
        self.sampleType = sampleType
        self.unsupported = unsupported
        self.storage = storage
        self.chunks = chunks
        self.chunkTable = chunkTable
    }

    /// The longest dimension the helper reports: longer ones it refuses as out of range.
    static let maxDimension = Int(Int32.max)
}

/// A dataset's elements stored whole, unfiltered and unconverted from `offset` bytes into the file.
package struct DatasetStorage: Equatable, Sendable {
    package var offset: Int
    package var littleEndian: Bool
}

/// A chunked dataset's chunks as they lie in the file: one entry per chunk, in the order of the grid
/// of chunks (HDF5's order, the last dimension fastest).
package struct ChunkTable: Equatable, Sendable {
    /// HDF5's numbers of the filters each chunk went through when written, in order.
    package var filters: [Int]
    package var littleEndian: Bool
    /// Where each chunk starts in the file, in bytes.
    package var offsets: [Int]
    /// How many bytes each chunk takes in the file (compressed, when it is).
    package var sizes: [Int]
    /// Each chunk's filter mask: bit i set when filter i was skipped for it.
    package var skippedFilters: [Int]

    package init(filters: [Int], littleEndian: Bool, offsets: [Int], sizes: [Int], skippedFilters: [Int]) {
        self.filters = filters
        self.littleEndian = littleEndian
        self.offsets = offsets
        self.sizes = sizes
        self.skippedFilters = skippedFilters
    }

    /// HDF5's numbers of the filters the program undoes itself.
    package static let deflate = 1, shuffle = 2

    /// At most this many chunks are listed in one survey, whatever the file holds (24 bytes each in
    /// the survey). Datasets past it are read by the helpers.
    package static let mostListed = 1 << 20
    /// At most this many chunks of a dataset whose index the program does not walk itself are listed:
    /// libhdf5 1.10 finds each chunk by going through the dataset's chunks from the first, so listing
    /// them costs time quadratic in their number (in HDF5 1.10's own indexes 4000 take 0.7 s, 8000 2.7 s).
    package static let mostLookedUp = 4096
}

/// `/Data/<kind>/<id>/Data`, with the frame-0 metadata JSON beside it.
package struct VeloxDataset: Equatable {
    /// The group an EDS detector's stream of counts is under: `/Data/SpectrumStream`.
    package static let streamKind = "SpectrumStream"
    /// Where Velox keeps how it shows each image, with the label it is shown under: from format version 11 on,
    /// and before it.
    package static let displayPaths = ["/Displays/ImageDisplay", "/Presentation/Displays/ImageDisplay"]

    package var kind: String
    package var id: String
    package var layout: DatasetLayout
    package var metadata: String?
    /// A spectrum stream's `AcquisitionSettings` (channels, scan size), an EELS spectrum image's
    /// `AcquisitionMetadata` (energy offset and dispersion): JSON.
    package var settings: String?

    var path: [String] { ["Data", kind, id, "Data"] }
}

/// A dataset in a group marked `emd_group_type = 1`, with the `dimN` axes beside it.
package struct BerkeleyDataset: Equatable {
    package var group: [String]
    package var name: String
    package var layout: DatasetLayout
    /// Newer files number their axes from `dim0`, older ones from `dim1`.
    package var axesFromZero: Bool
    /// One per axis of the data, in HDF5's order; nil where the file has no usable `dimN`.
    package var axes: [BerkeleyAxis?]

    var path: [String] { group + [name] }
}

/// One signal of a HyperSpy file: `/Experiments/<name>/data`, one `axis-i` group per dimension.
package struct HyperSpyExperiment: Equatable {
    package var name: String
    package var layout: DatasetLayout
    /// One per `axis-i` group found, i from 0; nil where a group is missing or unreadable.
    package var axes: [HyperSpyAxis?]
    package var title: String?
    package var signalType: String?
    /// `Acquisition_instrument.{TEM,SEM}.Detector.EDS.energy_resolution_MnKa`: the EDS detector's FWHM at Mn Kα, eV.
    package var energyResolution: Double?

    var path: [String] { ["Experiments", name, "data"] }
}

/// An `axis-i` group's attributes.
package struct HyperSpyAxis: Equatable {
    package var name: String
    package var size: Int
    package var scale: Double
    package var offset: Double
    package var units: String
    package var navigate: Bool
    /// HyperSpy's `_type`: "UniformDataAxis" (or none, in older files) for an axis of equal steps.
    package var type: String?
}

/// A `dimN` dataset: the positions of an axis's pixels and their units.
package struct BerkeleyAxis: Equatable {
    package var first: Double
    package var step: Double
    package var units: String
}

extension Survey {
    package func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.optionalString(veloxVersion)
        out.bool(hasBerkeleyVersion)
        out.int(velox.count)
        for dataset in velox {
            out.string(dataset.kind)
            out.string(dataset.id)
            dataset.layout.encode(into: &out)
            out.optionalString(dataset.metadata)
            out.optionalString(dataset.settings)
        }
        out.int(berkeley.count)
        for dataset in berkeley {
            out.strings(dataset.group)
            out.string(dataset.name)
            dataset.layout.encode(into: &out)
            out.bool(dataset.axesFromZero)
            out.int(dataset.axes.count)
            for axis in dataset.axes {
                out.bool(axis != nil)
                guard let axis else { continue }
                out.double(axis.first)
                out.double(axis.step)
                out.string(axis.units)
            }
        }
        out.strings(operations)
        let records = veloxRecords.sorted { $0.key < $1.key }
        out.strings(records.map(\.key))
        out.strings(records.map(\.value))
        out.optionalString(fileFormat)
        out.int(hyperspy.count)
        for experiment in hyperspy {
            out.string(experiment.name)
            experiment.layout.encode(into: &out)
            out.int(experiment.axes.count)
            for axis in experiment.axes {
                out.bool(axis != nil)
                guard let axis else { continue }
                out.string(axis.name)
                out.int(axis.size)
                out.double(axis.scale)
                out.double(axis.offset)
                out.string(axis.units)
                out.bool(axis.navigate)
                out.optionalString(axis.type)
            }
            out.optionalString(experiment.title)
            out.optionalString(experiment.signalType)
            out.bool(experiment.energyResolution != nil)
            out.double(experiment.energyResolution ?? 0)
        }
        return out.bytes
    }

    package init(decoding bytes: [UInt8]) throws(ImageFileError) {
        var input = ByteReader(bytes)
        veloxVersion = try input.optionalString()
        hasBerkeleyVersion = try input.bool()
        for _ in 0..<(try input.count(minimumBytes: 8)) {
            velox.append(
                VeloxDataset(
                    kind: try input.string(), id: try input.string(),
                    layout: try DatasetLayout(from: &input), metadata: try input.optionalString(),
                    settings: try input.optionalString()))
        }
        for _ in 0..<(try input.count(minimumBytes: 8)) {
            let group = try input.strings()
            let name = try input.string()
            let layout = try DatasetLayout(from: &input)
            let axesFromZero = try input.bool()
            var axes: [BerkeleyAxis?] = []
            for _ in 0..<(try input.count()) {
                axes.append(
                    try input.bool()
                        ? BerkeleyAxis(first: try input.double(), step: try input.double(), units: try input.string())
                        : nil)
            }
            berkeley.append(
                BerkeleyDataset(
                    group: group, name: name, layout: layout,
                    axesFromZero: axesFromZero, axes: axes))
        }
        operations = try input.strings()
        let paths = try input.strings(), texts = try input.strings()
        guard paths.count == texts.count else {
            throw ByteReader.garbled
        }
        veloxRecords = Dictionary(zip(paths, texts)) { first, _ in first }
        fileFormat = try input.optionalString()
        for _ in 0..<(try input.count(minimumBytes: 8)) {
            let name = try input.string()
            let layout = try DatasetLayout(from: &input)
            var axes: [HyperSpyAxis?] = []
            for _ in 0..<(try input.count()) {
                axes.append(
                    try input.bool()
                        ? HyperSpyAxis(
                            name: try input.string(), size: try input.int(), scale: try input.double(),
                            offset: try input.double(), units: try input.string(), navigate: try input.bool(),
                            type: try input.optionalString())
                        : nil)
            }
            let title = try input.optionalString(), signalType = try input.optionalString()
            let hasResolution = try input.bool(), resolution = try input.double()
            hyperspy.append(
                HyperSpyExperiment(
                    name: name, layout: layout, axes: axes, title: title, signalType: signalType,
                    energyResolution: hasResolution ? resolution : nil))
        }
        guard input.atEnd else { throw ByteReader.garbled }
    }

    /// How many chunks the survey lists.
    var chunksListed: Int {
        let layouts = velox.map(\.layout) + berkeley.map(\.layout) + hyperspy.map(\.layout)
        return layouts.reduce(0) { $0 + ($1.chunkTable?.offsets.count ?? 0) }
    }
}

extension DatasetLayout {
    func encode(into out: inout ByteWriter) {
        out.ints(dims)
        out.optionalString(sampleType?.rawValue)
        out.optionalString(unsupported)
        out.int(storage?.offset ?? -1)
        out.bool(storage?.littleEndian ?? true)
        out.ints(chunks ?? [])
        out.bool(chunkTable != nil)
        guard let chunkTable else { return }
        out.ints(chunkTable.filters)
        out.bool(chunkTable.littleEndian)
        out.ints(chunkTable.offsets)
        out.ints(chunkTable.sizes)
        out.ints(chunkTable.skippedFilters)
    }

    init(from input: inout ByteReader) throws(ImageFileError) {
        dims = try input.ints()
        guard dims.allSatisfy({ (0...Self.maxDimension).contains($0) }) else {
            throw ByteReader.garbled
        }
        let typeName = try input.optionalString()
        sampleType = typeName.flatMap(SampleType.init(rawValue:))
        unsupported = try input.optionalString()
        let offset = try input.int(), littleEndian = try input.bool()
        guard offset >= -1 else { throw ByteReader.garbled }
        storage = offset < 0 ? nil : DatasetStorage(offset: offset, littleEndian: littleEndian)
        // Chunks only guide how blocks are cut: extents that fit no dataset are let go of.
        let chunks = try input.ints()
        self.chunks =
            chunks.count == dims.count && !chunks.isEmpty && chunks.allSatisfy({ (1...Self.maxDimension).contains($0) })
            ? chunks : nil
        guard try input.bool() else { return }
        let filters = try input.ints(), chunksLittleEndian = try input.bool()
        let offsets = try input.ints(), sizes = try input.ints(), skipped = try input.ints()
        // Each entry is checked against the file and the chunk's extent where it is read.
        guard sizes.count == offsets.count, skipped.count == offsets.count else { throw ByteReader.garbled }
        chunkTable = ChunkTable(
            filters: filters, littleEndian: chunksLittleEndian, offsets: offsets, sizes: sizes,
            skippedFilters: skipped)
    }
}
