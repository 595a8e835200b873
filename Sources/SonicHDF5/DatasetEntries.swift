import SonicCore

/// Turns a dataset into entries: one per frame when it holds images, else one saying why not.
struct DatasetEntries {
    static let maxFrames = 65536

    var file: String
    var limits: ChildProcess.Limits

    /// - Parameters:
    ///   - shape: the dataset's size fastest axis first, for an entry that is not an image.
    ///   - frameAxis: the axis that counts frames, when the dataset has one.
    func entries(
        title: String, layout: DatasetLayout, path: [String], shape: [Int], frameAxis: Int?,
        transposed: Bool, calibration: Calibration
    ) -> [ImageEntry] {
        func notAnImage(_ reason: String) -> [ImageEntry] {
            [
                ImageEntry(title: title, shape: shape, sampleType: layout.sampleType, unsupported: reason) {
                    () throws -> GrayImage in
                    throw ImageFileError(reason)
                }
            ]
        }
        if layout.dims.contains(0) { return notAnImage("an empty dataset") }
        if let reason = layout.unsupported { return notAnImage(reason) }
        if layout.dims.isEmpty { return notAnImage("a single value, not an image") }
        guard let sampleType = layout.sampleType, layout.dims.count == (frameAxis == nil ? 2 : 3) else {
            return notAnImage("a \(layout.dims.count)-D signal, not an image")
        }
        let frames = frameAxis.map { layout.dims[$0] } ?? 1
        guard frames <= Self.maxFrames else {
            return notAnImage("a stack of \(frames) frames, more than \(Self.maxFrames)")
        }
        return (0..<frames).map { frame in
            let location = PlaneLocation(
                path: path, dims: layout.dims, sampleType: sampleType,
                frameAxis: frameAxis, frame: frame, transposed: transposed)
            let file = self.file, limits = self.limits
            return ImageEntry(
                title: frames > 1 ? "\(title), frame \(frame + 1) of \(frames)" : title,
                shape: [location.width, location.height], sampleType: sampleType,
                calibration: calibration
            ) { () throws -> GrayImage in
                try location.read(file: file, limits: limits)
            }
        }
    }
}
