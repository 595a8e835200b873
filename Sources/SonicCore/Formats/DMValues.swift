/// Decodes tag values and image samples stored in the file's byte order. Callers have checked that
/// every byte read lies inside the array.
enum DMValues {
    static func number(in bytes: [UInt8], at offset: Int, type: DMElementType, littleEndian: Bool) -> Double {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
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
    }

    /// The text of an array of UTF-16 code units, the way DigitalMicrograph stores names and units.
    static func text(of array: DMArray, in bytes: [UInt8], littleEndian: Bool) -> String? {
        guard array.elementType == .uint16 else { return nil }
        let units = bytes.withUnsafeBytes { raw -> [UInt16] in
            guard let base = raw.baseAddress else { return [] }
            let source = base + array.offset
            return (0..<array.count).map { index in
                let unit = source.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)
                return littleEndian ? UInt16(littleEndian: unit) : UInt16(bigEndian: unit)
            }
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// `count` samples of `type` from `offset`, as floats (none if `bytes` is empty).
    static func samples(in bytes: [UInt8], at offset: Int, count: Int, type: SampleType, littleEndian: Bool) -> [Float]
    {
        [Float](unsafeUninitializedCapacity: count) { output, initialized in
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                let source = base + offset
                switch type {
                case .uint8: convert(source, into: output, littleEndian, UInt8.self) { Float($0) }
                case .int8: convert(source, into: output, littleEndian, Int8.self) { Float($0) }
                case .uint16: convert(source, into: output, littleEndian, UInt16.self) { Float($0) }
                case .int16: convert(source, into: output, littleEndian, Int16.self) { Float($0) }
                case .uint32: convert(source, into: output, littleEndian, UInt32.self) { Float($0) }
                case .int32: convert(source, into: output, littleEndian, Int32.self) { Float($0) }
                case .float32: convert(source, into: output, littleEndian, UInt32.self) { Float(bitPattern: $0) }
                case .float64:
                    convert(source, into: output, littleEndian, UInt64.self) { Float(Double(bitPattern: $0)) }
                }
                initialized = count
            }
        }
    }

    /// One loop per byte order, so that the order is not tested per sample.
    @inline(__always)
    private static func convert<T: FixedWidthInteger>(
        _ source: UnsafeRawPointer, into output: UnsafeMutableBufferPointer<Float>,
        _ littleEndian: Bool, _: T.Type, _ float: (T) -> Float
    ) {
        let stride = MemoryLayout<T>.size
        if littleEndian {
            for index in 0..<output.count {
                output[index] = float(
                    T(littleEndian: source.loadUnaligned(fromByteOffset: index &* stride, as: T.self)))
            }
        } else {
            for index in 0..<output.count {
                output[index] = float(T(bigEndian: source.loadUnaligned(fromByteOffset: index &* stride, as: T.self)))
            }
        }
    }
}
