/// A DigitalMicrograph DM3/DM4 writer written from the format's description, independent of the
/// reader, so reader tests compare against a separate implementation. It writes images the way
/// DigitalMicrograph lays them out (`ImageList` entries with `ImageData`, `Name`, calibrations) and,
/// for damaged files, any tag tree at all, including raw info words and payloads.
public struct SampleDM {
    /// Tag data element types (the first info word).
    public enum ElementType: UInt64, Sendable {
        case int16 = 2
        case int32 = 3
        case uint16 = 4
        case uint32 = 5
        case float32 = 6
        case float64 = 7
        case bool = 8
        case int8 = 9
        case uint8 = 10
        case int64 = 11
        case uint64 = 12

        public var size: Int {
            switch self {
            case .bool, .int8, .uint8: 1
            case .int16, .uint16: 2
            case .int32, .uint32, .float32: 4
            case .float64, .int64, .uint64: 8
            }
        }
    }

    /// Image pixel types (`ImageData/DataType`).
    public enum DataType: Int, Sendable {
        case int16 = 1
        case float32 = 2
        case complex64 = 3
        case uint8 = 6
        case int32 = 7
        case rgb = 8
        case int8 = 9
        case uint16 = 10
        case uint32 = 11
        case float64 = 12
        case complex128 = 13
        case binary = 14
        case rgba = 23

        /// How each value of `Image.values` is stored: complex pixels take two values (real,
        /// imaginary), RGB pixels one packed 32-bit value.
        var element: ElementType {
            switch self {
            case .int16: .int16
            case .float32, .complex64: .float32
            case .uint8: .uint8
            case .int32: .int32
            case .rgb, .rgba: .uint32
            case .int8: .int8
            case .uint16: .uint16
            case .uint32: .uint32
            case .float64, .complex128: .float64
            case .binary: .bool
            }
        }

        var isComplex: Bool { self == .complex64 || self == .complex128 }
    }

    /// One axis of `Calibrations/Dimension`: pixel i sits at (i − origin) × scale units.
    public struct Axis: Sendable {
        public var scale: Double
        public var origin: Double
        public var units: String

        public init(scale: Double, origin: Double = 0, units: String) {
            self.scale = scale
            self.origin = origin
            self.units = units
        }

        public static let uncalibrated = Axis(scale: 1, units: "")
    }

    public struct Image: Sendable {
        /// Written as `Name` unless nil.
        public var title: String?
        /// Fastest axis first: [width, height] for an image, [length] for a spectrum.
        public var dimensions: [Int]
        public var dataType: DataType
        /// Pixel values in file order, row by row, top row first.
        public var values: [Double]
        /// One per dimension, or none.
        public var axes: [Axis]
        /// Written in `ImageTags`: `Meta Data` with `Format` "Spectrum image" makes a spectrum image.
        public var imageTags: [Tag]

        public init(
            title: String?, dimensions: [Int], dataType: DataType, values: [Double], axes: [Axis] = [],
            imageTags: [Tag] = []
        ) {
            self.title = title
            self.dimensions = dimensions
            self.dataType = dataType
            self.values = values
            self.axes = axes
            self.imageTags = imageTags
        }

        /// The tags Gatan's spectrometers write: the data's format ("Spectrum", "Spectrum image") and signal ("EELS", "X-ray", "CL").
        public static func spectrumTags(format: String, signal: String) -> [Tag] {
            [.group("Meta Data", [.data("Format", .text(format)), .data("Signal", .text(signal))])]
        }
    }

    /// A tag of the tree.
    public indirect enum Tag: Sendable {
        /// `claimedCount` is written in place of the real number of tags when set.
        case group(String, [Tag], claimedCount: UInt64? = nil)
        case data(String, Value)
    }

    /// What a data tag holds.
    public enum Value: Sendable {
        case simple(ElementType, Double)
        case array(ElementType, [Double])
        /// UTF-16 code units, the way names and units are stored.
        case text(String)
        /// Type 18: a string of bytes.
        case string([UInt8])
        case structure([(ElementType, Double)])
        /// An array of `count` structs with these fields, their values field after field.
        case structArray([ElementType], count: Int, values: [Double])
        /// Info words and payload written exactly as given.
        case raw(info: [UInt64], payload: [UInt8])
    }

    public var version: Int
    public var littleEndian: Bool
    public var images: [Image]
    /// Root tags written before `ImageList`.
    public var leadingTags: [Tag] = SampleDM.typicalLeadingTags

    public init(version: Int = 4, littleEndian: Bool = true, images: [Image]) {
        self.version = version
        self.littleEndian = littleEndian
        self.images = images
    }

    public var rootTags: [Tag] { leadingTags + [.group("ImageList", images.map(Self.tag(for:)))] }

    public var bytes: [UInt8] { Self.file(version: version, littleEndian: littleEndian, root: rootTags) }

    /// Tags of every encoding, like those DigitalMicrograph writes before the images.
    public static let typicalLeadingTags: [Tag] = [
        .data("ApplicationBounds", .structure([(.int32, 0), (.int32, 0), (.int32, 701), (.int32, 1276)])),
        .group(
            "DocumentObjectList",
            [
                .group(
                    "",
                    [
                        .data("AnnotationType", .simple(.int32, 20)),
                        .data(
                            "CLUT",
                            .structArray([.int16, .int16, .int16], count: 4, values: Array(repeating: -1, count: 12))),
                        .data("CLUTName", .text("Greyscale")),
                        .data("HasBackground", .simple(.bool, 0)),
                        .data("ImageSource", .simple(.uint64, 0)),
                        .data("Offset", .simple(.int64, -5)),
                        .data("Comment", .string(Array("a note".utf8))),
                        .group("ObjectTags", [])
                    ])
            ]),
        .data("InImageMode", .simple(.bool, 1))
    ]

    /// An `ImageList` entry laid out as DigitalMicrograph writes it.
    public static func tag(for image: Image) -> Tag {
        let axes = image.axes.map { axis in
            Tag.group(
                "",
                [
                    .data("Origin", .simple(.float32, axis.origin)),
                    .data("Scale", .simple(.float32, axis.scale)),
                    .data("Units", .text(axis.units))
                ])
        }
        let data: Value =
            image.dataType.isComplex
            ? .structArray(
                [image.dataType.element, image.dataType.element], count: image.values.count / 2,
                values: image.values)
            : .array(image.dataType.element, image.values)
        let imageData = Tag.group(
            "ImageData",
            [
                .group(
                    "Calibrations",
                    [
                        .group(
                            "Brightness",
                            [
                                .data("Origin", .simple(.float32, 0)),
                                .data("Scale", .simple(.float32, 1)),
                                .data("Units", .text("counts"))
                            ]),
                        .group("Dimension", axes),
                        .data("DisplayCalibratedUnits", .simple(.bool, 1))
                    ]),
                .data("Data", data),
                .data("DataType", .simple(.uint32, Double(image.dataType.rawValue))),
                .group("Dimensions", image.dimensions.map { .data("", .simple(.uint32, Double($0))) }),
                .data("PixelDepth", .simple(.uint32, Double(image.dataType.element.size)))
            ])
        var tags = [imageData, .group("ImageTags", image.imageTags)]
        if let title = image.title { tags.append(.data("Name", .text(title))) }
        tags.append(.group("UniqueID", (1...4).map { .data("", .simple(.uint32, Double($0))) }))
        return .group("", tags)
    }

    /// A whole file: header, root group, and the 8 zero bytes DigitalMicrograph ends with.
    public static func file(version: Int, littleEndian: Bool, root: [Tag]) -> [UInt8] {
        let writer = Writer(wide: version == 4, littleEndian: littleEndian)
        let rootBytes = writer.groupBody(root, claimedCount: nil)
        var out = Writer.bigEndian(UInt64(version), width: 4)
        out += Writer.bigEndian(UInt64(rootBytes.count), width: writer.wordSize)
        out += Writer.bigEndian(littleEndian ? 1 : 0, width: 4)
        return out + rootBytes + [UInt8](repeating: 0, count: 8)
    }

    struct Writer {
        let wide: Bool
        let littleEndian: Bool
        var wordSize: Int { wide ? 8 : 4 }

        static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
            (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
        }

        func word(_ value: UInt64) -> [UInt8] { Self.bigEndian(value, width: wordSize) }

        func groupBody(_ tags: [Tag], claimedCount: UInt64?) -> [UInt8] {
            [0, 1] + word(claimedCount ?? UInt64(tags.count)) + tags.flatMap(tag)
        }

        func tag(_ tag: Tag) -> [UInt8] {
            let (kind, label, body): (UInt8, String, [UInt8]) =
                switch tag {
                case .group(let label, let tags, let claimed): (20, label, groupBody(tags, claimedCount: claimed))
                case .data(let label, let value): (21, label, dataBody(value))
                }
            let name = Array(label.utf8)
            var out = [kind] + Self.bigEndian(UInt64(name.count), width: 2) + name
            // DM4 gives each tag's size: the bytes that follow the size field.
            if wide { out += word(UInt64(body.count)) }
            return out + body
        }

        func dataBody(_ value: Value) -> [UInt8] {
            let (info, payload) = encode(value)
            return Array("%%%%".utf8) + word(UInt64(info.count)) + info.flatMap(word) + payload
        }

        func encode(_ value: Value) -> (info: [UInt64], payload: [UInt8]) {
            switch value {
            case .simple(let type, let number):
                return ([type.rawValue], elements([(type, number)]))
            case .array(let type, let numbers):
                return ([20, type.rawValue, UInt64(numbers.count)], elements(numbers.lazy.map { (type, $0) }))
            case .text(let text):
                let units = Array(text.utf16)
                return (
                    [20, ElementType.uint16.rawValue, UInt64(units.count)],
                    elements(units.lazy.map { (.uint16, Double($0)) })
                )
            case .string(let bytes):
                return ([18, UInt64(bytes.count)], bytes)
            case .structure(let fields):
                let definition = fields.flatMap { [0, $0.0.rawValue] as [UInt64] }
                return ([15, 0, UInt64(fields.count)] + definition, elements(fields))
            case .structArray(let types, let count, let values):
                let definition = types.flatMap { [0, $0.rawValue] as [UInt64] }
                let payload = elements(values.enumerated().lazy.map { (types[$0.offset % types.count], $0.element) })
                return ([20, 15, 0, UInt64(types.count)] + definition + [UInt64(count)], payload)
            case .raw(let info, let payload):
                return (info, payload)
            }
        }

        func elements(_ values: some Sequence<(ElementType, Double)>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(values.underestimatedCount)
            for (type, value) in values { append(type, value, to: &out) }
            return out
        }

        /// One value in the file's byte order.
        func append(_ type: ElementType, _ value: Double, to out: inout [UInt8]) {
            let bits: UInt64 =
                switch type {
                case .int16: UInt64(truncatingIfNeeded: Int16(value))
                case .int32: UInt64(truncatingIfNeeded: Int32(value))
                case .uint16: UInt64(UInt16(value))
                case .uint32: UInt64(UInt32(value))
                case .float32: UInt64(Float(value).bitPattern)
                case .float64: value.bitPattern
                case .bool, .uint8: UInt64(UInt8(value))
                case .int8: UInt64(truncatingIfNeeded: Int8(value))
                case .int64: UInt64(truncatingIfNeeded: Int64(value))
                case .uint64: UInt64(value)
                }
            for index in 0..<type.size {
                let shift = littleEndian ? index : type.size - 1 - index
                out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(shift))))
            }
        }
    }
}
