import SonicCore

/// Turns a dataset into an entry: an image, a stack of frames, or one saying why it is neither.
struct DatasetEntries {
    var file: HDF5File

    /// - Parameters:
    ///   - shape: the dataset's size fastest axis first, for an entry that is not an image.
    ///   - frameAxis: the axis that counts frames, when the dataset has one.
    func entries(
        title: String, layout: DatasetLayout, path: [String], shape: [Int], frameAxis: Int?,
        transposed: Bool, calibration: Calibration
    ) -> [ImageEntry] {
        func notAnImage(_ reason: String) -> [ImageEntry] {
            [ImageEntry(title: title, shape: shape, sampleType: layout.sampleType, skipped: reason)]
        }
        if layout.dims.contains(0) { return notAnImage("an empty dataset") }
        if let reason = layout.unsupported { return notAnImage(reason) }
        if layout.dims.isEmpty { return notAnImage("a single value, not an image") }
        guard let sampleType = layout.sampleType, layout.dims.count == (frameAxis == nil ? 2 : 3) else {
            return notAnImage("a \(layout.dims.count)-D signal, not an image")
        }
        let frames = frameAxis.map { layout.dims[$0] } ?? 1
        guard frames <= ImageLimits.maxFrames else {
            return notAnImage("a stack of \(frames) frames, more than \(ImageLimits.maxFrames)")
        }
        let location = PlaneLocation(
            path: path, dims: layout.dims, sampleType: sampleType, frameAxis: frameAxis, transposed: transposed)
        let file = self.file
        guard frames > 1 else {
            return [
                ImageEntry(
                    title: title, shape: [location.width, location.height], sampleType: sampleType,
                    calibration: calibration
                ) { () throws -> GrayImage in
                    try location.read(from: file)
                }
            ]
        }
        let stack = FrameStack(count: frames, width: location.width, height: location.height, sampleType: sampleType) {
            (frame: Int) throws(ImageFileError) -> GrayImage in
            var plane = location
            plane.frame = frame
            return try plane.read(from: file)
        }
        let axes = [
            SignalAxis(name: "frame", size: frames, navigation: true),
            SignalAxis(name: "x", size: location.width, calibration: calibration.x, navigation: false),
            SignalAxis(name: "y", size: location.height, calibration: calibration.y, navigation: false)
        ]
        return [ImageEntry(title: title, stack: stack, axes: axes)]
    }
}
