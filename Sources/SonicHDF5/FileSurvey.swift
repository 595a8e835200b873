import CHDF5
import SonicCore

/// Walks an HDF5 file for what Velox, Berkeley EMD and HyperSpy keep (runs in the helper process).
///
/// Everything is bounded, whatever the file claims: links per group, groups visited, depth, bytes
/// of text; the Berkeley walk remembers where it has been, so hard-link cycles end it.
enum FileSurvey {
    static let maxLinksPerGroup = 4096
    static let maxGroupsVisited = 4096
    static let maxDepth = 16
    static let maxDatasets = 1024
    static let maxTextBytes = 1 << 17
    static let maxAxisValues = 1 << 20
    /// RosettaSciIO reads these datasets of an EMD group (py4DSTEM and Prismatic write the others).
    static let berkeleyDatasetPrefixes = ["data", "counted_datacube", "datacube", "diffractionslice", "realslice"]

    static func survey(path: String) throws(ImageFileError) -> Survey {
        let file = try HDF5Object.openFile(path)
        var survey = Survey()
        survey.veloxVersion = try file.child("Version").flatMap {
            $0.isDataset ? $0.datasetText(maxBytes: maxTextBytes) : nil
        }
        survey.hasBerkeleyVersion = try hasBerkeleyVersion(file)
        if survey.veloxVersion != nil {
            try surveyVelox(file, into: &survey)
        }
        if survey.hasBerkeleyVersion {
            var walk = BerkeleyWalk()
            try walk.visit(file, path: [], depth: 0, into: &survey)
        }
        survey.fileFormat = file.attributeText("file_format", maxBytes: 256)
        if survey.fileFormat == "HyperSpy" {
            try surveyHyperSpy(file, into: &survey)
        }
        return survey
    }

    /// HyperSpy's signals: `/Experiments/<name>` groups, each with its `data`, `axis-i` groups and
    /// title and signal type in `metadata`.
    private static func surveyHyperSpy(_ file: HDF5Object, into survey: inout Survey) throws(ImageFileError) {
        guard let experiments = try file.child("Experiments"), experiments.isGroup else { return }
        for link in try experiments.hardLinks(limit: maxLinksPerGroup) {
            guard survey.hyperspy.count < maxDatasets, let group = try experiments.child(link.name), group.isGroup,
                let data = try group.child("data"), data.isDataset
            else { continue }
            let layout = try data.layout(chunksToList: ChunkTable.mostListed - survey.chunksListed)
            let names = Set(try group.hardLinks(limit: maxLinksPerGroup).map(\.name))
            // Every axis-i from 0 while there is one: a file may hold more or fewer than its data's dimensions.
            var axes: [HyperSpyAxis?] = []
            while axes.count < 64, names.contains("axis-\(axes.count)") {
                axes.append(hyperSpyAxis(try group.child("axis-\(axes.count)")))
            }
            let metadata = try? group.child("metadata")
            let general = (try? metadata?.child("General")) ?? nil
            let signal = (try? metadata?.child("Signal")) ?? nil
            let instrument = (try? metadata?.child("Acquisition_instrument")) ?? nil
            let resolution = ["TEM", "SEM"].lazy.compactMap { microscope -> Double? in
                let eds = try? instrument?.child(microscope)?.child("Detector")?.child("EDS")
                return eds?.attributeNumber("energy_resolution_MnKa")
            }.first
            survey.hyperspy.append(
                HyperSpyExperiment(
                    name: link.name, layout: layout, axes: axes,
                    title: general?.attributeText("title", maxBytes: maxTextBytes),
                    signalType: signal?.attributeText("signal_type", maxBytes: 256), energyResolution: resolution))
        }
    }

    private static func hyperSpyAxis(_ group: HDF5Object?) -> HyperSpyAxis? {
        guard let group, group.isGroup, let size = group.attributeNumber("size"), size.isFinite,
            size == size.rounded(), abs(size) <= Double(Int32.max)
        else { return nil }
        return HyperSpyAxis(
            name: group.attributeText("name", maxBytes: 4096) ?? "", size: Int(size),
            scale: group.attributeNumber("scale") ?? 1, offset: group.attributeNumber("offset") ?? 0,
            units: group.attributeText("units", maxBytes: 4096) ?? "",
            navigate: (group.attributeNumber("navigate") ?? 0) != 0,
            type: group.attributeText("_type", maxBytes: 256))
    }

    /// A top-level object that cannot be opened is no evidence either way; reading the data later says more.
    private static func hasBerkeleyVersion(_ file: HDF5Object) throws(ImageFileError) -> Bool {
        if file.hasAttribute("version_major") { return true }
        for link in try file.hardLinks(limit: maxLinksPerGroup) {
            if let group = try? file.child(link.name), group.isGroup, group.hasAttribute("version_major") {
                return true
            }
        }
        return false
    }

    private static func surveyVelox(_ file: HDF5Object, into survey: inout Survey) throws(ImageFileError) {
        if let data = try file.child("Data"), data.isGroup {
            for kind in try data.hardLinks(limit: maxLinksPerGroup) {
                guard let kindGroup = try data.child(kind.name), kindGroup.isGroup else { continue }
                for item in try kindGroup.hardLinks(limit: maxLinksPerGroup) {
                    guard survey.velox.count < maxDatasets,
                        let group = try kindGroup.child(item.name), group.isGroup,
                        let dataset = try group.child("Data"), dataset.isDataset
                    else { continue }
                    // Without readable metadata the image is still there, uncalibrated.
                    let metadata = (try? group.child("Metadata")).flatMap {
                        $0.isDataset ? $0.firstColumnText(maxBytes: maxTextBytes) : nil
                    }
                    let settings =
                        (try? group.child("AcquisitionSettings")).flatMap {
                            $0.isDataset ? $0.datasetText(maxBytes: maxTextBytes) : nil
                        }
                        ?? (try? group.child("AcquisitionMetadata")).flatMap {
                            $0.isDataset ? $0.firstColumnText(maxBytes: maxTextBytes) : nil
                        }
                    survey.velox.append(
                        VeloxDataset(
                            kind: kind.name, id: item.name,
                            layout: try dataset.layout(chunksToList: ChunkTable.mostListed - survey.chunksListed),
                            metadata: metadata,
                            settings: settings))
                }
            }
        }
        surveyVeloxRecords(file, into: &survey)
        surveyVeloxDisplays(file, into: &survey)
        // Optional: names of the detectors behind images. A damaged record leaves the name to the metadata.
        guard let operations = try? file.child("Operations"), operations.isGroup else { return }
        for kind in ["CameraInputOperation", "StemInputOperation"] {
            guard let group = try? operations.child(kind), group.isGroup,
                let links = try? group.hardLinks(limit: maxLinksPerGroup)
            else { continue }
            for link in links {
                if let record = try? group.child(link.name), record.isDataset,
                    let text = record.datasetText(maxBytes: maxTextBytes)
                {
                    survey.operations.append(text)
                }
            }
        }
    }

    /// Velox's spectrum-imaging records and the `/SharedProperties` records they name. Optional:
    /// without them an EDS scan is the stream's whole raster and no image plays for the spectra.
    private static func surveyVeloxRecords(_ file: HDF5Object, into survey: inout Survey) {
        guard let features = try? file.child("Features"), features.isGroup,
            let group = try? features.child("SIFeature"), group.isGroup,
            let links = try? group.hardLinks(limit: maxLinksPerGroup)
        else { return }
        var named: [String] = []
        for link in links.prefix(maxRecords) {
            guard let record = try? group.child(link.name), record.isDataset,
                let text = record.datasetText(maxBytes: maxTextBytes)
            else { continue }
            survey.veloxRecords["/Features/SIFeature/\(link.name)"] = text
            named += JSONValue.parse(text)?.strings.filter { $0.hasPrefix("/SharedProperties/") } ?? []
        }
        for path in Set(named).sorted().prefix(maxRecords) {
            var object: HDF5Object? = file
            for name in path.split(separator: "/") { object = (try? object?.child(String(name))) ?? nil }
            if let object, object.isDataset, let text = object.datasetText(maxBytes: maxTextBytes) {
                survey.veloxRecords[path] = text
            }
        }
    }

    /// Velox's image displays, whose labels name the images as Velox shows them ("Fe", "HAADF") and RosettaSciIO
    /// titles them: `/Displays/ImageDisplay` (format version 11 on), each with the data reference it names, else
    /// `/Presentation/Displays/ImageDisplay`. Optional: without them an image is named by its detector.
    private static func surveyVeloxDisplays(_ file: HDF5Object, into survey: inout Survey) {
        for path in VeloxDataset.displayPaths {
            var object: HDF5Object? = file
            for name in path.split(separator: "/") {
                object = (try? object?.child(String(name))) ?? nil
                if object?.isGroup != true { break }
            }
            guard let group = object, group.isGroup, let links = try? group.hardLinks(limit: maxLinksPerGroup)
            else { continue }
            var references: [String] = []
            for link in links.prefix(maxRecords) {
                guard let record = try? group.child(link.name), record.isDataset,
                    let text = record.datasetText(maxBytes: maxTextBytes)
                else { continue }
                survey.veloxRecords["\(path)/\(link.name)"] = text
                if let data = JSONValue.parse(text)?["data"]?.text, data.hasPrefix("/SharedProperties/") {
                    references.append(data)
                }
            }
            for reference in Set(references).sorted().prefix(maxRecords) {
                var target: HDF5Object? = file
                for name in reference.split(separator: "/") { target = (try? target?.child(String(name))) ?? nil }
                if let target, target.isDataset, let text = target.datasetText(maxBytes: maxTextBytes) {
                    survey.veloxRecords[reference] = text
                }
            }
        }
    }

    static let maxRecords = 256

    private struct BerkeleyWalk {
        var visited: Set<haddr_t> = []

        mutating func visit(_ group: HDF5Object, path: [String], depth: Int, into survey: inout Survey)
            throws(ImageFileError)
        {
            let links = try group.hardLinks(limit: maxLinksPerGroup)
            if group.attributeInteger("emd_group_type") == 1 {
                let names = Set(links.map(\.name))
                for link in links where berkeleyDatasetPrefixes.contains(where: link.name.hasPrefix) {
                    guard survey.berkeley.count < maxDatasets, let dataset = try group.child(link.name),
                        dataset.isDataset
                    else { continue }
                    let layout = try dataset.layout(chunksToList: ChunkTable.mostListed - survey.chunksListed)
                    let axesFromZero = names.contains("dim0")
                    let axes = (0..<layout.dims.count).map { index in
                        axis(group, named: "dim\(axesFromZero ? index : index + 1)")
                    }
                    survey.berkeley.append(
                        BerkeleyDataset(
                            group: path, name: link.name, layout: layout,
                            axesFromZero: axesFromZero, axes: axes))
                }
            }
            guard depth < maxDepth else { return }
            for link in links where !visited.contains(link.address) {
                guard visited.count < maxGroupsVisited else { return }
                visited.insert(link.address)
                guard let child = try group.child(link.name), child.isGroup else { continue }
                try visit(child, path: path + [link.name], depth: depth + 1, into: &survey)
            }
        }

        /// A `dimN` dataset's first position and mean step, as RosettaSciIO takes them.
        private func axis(_ group: HDF5Object, named name: String) -> BerkeleyAxis? {
            guard let dataset = try? group.child(name), dataset.isDataset,
                let values = dataset.doubles(maxCount: maxAxisValues), values.count >= 2,
                let first = values.first, let last = values.last
            else { return nil }
            return BerkeleyAxis(
                first: first, step: (last - first) / Double(values.count - 1),
                units: dataset.attributeText("units", maxBytes: 4096) ?? "")
        }
    }
}
