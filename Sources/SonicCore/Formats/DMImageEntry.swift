/// How a DigitalMicrograph image stores its pixels, from its `ImageData/DataType` code (the codes
/// RosettaSciIO reads).
enum DMPixelType {
    case samples(SampleType)
    case unsupported(String)

    init(code: Int?) {
        switch code {
        case 1: self = .samples(.int16)
        case 2: self = .samples(.float32)
        case 6: self = .samples(.uint8)
        case 7: self = .samples(.int32)
        case 9: self = .samples(.int8)
        case 10: self = .samples(.uint16)
        case 11: self = .samples(.uint32)
        case 12: self = .samples(.float64)
        // Binary (mask) images: one byte per pixel, 0 or 1.
        case 14: self = .samples(.uint8)
        // 3 and 13: complex; 5, 27 and 28: complex packed as an FFT's half plane.
        case 3, 5, 13, 27, 28: self = .unsupported("complex data")
        case 8, 23: self = .unsupported(Self.rgbReason)
        case let code?: self = .unsupported("data of unknown type \(code)")
        case nil: self = .unsupported("data of no known type")
        }
    }

    var sampleType: SampleType? { if case .samples(let type) = self { type } else { nil } }

    static let rgbReason = "RGB data"
}

/// One entry of the root's `ImageList`: a group with `Name` and `ImageData` (`Data`, `DataType`,
/// `Dimensions`, `Calibrations/Dimension`).
///
/// A dataset whose data holds fewer samples than its dimensions need is listed, unsupported, with
/// that reason: `inspect` shows it and nothing tries to read it.
struct DMImageEntry {
    let bytes: [UInt8]
    let littleEndian: Bool

    func entry(for image: DMTagGroup) -> ImageEntry {
        let title = image["Name"]?.array.flatMap { DMValues.text(of: $0, in: bytes, littleEndian: littleEndian) } ?? ""
        guard let imageData = image["ImageData"]?.group, let data = imageData["Data"] else {
            return unreadable(title: title, shape: [], reason: "no image data")
        }
        guard let shape = dimensions(imageData["Dimensions"]?.group) else {
            return unreadable(title: title, shape: [], reason: "its dimensions are missing or invalid")
        }
        let pixelType = DMPixelType(code: imageData["DataType"]?.number.flatMap { Int(exactly: $0) })
        let calibration = self.calibration(imageData["Calibrations"]?.group?["Dimension"]?.group)
        let sampleType = pixelType.sampleType
        guard shape.count == 2 else {
            return ImageEntry(title: title, shape: shape, sampleType: sampleType, calibration: calibration) {
                throw ImageFileError("a \(shape.count)-D signal, not an image")
            }
        }
        let (array, type): (DMArray, SampleType)
        switch readable(shape: shape, pixelType: pixelType, data: data) {
        case .success(let readable): (array, type) = (readable.array, readable.type)
        case .failure(let problem):
            return ImageEntry(
                title: title, shape: shape, sampleType: sampleType, unsupported: problem.message,
                calibration: calibration
            ) { throw problem }
        }
        let (file, fileIsLittleEndian) = (bytes, littleEndian)
        return ImageEntry(title: title, shape: shape, sampleType: type, calibration: calibration) {
            let count = shape[0] * shape[1]
            let samples = DMValues.samples(
                in: file, at: array.offset, count: count, type: type,
                littleEndian: fileIsLittleEndian)
            guard samples.count == count else { throw ImageFileError("the image data is missing") }
            return GrayImage(width: shape[0], height: shape[1], sampleType: type, samples: samples)
        }
    }

    private func unreadable(title: String, shape: [Int], reason: String) -> ImageEntry {
        ImageEntry(title: title, shape: shape, sampleType: nil, unsupported: reason) { throw ImageFileError(reason) }
    }

    /// The sizes of `Dimensions`, fastest axis first; nil unless each is a whole number of at least 1.
    /// Trailing sizes of 1 are dropped: a one-frame stack is an image, an N × 1 spectrum is 1-D.
    private func dimensions(_ group: DMTagGroup?) -> [Int]? {
        guard let tags = group?.tags, !tags.isEmpty else { return nil }
        var shape: [Int] = []
        for tag in tags {
            guard let size = tag.value.number, size >= 1, size <= Double(Int32.max), size == size.rounded() else {
                return nil
            }
            shape.append(Int(size))
        }
        while shape.count > 1, shape.last == 1 { shape.removeLast() }
        return shape
    }

    /// The samples of a 2-D image, or why they cannot be read.
    private func readable(shape: [Int], pixelType: DMPixelType, data: DMTagValue)
        -> Result<(array: DMArray, type: SampleType), ImageFileError>
    {
        let type: SampleType
        switch pixelType {
        case .samples(let samples): type = samples
        case .unsupported(let reason): return .failure(ImageFileError(reason))
        }
        let (width, height) = (shape[0], shape[1])
        do throws(ImageFileError) {
            try ImageLimits.check(width: width, height: height)
        } catch {
            return .failure(error)
        }
        guard let array = data.array else {
            return .failure(ImageFileError("the image data is not an array of numbers"))
        }
        let available = array.byteCount / (type.bits / 8)
        guard available >= width * height else {
            return .failure(
                ImageFileError("the data holds \(available) samples, fewer than its \(width) × \(height) pixels"))
        }
        return .success((array, type))
    }

    /// The first two axes of `Calibrations/Dimension`: pixel i at (i − Origin) × Scale Units.
    private func calibration(_ axes: DMTagGroup?) -> Calibration {
        let groups = axes?.tags.compactMap(\.value.group) ?? []
        func axis(_ index: Int) -> AxisCalibration? {
            guard index < groups.count else { return nil }
            let axis = groups[index]
            let scale = axis["Scale"]?.number ?? 1
            let origin = axis["Origin"]?.number ?? 0
            let unit =
                axis["Units"]?.array.flatMap { DMValues.text(of: $0, in: bytes, littleEndian: littleEndian) } ?? ""
            guard scale.isFinite, origin.isFinite, scale != 0, scale != 1 || !unit.isEmpty else { return nil }
            return AxisCalibration(scale: scale, offset: -origin * scale, unit: unit)
        }
        return Calibration(x: axis(0), y: axis(1))
    }
}
