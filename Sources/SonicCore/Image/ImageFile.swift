/// How a file stores each sample. Every reader hands samples over as 32-bit floats holding the
/// file's own values: exact for every 8- and 16-bit type, for float32 and for 32-bit integers up to
/// 2^24; float64 data keeps float32's seven significant digits.
public enum SampleType: String, Sendable, CaseIterable, Equatable {
    case uint8, int8, uint16, int16, uint32, int32, float32, float64

    public var bits: Int {
        switch self {
        case .uint8, .int8: 8
        case .uint16, .int16: 16
        case .uint32, .int32, .float32: 32
        case .float64: 64
        }
    }

    public var isFloat: Bool { self == .float32 || self == .float64 }

    /// Every value of the type, when it has few enough to count one by one (8- and 16-bit integers).
    public var smallIntegerRange: ClosedRange<Int>? {
        switch self {
        case .uint8: 0...255
        case .int8: -128...127
        case .uint16: 0...65535
        case .int16: -32768...32767
        default: nil
        }
    }

    /// As spoken: "16 bit", "32 bit float".
    public var spoken: String { isFloat ? "\(bits) bit float" : "\(bits) bit" }
}

/// The formats a file is recognised as, by its first bytes.
public enum ImageFileFormat: String, Sendable, CaseIterable, Equatable {
    /// HDF5 files are recognised as `emd`, and become `hspy` when they are HyperSpy's; `bcf` is
    /// Bruker Esprit's.
    case png, dm3, dm4, tiff, emd, hspy, bcf

    /// The format the file's first bytes announce (16 are enough), or nil.
    public static func recognise(_ head: some Collection<UInt8>) -> ImageFileFormat? {
        let b = Array(head.prefix(16))
        func starts(_ magic: [UInt8]) -> Bool { b.count >= magic.count && Array(b[0..<magic.count]) == magic }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]) { return .emd }
        // Classic TIFF (42) and BigTIFF (43), either byte order.
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        // DigitalMicrograph: a big-endian version number, 3 or 4.
        if starts([0, 0, 0, 3]) { return .dm3 }
        if starts([0, 0, 0, 4]) { return .dm4 }
        // Bruker: the AidAim SFS container.
        if starts(Array("AAMVHFSS".utf8)) { return .bcf }
        return nil
    }
}

/// One axis of a file's calibration: pixel i sits at `offset + i · scale` `unit`s.
public struct AxisCalibration: Sendable, Equatable {
    public var scale: Double
    public var offset: Double
    /// As the file writes it: "nm", "pm", "µm", "Å", "1/nm", "" …
    public var unit: String

    public init(scale: Double, offset: Double = 0, unit: String) {
        self.scale = scale
        self.offset = offset
        self.unit = unit
    }
}

/// The physical size of an image's pixels, as its file states it.
public struct Calibration: Sendable, Equatable {
    public var x: AxisCalibration?
    public var y: AxisCalibration?

    public init(x: AxisCalibration? = nil, y: AxisCalibration? = nil) {
        self.x = x
        self.y = y
    }

    public static let none = Calibration()
}

/// One dataset in a file, described before its samples are read: a signal the program reads — an
/// image, a stack, a spectrum image, a line scan or a spectrum — or one it lists and skips, saying why.
public struct ImageEntry: Sendable {
    /// The dataset's name in the file ("HAADF", "EELS"); may be empty.
    public var title: String
    /// The dataset's size, fastest-varying axis first: [width, height] for an image, [length] for a
    /// spectrum or a plot.
    public var shape: [Int]
    /// The type of the samples played: the file's own, or for the values below, what they play as.
    public var sampleType: SampleType?
    /// How the file stores each value when the sample type does not say it: "complex64" (played as
    /// its modulus), "RGB" (as its luminance), "bool" (as 0 and 1).
    public var storedAs: String?
    /// Why the samples cannot be played ("complex data", "a 4-D signal"); nil if they can.
    public var unsupported: String?
    /// Every axis with its calibration, in HyperSpy's order: navigation axes (a scan's x and y, a
    /// stack's frames), then signal axes (an image's x and y, a spectrum's channels).
    public var axes: [SignalAxis]
    /// For a spectrum image, the file's image acquired with its spectra (its index among the
    /// file's entries), which plays in its place.
    public var acquiredImage: Int?
    public let content: Content

    /// How the entry's values are read.
    public enum Content: Sendable {
        case image(@Sendable () throws -> GrayImage)
        case stack(FrameStack)
        case spectra(SpectrumCube)
        case skipped
    }

    /// An image (or, with `unsupported` or a shape not 2-D, a dataset listed and skipped).
    public init(
        title: String, shape: [Int], sampleType: SampleType?, unsupported: String? = nil,
        calibration: Calibration = .none, storedAs: String? = nil, read: @escaping @Sendable () throws -> GrayImage
    ) {
        self.title = title
        self.shape = shape
        self.sampleType = sampleType
        self.storedAs = storedAs
        self.unsupported = unsupported ?? (shape.count == 2 ? nil : "a \(shape.count)-D signal, not an image")
        axes =
            shape.count == 2
            ? [
                SignalAxis(name: "x", size: shape[0], calibration: calibration.x, navigation: false),
                SignalAxis(name: "y", size: shape[1], calibration: calibration.y, navigation: false)
            ] : []
        content = .image(read)
    }

    /// A stack: `axes` are its frames' axis, then the frames' x and y.
    public init(title: String, stack: FrameStack, axes: [SignalAxis], storedAs: String? = nil) {
        self.title = title
        shape = axes.count == 3 ? [axes[1].size, axes[2].size, axes[0].size] : []
        sampleType = stack.sampleType
        self.storedAs = storedAs
        self.axes = axes
        unsupported = nil
        content = .stack(stack)
    }

    /// A spectrum image, a line scan or a spectrum: `axes` are its navigation axes (x, then y), then
    /// its channels' axis.
    public init(
        title: String, spectra: SpectrumCube, axes: [SignalAxis], sampleType: SampleType, storedAs: String? = nil,
        acquiredImage: Int? = nil
    ) {
        self.title = title
        shape = axes.last.map { [$0.size] + axes.dropLast().map(\.size) } ?? []
        self.sampleType = sampleType
        self.storedAs = storedAs
        self.axes = axes
        self.acquiredImage = acquiredImage
        unsupported = nil
        content = .spectra(spectra)
    }

    /// A dataset listed and skipped, with the reason.
    public init(title: String, shape: [Int], sampleType: SampleType?, skipped reason: String) {
        self.title = title
        self.shape = shape
        self.sampleType = sampleType
        unsupported = reason
        axes = []
        content = .skipped
    }

    /// What the entry is, or nil when it is skipped.
    public var kind: SignalKind? {
        guard unsupported == nil, sampleType != nil else { return nil }
        switch content {
        case .image: return shape.count == 2 ? .image : nil
        case .stack: return .stack
        case .spectra:
            switch axes.filter(\.navigation).count {
            case 0: return .spectrum
            case 1: return .lineScan
            default: return .spectrumImage
            }
        case .skipped: return nil
        }
    }

    /// A 2-D image of a type this program plays.
    public var isImage: Bool { kind == .image }
    /// Anything the program reads: an image, a stack, or spectra.
    public var isSignal: Bool { kind != nil }

    /// The axes of what the entry plays as: an image's or a stack's frames' x and y, a spectrum
    /// image's or line scan's scan axes; none for a single spectrum.
    public var pictureAxes: [SignalAxis] {
        switch content {
        case .image, .stack: axes.filter { !$0.navigation }
        case .spectra: axes.filter(\.navigation)
        case .skipped: []
        }
    }

    /// The size of what the entry plays as (a line scan is one row, a spectrum one pixel).
    public var width: Int {
        switch content {
        case .image, .skipped: shape.first ?? 0
        case .stack(let stack): stack.width
        case .spectra(let cube): cube.width
        }
    }

    public var height: Int {
        switch content {
        case .image, .skipped: shape.count > 1 ? shape[1] : 1
        case .stack(let stack): stack.height
        case .spectra(let cube): cube.height
        }
    }

    /// The calibration of what the entry plays as: its x and y axes.
    public var calibration: Calibration {
        let picture = pictureAxes
        return Calibration(
            x: picture.first?.calibration, y: picture.count > 1 ? picture[1].calibration : nil)
    }

    public var stack: FrameStack? { if case .stack(let stack) = content { stack } else { nil } }
    public var spectra: SpectrumCube? { if case .spectra(let cube) = content { cube } else { nil } }

    /// Reads what the entry plays as: the image, a stack's first frame, a spectrum image's total
    /// counts. A single spectrum and a skipped dataset have none.
    public func read() throws -> GrayImage {
        if let unsupported { throw ImageFileError(unsupported) }
        switch content {
        case .image(let reader): return try reader()
        case .stack(let stack): return try stack.frame(0)
        case .spectra(let cube):
            guard kind != .spectrum else {
                throw ImageFileError("a single spectrum, not an image: inspect and map read it")
            }
            return try cube.totalCounts().image
        case .skipped: throw ImageFileError("not an image")
        }
    }
}

/// What a file holds: its datasets, images and others, in the file's order.
public struct ImageFileContents: Sendable {
    public var format: ImageFileFormat
    public var entries: [ImageEntry]

    public init(format: ImageFileFormat, entries: [ImageEntry]) {
        self.format = format
        self.entries = entries
    }
}

/// Why a file cannot be read, in words for one line on stderr (the caller adds the file's name).
public struct ImageFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Limits every reader keeps, so that no file can make the program allocate without bound.
public enum ImageLimits {
    /// The largest image accepted: 8192 × 8192 pixels.
    public static let maxPixels = 8192 * 8192
    /// The largest file read into memory whole.
    public static let maxFileBytes = 1 << 31

    /// Throws unless width × height is a plane this program accepts.
    public static func check(width: Int, height: Int) throws(ImageFileError) {
        guard width > 0, height > 0 else { throw ImageFileError("the image has no pixels") }
        guard width <= maxPixels, height <= maxPixels, width * height <= maxPixels else {
            throw ImageFileError("the image is \(width) × \(height) pixels, more than the 8192 × 8192 limit")
        }
    }

    /// The most channels a spectrum may have.
    public static let maxChannels = 1 << 20
    /// The most frames a stack may have.
    public static let maxFrames = 1 << 20
    /// The most values a spectrum image may hold (2³¹: 4 GiB of 16-bit counts), so that a damaged
    /// HDF5 file, which fills in what it does not store, cannot promise a sweep without end.
    public static let maxSpectrumValues = 1 << 31

    /// Throws unless a spectrum of `channels` channels is one this program accepts.
    public static func check(channels: Int) throws(ImageFileError) {
        guard channels > 0 else { throw ImageFileError("the spectra have no channels") }
        guard channels <= maxChannels else {
            throw ImageFileError("the spectra have \(channels) channels, more than the \(maxChannels) limit")
        }
    }

    /// Throws unless a scan of width × height pixels of `channels` channels is one this program accepts.
    public static func check(width: Int, height: Int, channels: Int) throws(ImageFileError) {
        try check(channels: channels)
        guard width > 0, height > 0 else { throw ImageFileError("the scan has no pixels") }
        guard width <= maxPixels, height <= maxPixels, width * height <= maxPixels else {
            throw ImageFileError("the scan is \(width) × \(height) pixels, more than the 8192 × 8192 limit")
        }
        guard width * height * channels <= maxSpectrumValues else {
            throw ImageFileError(
                "the spectra hold \(width) × \(height) × \(channels) values, more than the \(maxSpectrumValues) limit")
        }
    }
}
