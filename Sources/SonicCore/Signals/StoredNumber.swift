/// A number type as files store it, read in either byte order.
public protocol StoredNumber {
    static var byteCount: Int { get }
    /// The value at `source` (unaligned), as a float.
    static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float
}

extension StoredNumber where Self: FixedWidthInteger {
    public static var byteCount: Int { MemoryLayout<Self>.size }

    @inline(__always)
    public static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float {
        let raw = source.loadUnaligned(as: Self.self)
        return Float(littleEndian ? Self(littleEndian: raw) : Self(bigEndian: raw))
    }
}

extension UInt8: StoredNumber {}
extension Int8: StoredNumber {}
extension UInt16: StoredNumber {}
extension Int16: StoredNumber {}
extension UInt32: StoredNumber {}
extension Int32: StoredNumber {}

extension Float: StoredNumber {
    public static var byteCount: Int { 4 }

    @inline(__always)
    public static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float {
        let raw = source.loadUnaligned(as: UInt32.self)
        return Float(bitPattern: littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
    }
}

extension Double: StoredNumber {
    public static var byteCount: Int { 8 }

    @inline(__always)
    public static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float {
        let raw = source.loadUnaligned(as: UInt64.self)
        return Float(Double(bitPattern: littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)))
    }
}

/// A byte that is false (0) or true (any other value), read as 0 or 1.
public enum StoredBool: StoredNumber {
    public static var byteCount: Int { 1 }

    @inline(__always)
    public static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float {
        source.load(as: UInt8.self) == 0 ? 0 : 1
    }
}

/// Calls back with the stored number type that holds `sampleType`'s values (`bool` for true-or-false
/// bytes), so that loops over samples are compiled for each type.
public protocol StoredNumberVisitor {
    associatedtype Result
    func visit<Number: StoredNumber>(_ type: Number.Type) -> Result
}

extension SampleType {
    /// The stored number type of this sample type, or of true-or-false bytes when `bool`.
    public func visit<Visitor: StoredNumberVisitor>(_ visitor: Visitor, bool: Bool = false) -> Visitor.Result {
        if bool { return visitor.visit(StoredBool.self) }
        return switch self {
        case .uint8: visitor.visit(UInt8.self)
        case .int8: visitor.visit(Int8.self)
        case .uint16: visitor.visit(UInt16.self)
        case .int16: visitor.visit(Int16.self)
        case .uint32: visitor.visit(UInt32.self)
        case .int32: visitor.visit(Int32.self)
        case .float32: visitor.visit(Float.self)
        case .float64: visitor.visit(Double.self)
        }
    }
}
