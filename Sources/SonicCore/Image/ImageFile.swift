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
    case png, dm3, dm4, tiff, emd

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

/// One dataset in a file, described before its samples are read.
public struct ImageEntry: Sendable {
    /// The dataset's name in the file ("HAADF", "Ceta, frame 2"); may be empty.
    public var title: String
    /// The dataset's size, fastest-varying axis first: [width, height] for an image, [length] for a
    /// spectrum or a plot.
    public var shape: [Int]
    public var sampleType: SampleType?
    /// Why the samples cannot be played ("complex data", "RGB data", "a 1-D signal"); nil if they can.
    public var unsupported: String?
    public var calibration: Calibration
    private let reader: @Sendable () throws -> GrayImage

    public init(
        title: String, shape: [Int], sampleType: SampleType?, unsupported: String? = nil,
        calibration: Calibration = .none, read: @escaping @Sendable () throws -> GrayImage
    ) {
        self.title = title
        self.shape = shape
        self.sampleType = sampleType
        self.unsupported = unsupported ?? (shape.count == 2 ? nil : "a \(shape.count)-D signal, not an image")
        self.calibration = calibration
        self.reader = read
    }

    /// A 2-D image of a type this program plays.
    public var isImage: Bool { unsupported == nil && sampleType != nil && shape.count == 2 }
    public var width: Int { shape.first ?? 0 }
    public var height: Int { shape.count > 1 ? shape[1] : 1 }

    /// Reads the samples (only images can be read).
    public func read() throws -> GrayImage { try reader() }
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
}
