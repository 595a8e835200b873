/// One entry of the root's `ImageList`: a group with `Name`, `ImageData` (`Data`, `DataType`,
/// `Dimensions`, `Calibrations/Dimension`) and `ImageTags`, read as what it is.
///
/// `ImageTags/Meta Data/Format` says a dataset holds spectra ("Spectrum", "Spectrum image", as
/// Gatan's spectrometers write; Orsay's `ImageTags/spim` too); then its spectral axis is the one in
/// eV, keV or (for light) nm, or else, as RosettaSciIO takes it, a spectrum image's last dimension
/// and a line scan's first. Other 3-D datasets are stacks, frames along the last dimension.
///
/// A dataset whose data holds fewer values than its dimensions need is listed, unsupported, with
/// that reason: `inspect` shows it and nothing tries to read it.
struct DMImageEntry {
    let file: FileBytes
    let littleEndian: Bool

    private var bytes: UnsafeRawBufferPointer { file.buffer }

    func entry(for image: DMTagGroup) -> ImageEntry {
        let title = image["Name"]?.text(in: bytes, littleEndian: littleEndian) ?? ""
        guard let imageData = image["ImageData"]?.group, let data = imageData["Data"] else {
            return ImageEntry(title: title, shape: [], sampleType: nil, skipped: "no image data")
        }
        guard let shape = dimensions(imageData["Dimensions"]?.group) else {
            return ImageEntry(
                title: title, shape: [], sampleType: nil, skipped: "its dimensions are missing or invalid")
        }
        let pixelType = DMPixelType(code: imageData["DataType"]?.number.flatMap { Int(exactly: $0) })
        let calibrations = self.calibrations(imageData["Calibrations"]?.group?["Dimension"]?.group, count: shape.count)
        let meta = image["ImageTags"]?.group?["Meta Data"]?.group
        let format = meta?["Format"]?.text(in: bytes, littleEndian: littleEndian)
        let signal = meta?["Signal"]?.text(in: bytes, littleEndian: littleEndian)
        let tags = image["ImageTags"]?.group
        let holdsSpectra = format == "Spectrum" || format == "Spectrum image" || tags?["spim"] != nil
        let lightSpectra = signal == "CL" || tags?["Acquisition"]?.group?["Monarc Spectrometer"] != nil
        let spectroscopy = lightSpectra ? Spectroscopy.cathodoluminescence : Spectroscopy(signal: signal, units: "")
        func skipped(_ reason: String) -> ImageEntry {
            ImageEntry(title: title, shape: shape, sampleType: pixelType.sampleType, skipped: reason)
        }
        let spectral = spectralDimension(
            calibrations, holdsSpectra: holdsSpectra, light: spectroscopy == .cathodoluminescence)
        switch (shape.count, spectral) {
        case (2, nil):
            return picture(title: title, shape: shape, pixelType: pixelType, data: data, calibrations: calibrations)
        case (3, nil):
            return stack(title: title, shape: shape, pixelType: pixelType, data: data, calibrations: calibrations)
        case (1...3, let spectral?):
            let kind = Spectroscopy(signal: signal, units: calibrations[spectral].units)
            return spectra(
                title: title, shape: shape, spectralDimension: spectral, pixelType: pixelType, data: data,
                calibrations: calibrations, spectroscopy: lightSpectra ? .cathodoluminescence : kind)
        case (1, nil):
            return skipped("a 1-D signal, not an image")
        default:
            return skipped("a \(shape.count)-D signal")
        }
    }

    /// The dimension the spectra lie along, or nil when the dataset holds no spectra.
    private func spectralDimension(_ calibrations: [DMCalibration], holdsSpectra: Bool, light: Bool) -> Int? {
        let spectralUnits = calibrations.indices.filter { index in
            EnergyUnit(calibrations[index].units) != nil || (light && calibrations[index].units == "nm")
        }
        if calibrations.count == 1 { return holdsSpectra || spectralUnits == [0] ? 0 : nil }
        guard holdsSpectra, calibrations.count <= 3 else { return nil }
        if spectralUnits.count == 1 { return spectralUnits[0] }
        return calibrations.count == 2 ? 0 : calibrations.count - 1
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

    /// `Calibrations/Dimension`, one per dimension: point i at (i − Origin) × Scale Units. A
    /// dimension without a usable calibration is uncalibrated.
    private func calibrations(_ axes: DMTagGroup?, count: Int) -> [DMCalibration] {
        let groups = axes?.tags.compactMap(\.value.group) ?? []
        return (0..<count).map { index in
            guard index < groups.count else { return DMCalibration() }
            let axis = groups[index]
            let scale = axis["Scale"]?.number ?? 1
            let origin = axis["Origin"]?.number ?? 0
            let units = axis["Units"]?.text(in: bytes, littleEndian: littleEndian) ?? ""
            guard scale.isFinite, origin.isFinite, scale != 0 else { return DMCalibration() }
            return DMCalibration(scale: scale, offset: -origin * scale, units: units)
        }
    }

    /// Where the values of `frames` planes of `width` × `height` lie, or why they cannot be read.
    private func planes(pixelType: DMPixelType, data: DMTagValue, width: Int, height: Int, frames: Int)
        -> Result<(offset: Int, planeBytes: Int), ImageFileError>
    {
        if case .unsupported(let reason) = pixelType { return .failure(ImageFileError(reason)) }
        do throws(ImageFileError) {
            try ImageLimits.check(width: width, height: height)
        } catch {
            return .failure(error)
        }
        guard let planeBytes = pixelType.planeBytes(width: width, height: height) else {
            return .failure(ImageFileError("\(pixelType.storedAs ?? "packed") data of \(width) × \(height) pixels"))
        }
        guard let block = data.block else {
            return .failure(ImageFileError("the image data is not an array of numbers"))
        }
        let (needed, overflow) = planeBytes.multipliedReportingOverflow(by: frames)
        guard !overflow, block.byteCount >= needed else {
            let frameCount = frames > 1 ? " × \(frames) frames" : ""
            let available = block.byteCount / max(planeBytes / (width * height), 1)
            return .failure(
                ImageFileError(
                    "the data holds \(available) samples, fewer than its \(width) × \(height) pixels\(frameCount)"))
        }
        return .success((block.offset, planeBytes))
    }

    private func picture(
        title: String, shape: [Int], pixelType: DMPixelType, data: DMTagValue, calibrations: [DMCalibration]
    ) -> ImageEntry {
        let (width, height) = (shape[0], shape[1])
        let calibration = Calibration(x: calibrations[0].axis, y: calibrations[1].axis)
        switch planes(pixelType: pixelType, data: data, width: width, height: height, frames: 1) {
        case .failure(let problem):
            return ImageEntry(
                title: title, shape: shape, sampleType: pixelType.sampleType, unsupported: problem.message,
                calibration: calibration
            ) { throw problem }
        case .success(let (offset, _)):
            let (file, little) = (file, littleEndian)
            return ImageEntry(
                title: title, shape: shape, sampleType: pixelType.sampleType, calibration: calibration,
                storedAs: pixelType.storedAs
            ) {
                guard let base = file.buffer.baseAddress else { throw ImageFileError("the image data is missing") }
                let samples = pixelType.plane(at: base + offset, width: width, height: height, littleEndian: little)
                return GrayImage(width: width, height: height, sampleType: pixelType.sampleType!, samples: samples)
            }
        }
    }

    private func stack(
        title: String, shape: [Int], pixelType: DMPixelType, data: DMTagValue, calibrations: [DMCalibration]
    ) -> ImageEntry {
        let (width, height, frames) = (shape[0], shape[1], shape[2])
        guard frames <= ImageLimits.maxFrames else {
            return ImageEntry(
                title: title, shape: shape, sampleType: pixelType.sampleType,
                skipped: "a stack of \(frames) frames, more than \(ImageLimits.maxFrames)")
        }
        let located = planes(pixelType: pixelType, data: data, width: width, height: height, frames: frames)
        guard case .success(let (offset, planeBytes)) = located, let sampleType = pixelType.sampleType else {
            let reason = if case .failure(let problem) = located { problem.message } else { "no samples" }
            return ImageEntry(title: title, shape: shape, sampleType: pixelType.sampleType, skipped: reason)
        }
        let (file, little) = (file, littleEndian)
        let frameStack = FrameStack(count: frames, width: width, height: height, sampleType: sampleType) {
            (frame: Int) throws(ImageFileError) -> GrayImage in
            guard let base = file.buffer.baseAddress else { throw ImageFileError("the image data is missing") }
            let start = offset + frame * planeBytes
            let samples = pixelType.plane(at: base + start, width: width, height: height, littleEndian: little)
            file.doneReading(start..<(start + planeBytes))
            return GrayImage(width: width, height: height, sampleType: sampleType, samples: samples)
        }
        let axes = [
            calibrations[2].signalAxis(name: "z", size: frames, navigation: true),
            calibrations[0].signalAxis(name: "x", size: width, navigation: false),
            calibrations[1].signalAxis(name: "y", size: height, navigation: false)
        ]
        return ImageEntry(title: title, stack: frameStack, axes: axes, storedAs: pixelType.storedAs)
    }

    private func spectra(
        title: String, shape: [Int], spectralDimension: Int, pixelType: DMPixelType, data: DMTagValue,
        calibrations: [DMCalibration], spectroscopy: Spectroscopy
    ) -> ImageEntry {
        guard pixelType.isReal, let sampleType = pixelType.sampleType else {
            let reason: String =
                if case .unsupported(let why) = pixelType { why } else { "spectra of \(pixelType.storedAs ?? "") data" }
            return ImageEntry(title: title, shape: shape, sampleType: pixelType.sampleType, skipped: reason)
        }
        // Strides in elements of each dimension, the first varying fastest.
        var strides: [Int] = []
        var step = 1
        for size in shape {
            strides.append(step)
            step = step.multipliedReportingOverflow(by: size).partialValue
        }
        let scanDimensions = shape.indices.filter { $0 != spectralDimension }
        let (width, height) = (
            scanDimensions.first.map { shape[$0] } ?? 1, scanDimensions.count > 1 ? shape[scanDimensions[1]] : 1
        )
        let channels = shape[spectralDimension]
        let layout = SpectrumLayout(
            width: width, height: height, channels: channels,
            strides: (
                x: scanDimensions.first.map { strides[$0] } ?? 0,
                y: scanDimensions.count > 1 ? strides[scanDimensions[1]] : 0,
                channel: strides[spectralDimension]
            ))
        let source: any SpectrumSource
        do throws(ImageFileError) {
            try ImageLimits.check(width: width, height: height, channels: channels)
            guard let block = data.block else { throw ImageFileError("the data is not an array of numbers") }
            let elementBytes = pixelType == .bool ? 1 : sampleType.bits / 8
            guard block.byteCount / elementBytes >= width * height * channels else {
                throw ImageFileError(
                    "the data holds fewer values than \(width) × \(height) pixels × \(channels) channels")
            }
            source = try DenseSpectraMaker(
                file: file, offset: block.offset, layout: layout, littleEndian: littleEndian
            ).make(sampleType, bool: pixelType == .bool)
        } catch {
            return ImageEntry(title: title, shape: shape, sampleType: sampleType, skipped: error.message)
        }
        let axisName =
            switch spectroscopy {
            case .eels: "Energy loss"
            case .eds: "Energy"
            case .cathodoluminescence: calibrations[spectralDimension].units == "nm" ? "Wavelength" : "Energy"
            case .unknown: "Energy"
            }
        let spectralAxis = calibrations[spectralDimension].signalAxis(name: axisName, size: channels, navigation: false)
        let scanAxes = zip(scanDimensions, ["x", "y"]).map { dimension, name in
            calibrations[dimension].signalAxis(name: name, size: shape[dimension], navigation: true)
        }
        let cube = SpectrumCube(source: source, spectralAxis: spectralAxis, spectroscopy: spectroscopy)
        return ImageEntry(
            title: title, spectra: cube, axes: scanAxes + [spectralAxis], sampleType: sampleType,
            storedAs: pixelType.storedAs)
    }
}

/// One dimension's calibration as the file states it.
struct DMCalibration {
    var scale = 1.0
    var offset = 0.0
    var units = ""

    /// As an image's calibration: nil when uncalibrated.
    var axis: AxisCalibration? { signalAxis(name: "", size: 1, navigation: false).calibration }

    func signalAxis(name: String, size: Int, navigation: Bool) -> SignalAxis {
        SignalAxis(name: name, size: size, scale: scale, offset: offset, units: units, navigation: navigation)
    }
}
