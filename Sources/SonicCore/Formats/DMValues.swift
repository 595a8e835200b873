/// Decodes tag values stored in the file's byte order. Callers have checked that every byte read
/// lies inside the file.
enum DMValues {
    static func number(in bytes: UnsafeRawBufferPointer, at offset: Int, type: DMElementType, littleEndian: Bool)
        -> Double
    {
        guard let base = bytes.baseAddress else { return 0 }
        let source = base + offset
        func load<T: FixedWidthInteger>(_: T.Type) -> T {
            let value = source.loadUnaligned(as: T.self)
            return littleEndian ? T(littleEndian: value) : T(bigEndian: value)
        }
        return switch type {
        case .int16: Double(load(Int16.self))
        case .int32: Double(load(Int32.self))
        case .uint16: Double(load(UInt16.self))
        case .uint32: Double(load(UInt32.self))
        case .float32: Double(Float(bitPattern: load(UInt32.self)))
        case .float64: Double(bitPattern: load(UInt64.self))
        case .bool, .uint8: Double(load(UInt8.self))
        case .int8: Double(load(Int8.self))
        case .int64: Double(load(Int64.self))
        case .uint64: Double(load(UInt64.self))
        }
    }

    /// The text of an array of UTF-16 code units, the way DigitalMicrograph stores names and units.
    static func text(of array: DMArray, in bytes: UnsafeRawBufferPointer, littleEndian: Bool) -> String? {
        guard array.elementType == .uint16, let base = bytes.baseAddress else { return nil }
        let source = base + array.offset
        let units = (0..<array.count).map { index in
            let unit = source.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)
            return littleEndian ? UInt16(littleEndian: unit) : UInt16(bigEndian: unit)
        }
        return String(decoding: units, as: UTF16.self)
    }
}
