import SonicCore

/// What the helper process finds in an HDF5 file: the raw facts, which the reader then interprets.
struct Survey: Equatable {
    /// The JSON text of Velox's `/Version` dataset.
    var veloxVersion: String?
    /// Berkeley EMD's `version_major` attribute sits on the root or on a top-level group.
    var hasBerkeleyVersion = false
    var velox: [VeloxDataset] = []
    var berkeley: [BerkeleyDataset] = []
    /// Velox's camera and STEM input operations (JSON), which name the detector behind each image.
    var operations: [String] = []
}

/// A dataset's extent, HDF5's order (slowest axis first), and how its elements can be read.
struct DatasetLayout: Equatable {
    var dims: [Int]
    var sampleType: SampleType?
    /// Why the elements are not samples ("complex data", "not numeric data"), when they are not.
    var unsupported: String?
}

/// `/Data/<kind>/<id>/Data`, with the frame-0 metadata JSON beside it.
struct VeloxDataset: Equatable {
    var kind: String
    var id: String
    var layout: DatasetLayout
    var metadata: String?

    var path: [String] { ["Data", kind, id, "Data"] }
}

/// A dataset in a group marked `emd_group_type = 1`, with the `dimN` axes beside it.
struct BerkeleyDataset: Equatable {
    var group: [String]
    var name: String
    var layout: DatasetLayout
    /// Newer files number their axes from `dim0`, older ones from `dim1`.
    var axesFromZero: Bool
    /// One per axis of the data, in HDF5's order; nil where the file has no usable `dimN`.
    var axes: [BerkeleyAxis?]

    var path: [String] { group + [name] }
}

/// A `dimN` dataset: the positions of an axis's pixels and their units.
struct BerkeleyAxis: Equatable {
    var first: Double
    var step: Double
    var units: String
}

extension Survey {
    func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.optionalString(veloxVersion)
        out.bool(hasBerkeleyVersion)
        out.int(velox.count)
        for dataset in velox {
            out.string(dataset.kind)
            out.string(dataset.id)
            dataset.layout.encode(into: &out)
            out.optionalString(dataset.metadata)
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
        return out.bytes
    }

    init(decoding bytes: [UInt8]) throws(ImageFileError) {
        var input = ByteReader(bytes)
        veloxVersion = try input.optionalString()
        hasBerkeleyVersion = try input.bool()
        for _ in 0..<(try input.count(minimumBytes: 8)) {
            velox.append(
                VeloxDataset(
                    kind: try input.string(), id: try input.string(),
                    layout: try DatasetLayout(from: &input), metadata: try input.optionalString()))
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
        guard input.atEnd else { throw ImageFileError("a garbled message between the HDF5 reader and its helper") }
    }
}

extension DatasetLayout {
    func encode(into out: inout ByteWriter) {
        out.ints(dims)
        out.optionalString(sampleType?.rawValue)
        out.optionalString(unsupported)
    }

    init(from input: inout ByteReader) throws(ImageFileError) {
        dims = try input.ints()
        let typeName = try input.optionalString()
        sampleType = typeName.flatMap(SampleType.init(rawValue:))
        unsupported = try input.optionalString()
    }
}
