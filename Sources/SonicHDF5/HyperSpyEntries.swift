import SonicCore

/// HyperSpy's own files (`.hspy`): each `/Experiments/<title>/data` with one `axis-i` group per
/// dimension (numpy's order, the last varying fastest), each saying its name, size, scale, offset,
/// units and whether it navigates. What the axes say makes the kind: two signal axes an image (or,
/// with one navigation axis, a stack); one signal axis a spectrum, a line scan or a spectrum image.
enum HyperSpyEntries {
    static func entries(_ survey: Survey, file: HDF5File) -> [ImageEntry] {
        survey.hyperspy.map { entry(for: $0, file: file) }
    }

    private static func entry(for experiment: HyperSpyExperiment, file: HDF5File)
        -> ImageEntry
    {
        let title = experiment.title ?? experiment.name
        let layout = experiment.layout
        let dims = layout.dims
        func skipped(_ reason: String) -> ImageEntry {
            ImageEntry(title: title, shape: dims.reversed(), sampleType: layout.sampleType, skipped: reason)
        }
        if let reason = layout.unsupported { return skipped(reason) }
        guard let sampleType = layout.sampleType else { return skipped("not numeric data") }
        if dims.contains(0) { return skipped("an empty dataset") }
        let axes = experiment.axes.compactMap { $0 }
        guard axes.count == experiment.axes.count, axes.map(\.size) == dims else {
            let said = experiment.axes.map { $0.map { String($0.size) } ?? "?" }.joined(separator: " × ")
            return skipped(
                "its axes (\(said.isEmpty ? "none" : said)) do not match its data (\(dims.map(String.init).joined(separator: " × ")))"
            )
        }
        if let odd = axes.first(where: { ($0.type ?? "UniformDataAxis") != "UniformDataAxis" }) {
            return skipped("its axis \(odd.name) is not of equal steps")
        }
        guard axes.allSatisfy({ $0.scale.isFinite && $0.offset.isFinite && $0.scale != 0 }) else {
            return skipped("an axis's scale or offset is not a number")
        }
        let navigation = dims.indices.filter { axes[$0].navigate }
        let signal = dims.indices.filter { !axes[$0].navigate }
        // numpy's order: of two axes, the later runs along x.
        func axis(_ dimension: Int, _ fallback: String) -> SignalAxis {
            let said = axes[dimension]
            return SignalAxis(
                name: cleaned(said.name).isEmpty ? fallback : cleaned(said.name), size: said.size, scale: said.scale,
                offset: said.offset, units: cleaned(said.units), navigation: said.navigate)
        }
        switch (signal.count, navigation.count) {
        case (2, 0), (2, 1):
            let (x, y) = (axis(signal[1], "x"), axis(signal[0], "y"))
            let calibration = Calibration(x: x.calibration, y: y.calibration)
            let frameAxis = navigation.first
            let maker = DatasetEntries(file: file)
            var made = maker.entries(
                title: title, layout: layout, path: experiment.path, shape: dims.reversed(), frameAxis: frameAxis,
                transposed: false, calibration: calibration)
            if let frameAxis, made.count == 1, let stack = made[0].stack {
                made[0] = ImageEntry(title: title, stack: stack, axes: [axis(frameAxis, "frame"), x, y])
            }
            return made[0]
        case (1, 0...2):
            let scan = navigation.reversed().enumerated().map { axis($0.element, $0.offset == 0 ? "x" : "y") }
            let spectral = axis(signal[0], "Energy")
            let source = HDF5Spectra(
                file: file, path: experiment.path, dims: dims, sampleType: sampleType,
                storage: layout.storage, chunks: layout.chunks, chunkTable: layout.chunkTable, x: navigation.last,
                y: navigation.count == 2 ? navigation[0] : nil,
                channel: signal[0])
            do throws(ImageFileError) {
                try ImageLimits.check(width: source.width, height: source.height, channels: source.channels)
            } catch {
                return skipped(error.message)
            }
            let cube = SpectrumCube(
                source: source, spectralAxis: spectral,
                spectroscopy: Spectroscopy(signal: experiment.signalType, units: spectral.units),
                resolution: experiment.energyResolution)
            return ImageEntry(title: title, spectra: cube, axes: scan + [spectral], sampleType: sampleType)
        default:
            return skipped(
                "a signal of \(navigation.count) navigation and \(signal.count) signal axes, "
                    + "neither an image, a stack nor spectra")
        }
    }

    /// HyperSpy writes an undefined name or unit as "<undefined>".
    private static func cleaned(_ text: String) -> String {
        text == "<undefined>" || text == "_None_" ? "" : text
    }
}
