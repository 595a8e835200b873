import SonicCore
import SonicHDF5

/// Damage to the facts the HDF5 helper reports, as a hostile file would make it report them:
/// absurd, negative and mismatched sizes, other sample types, axes missing, added or not numbers,
/// datasets of another kind, repeated or gone, and JSON texts broken or holding odd values.
extension Mutator {
    /// Sizes at the edges of what the readers accept, past them, and past what any file holds.
    static let hostileSizes = [
        0, 1, 2, -1, 8192, 8193, 65534, 65535, 65536, 1 << 20, (1 << 20) + 1, 1 << 31, Int(Int32.max), Int.max, Int.min
    ]
    static let hostileNumbers: [Double] = [.nan, .infinity, -.infinity, 0, -1, 1, 1e308, -.leastNonzeroMagnitude, 0.5]
    static let veloxKinds = [
        "Image", "Spectrum", "EelsSpectrumImage", VeloxDataset.streamKind, "SpectrumImage", "Mystery"
    ]
    static let hostileTexts = ["", "<undefined>", "_None_", "[]", "x\u{0}y", "DataAxis", "UniformDataAxis", "EDS_TEM"]

    private mutating func size(near size: Int) -> Int {
        below(3) == 0 ? size &+ below(3) &- 1 : Self.hostileSizes[below(Self.hostileSizes.count)]
    }

    private mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    mutating func damage(_ survey: inout Survey) {
        switch below(9) {
        case 0:
            damageLayout(of: &survey)
        case 1 where !survey.hyperspy.isEmpty:
            damageAxes(of: &survey.hyperspy[below(survey.hyperspy.count)])
        case 2 where !survey.berkeley.isEmpty:
            damageAxes(of: &survey.berkeley[below(survey.berkeley.count)])
        case 3 where !survey.velox.isEmpty:
            let at = below(survey.velox.count)
            if below(2) == 0 {
                survey.velox[at].metadata = damaged(survey.velox[at].metadata)
            } else {
                survey.velox[at].settings = damaged(survey.velox[at].settings)
            }
        case 4 where !survey.velox.isEmpty:
            survey.velox[below(survey.velox.count)].kind = pick(Self.veloxKinds)
        case 5:
            // A dataset gone or repeated: another count of detectors, images or signals.
            let repeating = below(2) == 0
            switch below(3) {
            case 0 where !survey.velox.isEmpty: changeCount(of: &survey.velox, repeating: repeating)
            case 1 where !survey.berkeley.isEmpty: changeCount(of: &survey.berkeley, repeating: repeating)
            default: if !survey.hyperspy.isEmpty { changeCount(of: &survey.hyperspy, repeating: repeating) }
            }
        case 6:
            switch below(4) {
            case 0: survey.veloxVersion = damaged(survey.veloxVersion ?? #"{"format": "Velox"}"#)
            case 1: survey.hasBerkeleyVersion.toggle()
            case 2: survey.fileFormat = below(2) == 0 ? nil : "HyperSpy"
            default:
                if !survey.operations.isEmpty {
                    let at = below(survey.operations.count)
                    survey.operations[at] = damaged(survey.operations[at]) ?? ""
                }
            }
        case 7 where !survey.veloxRecords.isEmpty:
            let key = pick(survey.veloxRecords.keys.sorted())
            survey.veloxRecords[key] = damaged(survey.veloxRecords[key])
        default:
            if !survey.hyperspy.isEmpty {
                let at = below(survey.hyperspy.count)
                if below(2) == 0 {
                    survey.hyperspy[at].title = below(2) == 0 ? nil : pick(Self.hostileTexts)
                } else {
                    survey.hyperspy[at].signalType =
                        below(2) == 0 ? nil : pick(["EDS_TEM", "EELS", "CL", "", "Signal2D"])
                }
            }
        }
    }

    /// A JSON text damaged as a log line is: its syntax, or (half the time) only its values.
    private mutating func damaged(_ text: String?) -> String? {
        guard let text, below(8) > 0 else { return below(2) == 0 ? nil : pick(Self.hostileTexts) }
        return String(decoding: mutate(Array(text.utf8), text: true), as: UTF8.self)
    }

    private mutating func changeCount<T>(of items: inout [T], repeating: Bool) {
        let at = below(items.count)
        if repeating { items.insert(items[at], at: below(items.count + 1)) } else { items.remove(at: at) }
    }

    private mutating func damageLayout(of survey: inout Survey) {
        switch below(3) {
        case 0 where !survey.velox.isEmpty: damage(&survey.velox[below(survey.velox.count)].layout)
        case 1 where !survey.berkeley.isEmpty: damage(&survey.berkeley[below(survey.berkeley.count)].layout)
        default: if !survey.hyperspy.isEmpty { damage(&survey.hyperspy[below(survey.hyperspy.count)].layout) }
        }
    }

    private mutating func damage(_ layout: inout DatasetLayout) {
        switch below(8) {
        case 0, 1:
            if layout.dims.isEmpty {
                layout.dims = [size(near: 1)]
            } else {
                let at = below(layout.dims.count)
                layout.dims[at] = size(near: layout.dims[at])
            }
        case 2:
            layout.dims.insert(size(near: 1), at: below(layout.dims.count + 1))
        case 3:
            if layout.dims.isEmpty || below(4) == 0 {
                layout.dims = []
            } else {
                layout.dims.remove(at: below(layout.dims.count))
            }
        case 4:
            layout.sampleType = below(4) == 0 ? nil : pick(SampleType.allCases)
        case 5:
            // Chunks of any extent: they decide only how blocks are cut.
            layout.chunks = below(4) == 0 ? nil : layout.dims.map { size(near: max(1, $0 / (1 + below(8)))) }
        case 6:
            damageChunkTable(of: &layout)
        default:
            layout.unsupported = layout.unsupported == nil ? "complex data" : nil
        }
    }

    /// Chunks listed anywhere, of any size, filtered any way: the program reads them from the file
    /// itself, so each must be checked against the file and the chunk's extent first.
    private mutating func damageChunkTable(of layout: inout DatasetLayout) {
        let filterChoices = [[], [ChunkTable.deflate], [ChunkTable.shuffle, ChunkTable.deflate], [32000], [3]]
        guard var table = layout.chunkTable, !table.offsets.isEmpty, below(4) > 0 else {
            // A table for a dataset that has none: as many entries as its chunks, or a few.
            var count = 1
            for (extent, chunk) in zip(layout.dims, layout.chunks ?? []) where chunk > 0 {
                count = min(4096, count * max(1, (extent + chunk - 1) / chunk))
            }
            count = below(4) == 0 ? below(8) : count
            let fileSizes = [0, 1, 8, 512, 4096, 1 << 16, 1 << 20]
            layout.chunkTable = ChunkTable(
                filters: pick(filterChoices), littleEndian: below(2) == 0,
                offsets: (0..<count).map { _ in below(3) == 0 ? size(near: 0) : pick(fileSizes) },
                sizes: (0..<count).map { _ in below(3) == 0 ? size(near: 1) : pick(fileSizes) },
                skippedFilters: (0..<count).map { _ in below(8) == 0 ? 1 : 0 })
            return
        }
        let at = below(table.offsets.count)
        switch below(5) {
        case 0: table.offsets[at] = size(near: table.offsets[at])
        case 1: table.sizes[at] = size(near: table.sizes[at])
        case 2: table.filters = pick(filterChoices)
        case 3: table.skippedFilters[at] = below(2) == 0 ? 1 : Int.max
        default:
            table.offsets.remove(at: at)
            table.sizes.remove(at: at)
            table.skippedFilters.remove(at: at)
        }
        layout.chunkTable = table
    }

    /// HyperSpy's axes: sizes (half the time the data's too, so that they still match), scales and
    /// offsets not numbers, which axes navigate, their types and names, axes missing or added.
    private mutating func damageAxes(of experiment: inout HyperSpyExperiment) {
        guard !experiment.axes.isEmpty else {
            experiment.axes = experiment.layout.dims.map { _ in nil }
            return
        }
        let at = below(experiment.axes.count)
        guard var axis = experiment.axes[at] else {
            experiment.axes.remove(at: at)
            return
        }
        switch below(8) {
        case 0:
            axis.size = size(near: axis.size)
            if below(2) == 0, at < experiment.layout.dims.count { experiment.layout.dims[at] = axis.size }
        case 1: axis.scale = pick(Self.hostileNumbers)
        case 2: axis.offset = pick(Self.hostileNumbers)
        case 3: axis.navigate.toggle()
        case 4: axis.type = below(3) == 0 ? nil : pick(Self.hostileTexts)
        case 5: if below(2) == 0 { axis.name = pick(Self.hostileTexts) } else { axis.units = pick(Self.hostileTexts) }
        case 6:
            // An axis more, with a dimension for it or not.
            experiment.axes.insert(axis, at: below(experiment.axes.count + 1))
            if below(2) == 0 { experiment.layout.dims.insert(axis.size, at: below(experiment.layout.dims.count + 1)) }
            return
        default:
            experiment.axes[at] = nil
            return
        }
        experiment.axes[at] = axis
    }

    /// Berkeley's `dimN` axes: positions not numbers, axes missing, numbered from the other end.
    private mutating func damageAxes(of dataset: inout BerkeleyDataset) {
        switch below(4) {
        case 0: dataset.axesFromZero.toggle()
        case 1: dataset.name = pick(["data", "datacube", "realslice", ""])
        default:
            guard !dataset.axes.isEmpty else { return }
            let at = below(dataset.axes.count)
            guard var axis = dataset.axes[at] else {
                dataset.axes.remove(at: at)
                return
            }
            if below(2) == 0 { axis.first = pick(Self.hostileNumbers) } else { axis.step = pick(Self.hostileNumbers) }
            dataset.axes[at] = below(5) == 0 ? nil : axis
        }
    }
}
