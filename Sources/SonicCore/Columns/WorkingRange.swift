/// The column search's thresholds, noise floor and fit tolerances are set for 8- and 16-bit counts.
/// Images of other types (32-bit integers, floats in any unit) are searched as if their range were
/// 0…65535: mapped linearly onto it, and each column's peak mapped back into the file's units.
struct WorkingRange: Sendable {
    /// File units per working unit.
    let scale: Double

    static func map(_ image: GrayImage) -> (GrayImage, WorkingRange) {
        guard image.sampleType.smallIntegerRange == nil else { return (image, WorkingRange(scale: 1)) }
        let lowest = Double(image.samples.min() ?? 0), highest = Double(image.samples.max() ?? 0)
        guard highest > lowest else { return (image, WorkingRange(scale: 1)) }
        let toWorking = 65535 / (highest - lowest)
        let samples = image.samples.map { Float((Double($0) - lowest) * toWorking) }
        let working = GrayImage(width: image.width, height: image.height, sampleType: .float32, samples: samples)
        return (working, WorkingRange(scale: 1 / toWorking))
    }

    func inFileUnits(_ column: AtomColumn) -> AtomColumn {
        var column = column
        column.peak *= scale
        return column
    }
}
