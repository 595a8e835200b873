import SonicCore

/// Berkeley EMD: groups marked `emd_group_type = 1`, each holding `data` and one `dimN` per axis.
///
/// Axes follow RosettaSciIO: the array is transposed (HyperSpy writes it so), which puts x on its
/// first axis and frames on its last, unless the file numbers its axes from `dim0` (py4DSTEM) or
/// the dataset is a `datacube`.
enum BerkeleyEntries {
    static func entries(_ survey: Survey, maker: DatasetEntries) -> [ImageEntry] {
        survey.berkeley.flatMap { dataset -> [ImageEntry] in
            let dims = dataset.layout.dims
            let transposed = dataset.name != "datacube" && !dataset.axesFromZero
            let frameAxis = dims.count == 3 ? (transposed ? 2 : 0) : nil
            let groupName = dataset.group.last ?? dataset.name
            let title = dataset.name == "data" || dataset.group.isEmpty ? groupName : "\(groupName) (\(dataset.name))"
            let planeAxes = dims.indices.filter { $0 != frameAxis }
            var calibration = Calibration.none
            if planeAxes.count == 2 {
                let (xAxis, yAxis) = transposed ? (planeAxes[0], planeAxes[1]) : (planeAxes[1], planeAxes[0])
                calibration = Calibration(
                    x: axisCalibration(dataset.axes, xAxis), y: axisCalibration(dataset.axes, yAxis))
            }
            return maker.entries(
                title: title, layout: dataset.layout, path: dataset.path,
                shape: transposed ? dims : dims.reversed(), frameAxis: frameAxis,
                transposed: transposed, calibration: calibration)
        }
    }

    private static func axisCalibration(_ axes: [BerkeleyAxis?], _ index: Int) -> AxisCalibration? {
        guard index < axes.count, let axis = axes[index], axis.step.isFinite, axis.first.isFinite, axis.step != 0 else {
            return nil
        }
        let unit = units(axis.units)
        guard !(unit.isEmpty && axis.step == 1) else { return nil }
        return AxisCalibration(scale: axis.step, offset: axis.first, unit: unit)
    }

    /// Units as HyperSpy and ncempy write them, "[n_m]" for nm and "[]" for none, in the spelling
    /// this program speaks.
    static func units(_ written: String) -> String {
        var unit = String(written.trimmingSpaces)
        let bracketed = unit.split(separator: "[", omittingEmptySubsequences: true).compactMap { part -> String? in
            guard let close = part.firstIndex(of: "]") else { return nil }
            return String(part[..<close]).replacing("_", with: "")
        }
        if unit.hasPrefix("[") && unit.hasSuffix("]") { unit = bracketed.joined(separator: " * ") }
        switch unit {
        case "A", "Å", "Angstrom": return "Å"
        case "A^-1", "1/A", "Å^-1", "1/Å": return "1/Å"
        case "um", "µm", "micron": return "µm"
        case "nm^-1", "1/nm", "1 / nm": return "1/nm"
        default: return unit
        }
    }
}
