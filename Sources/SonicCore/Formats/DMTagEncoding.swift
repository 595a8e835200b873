/// How a data tag's data is laid out, as its info words describe it.
enum DMLayout {
    case simple(DMElementType)
    case array(DMElementType, count: UInt64)
    /// An array of `count` structs of simple fields.
    case structs([DMElementType], count: UInt64)
    /// Strings, structs and arrays of strings or arrays: `count` elements of `elementSize` bytes, stepped over.
    case opaque(elementSize: UInt64, count: UInt64)

    /// The data's size in bytes, or nil when it overflows or is more than `available`.
    func byteCount(fitting available: Int) -> Int? {
        let (size, count): (UInt64, UInt64) =
            switch self {
            case .simple(let type): (UInt64(type.size), 1)
            case .array(let type, let count): (UInt64(type.size), count)
            case .structs(let fields, let count): (UInt64(fields.reduce(0) { $0 + $1.size }), count)
            case .opaque(let elementSize, let count): (elementSize, count)
            }
        let (total, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, total <= UInt64(available) else { return nil }
        return Int(total)
    }
}

/// The info words of a data tag, read in place (their count is already checked against the file).
struct DMInfo {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let count: Int
    let wordSize: Int

    private static let string: UInt64 = 18, structure: UInt64 = 15, array: UInt64 = 20

    private func word(_ index: Int) -> UInt64 {
        var value: UInt64 = 0
        let first = start + index * wordSize
        for byte in bytes[first..<first + wordSize] { value = value << 8 | UInt64(byte) }
        return value
    }

    func layout(tagStart: Int) throws(ImageFileError) -> DMLayout {
        let invalid = ImageFileError("the data tag at byte \(tagStart) has an invalid type description")
        let type = word(0)
        if let simple = DMElementType(rawValue: type) {
            guard count == 1 else { throw invalid }
            return .simple(simple)
        }
        switch type {
        case Self.string:
            guard count == 2 else { throw invalid }
            return .opaque(elementSize: 1, count: word(1))
        case Self.structure:
            // [15, name length, field count, (name length, type) per field]
            guard let fields = try structFields(fieldCountAt: 2, trailingWords: 0, tagStart: tagStart) else {
                throw invalid
            }
            return .opaque(elementSize: UInt64(fields.reduce(0) { $0 + $1.size }), count: 1)
        case Self.array:
            return try arrayLayout(tagStart: tagStart, invalid: invalid)
        default:
            throw ImageFileError("the data tag at byte \(tagStart) has unknown data type \(type)")
        }
    }

    private func arrayLayout(tagStart: Int, invalid: ImageFileError) throws(ImageFileError) -> DMLayout {
        guard count >= 3 else { throw invalid }
        let element = word(1)
        if let simple = DMElementType(rawValue: element) {
            guard count == 3 else { throw invalid }
            return .array(simple, count: word(2))
        }
        switch element {
        case Self.structure:
            // [20, 15, name length, field count, (name length, type) per field, length]
            guard let fields = try structFields(fieldCountAt: 3, trailingWords: 1, tagStart: tagStart) else {
                throw invalid
            }
            return .structs(fields, count: word(count - 1))
        case Self.string:
            // [20, 18, string length, length]
            guard count == 4 else { throw invalid }
            return .opaque(elementSize: word(2), count: word(3))
        case Self.array:
            // [20, 20, element type, inner length, length]
            guard count == 5, let inner = DMElementType(rawValue: word(2)) else { throw invalid }
            let (size, overflow) = UInt64(inner.size).multipliedReportingOverflow(by: word(3))
            guard !overflow else {
                throw ImageFileError("the data of the tag at byte \(tagStart) runs past the end of the file")
            }
            return .opaque(elementSize: size, count: word(4))
        default:
            throw ImageFileError("the data tag at byte \(tagStart) has unknown array element type \(element)")
        }
    }

    /// The field types of a struct whose field count is word `index`, its (name length, type) pairs
    /// following; nil when the words do not match that description. Fields must be simple values.
    private func structFields(fieldCountAt index: Int, trailingWords: Int, tagStart: Int) throws(ImageFileError)
        -> [DMElementType]?
    {
        guard count > index else { return nil }
        let fields = word(index)
        guard fields <= UInt64(count), count == index + 1 + 2 * Int(fields) + trailingWords else { return nil }
        var types: [DMElementType] = []
        for field in 0..<Int(fields) {
            let type = word(index + 2 + 2 * field)
            guard let simple = DMElementType(rawValue: type) else {
                throw ImageFileError("the data tag at byte \(tagStart) has a struct field of unknown type \(type)")
            }
            types.append(simple)
        }
        return types
    }
}
