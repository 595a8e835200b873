/// One tag of a DigitalMicrograph tag tree: a named group of tags or a named value.
struct DMTag {
    let label: String
    let value: DMTagValue
}

/// What a tag holds, as far as reading images needs: groups, single numbers, arrays of numbers and
/// arrays of structs of numbers (complex pixels). Strings and structs are checked and stepped over.
enum DMTagValue {
    case group(DMTagGroup)
    case number(Double)
    case array(DMArray)
    case structArray(DMStructArray)
    case other

    var group: DMTagGroup? { if case .group(let group) = self { group } else { nil } }
    var number: Double? { if case .number(let number) = self { number } else { nil } }
    var array: DMArray? { if case .array(let array) = self { array } else { nil } }

    /// Where the data of an array lies, whatever its elements.
    var block: (offset: Int, byteCount: Int)? {
        switch self {
        case .array(let array): (array.offset, array.byteCount)
        case .structArray(let structs): (structs.offset, structs.byteCount)
        default: nil
        }
    }

    /// The tag's text, when it is one (UTF-16 code units, the way names and units are stored).
    func text(in bytes: UnsafeRawBufferPointer, littleEndian: Bool) -> String? {
        array.flatMap { DMValues.text(of: $0, in: bytes, littleEndian: littleEndian) }
    }
}

struct DMTagGroup {
    let tags: [DMTag]

    /// The first tag with this label.
    subscript(label: String) -> DMTagValue? { tags.first { $0.label == label }?.value }
}

/// The element types of DigitalMicrograph tag data.
enum DMElementType: UInt64 {
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

    var size: Int {
        switch self {
        case .bool, .int8, .uint8: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float32: 4
        case .float64, .int64, .uint64: 8
        }
    }
}

/// An array of simple values left in place in the file: `byteCount` bytes from `offset`.
struct DMArray {
    let elementType: DMElementType
    let count: Int
    let offset: Int
    var byteCount: Int { count * elementType.size }
}

/// An array of structs of simple values (complex pixels: real and imaginary parts) left in place.
struct DMStructArray {
    let fields: [DMElementType]
    let count: Int
    let offset: Int
    var byteCount: Int { count * fields.reduce(0) { $0 + $1.size } }
}

/// Parses the tag tree of a DM3 or DM4 file, checking every length, count and size against the
/// bytes that remain before using it.
struct DMTagParser {
    static let maxDepth = 64
    /// Real files hold thousands of tags; the limit keeps a file of empty groups from exhausting memory.
    static let maxTags = 1 << 20

    let version: Int
    let littleEndian: Bool
    private var input: DMByteReader
    private var tagCount = 0

    /// Counts, lengths and info words: 4 bytes in DM3, 8 in DM4, always big-endian.
    private var wordSize: Int { version == 4 ? 8 : 4 }

    init(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) {
        let tooShort = ImageFileError("the file is too short for a DigitalMicrograph header")
        guard bytes.count >= 4 else { throw tooShort }
        input = DMByteReader(bytes: bytes)
        let version = try input.bigEndian(4)
        guard version == 3 || version == 4 else {
            throw ImageFileError("the file is DigitalMicrograph version \(version), not 3 or 4")
        }
        self.version = Int(version)
        // The root's length (4 or 8 bytes), not needed to walk the tree, then the byte order.
        let rootLengthSize = version == 4 ? 8 : 4
        guard input.remaining >= rootLengthSize + 4 else { throw tooShort }
        try input.skip(rootLengthSize)
        let byteOrder = try input.bigEndian(4)
        guard byteOrder <= 1 else { throw ImageFileError("the byte order flag is \(byteOrder), not 0 or 1") }
        littleEndian = byteOrder == 1
    }

    /// The root group.
    mutating func parse() throws(ImageFileError) -> DMTagGroup {
        try group(depth: 0)
    }

    private mutating func group(depth: Int) throws(ImageFileError) -> DMTagGroup {
        let start = input.position
        try input.skip(2) // sorted and open flags
        let claimed = try word()
        // The smallest tag is an empty group: kind, label length, flags and count (plus its size in DM4).
        let smallestTag = version == 4 ? 21 : 9
        guard claimed <= UInt64(input.remaining / smallestTag) else {
            throw ImageFileError("the tag group at byte \(start) claims \(claimed) tags, more than the file can hold")
        }
        var tags: [DMTag] = []
        for _ in 0..<Int(claimed) {
            tagCount += 1
            guard tagCount <= Self.maxTags else {
                throw ImageFileError("the tag tree has more than \(Self.maxTags) tags")
            }
            tags.append(try tag(depth: depth))
        }
        return DMTagGroup(tags: tags)
    }

    private mutating func tag(depth: Int) throws(ImageFileError) -> DMTag {
        let start = input.position
        let kind = try input.bigEndian(1)
        let labelLength = Int(try input.bigEndian(2))
        let label = String(decoding: try input.take(labelLength), as: UTF8.self)
        if version == 4 { try input.skip(8) } // the tag's size, redundant with its contents
        switch kind {
        case 20:
            guard depth < Self.maxDepth else {
                throw ImageFileError("the tag tree is nested more than \(Self.maxDepth) groups deep")
            }
            return DMTag(label: label, value: .group(try group(depth: depth + 1)))
        case 21:
            return DMTag(label: label, value: try data(tagStart: start))
        default:
            throw ImageFileError("the tag at byte \(start) is of unknown kind \(kind)")
        }
    }

    private mutating func data(tagStart: Int) throws(ImageFileError) -> DMTagValue {
        guard try input.take(4).elementsEqual("%%%%".utf8) else {
            throw ImageFileError("the data tag at byte \(tagStart) lacks its %%%% delimiter")
        }
        let infoCount = try word()
        guard infoCount >= 1 else { throw ImageFileError("the data tag at byte \(tagStart) has no type description") }
        guard infoCount <= UInt64(input.remaining / wordSize) else {
            throw ImageFileError(
                "the data tag at byte \(tagStart) has \(infoCount) info words, "
                    + "more than the file can hold")
        }
        let info = DMInfo(bytes: input.bytes, start: input.position, count: Int(infoCount), wordSize: wordSize)
        try input.skip(info.count * wordSize)
        let layout = try info.layout(tagStart: tagStart)
        guard let size = layout.byteCount(fitting: input.remaining) else {
            throw ImageFileError("the data of the tag at byte \(tagStart) runs past the end of the file")
        }
        let payloadStart = input.position
        try input.skip(size)
        switch layout {
        case .simple(let type):
            return .number(DMValues.number(in: input.bytes, at: payloadStart, type: type, littleEndian: littleEndian))
        case .array(let type, _):
            return .array(DMArray(elementType: type, count: size / type.size, offset: payloadStart))
        case .structs(let fields, _):
            let structSize = fields.reduce(0) { $0 + $1.size }
            guard structSize > 0 else { return .other }
            return .structArray(DMStructArray(fields: fields, count: size / structSize, offset: payloadStart))
        case .opaque:
            return .other
        }
    }

    private mutating func word() throws(ImageFileError) -> UInt64 { try input.bigEndian(wordSize) }
}

/// Reads a file's bytes front to back, refusing to read past their end.
struct DMByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - position }

    private var truncated: ImageFileError { ImageFileError("the tag tree is truncated at byte \(bytes.count)") }

    mutating func bigEndian(_ width: Int) throws(ImageFileError) -> UInt64 {
        var value: UInt64 = 0
        for byte in try take(width) { value = value << 8 | UInt64(byte) }
        return value
    }

    mutating func take(_ count: Int) throws(ImageFileError) -> Slice<UnsafeRawBufferPointer> {
        guard count <= remaining else { throw truncated }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func skip(_ count: Int) throws(ImageFileError) {
        guard count <= remaining else { throw truncated }
        position += count
    }
}
