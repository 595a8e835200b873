/// A number type as files store it, read in either byte order.
public protocol StoredNumber: SendableMetatype {
    static var byteCount: Int { get }
    /// The value at `source` (unaligned), as a float.
    static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float
    /// The sum of the `count` values stored one after another from `source`.
    static func sum(at source: UnsafeRawPointer, count: Int, littleEndian: Bool) -> Double
    /// Adds the `count` values stored one after another from `source` to `totals`, one each.
    static func add(
        at source: UnsafeRawPointer, count: Int, littleEndian: Bool, to totals: UnsafeMutablePointer<Double>)
}

extension StoredNumber {
    /// Summed in four running parts, so that the additions need not wait for one another.
    @inline(__always)
    public static func sum(at source: UnsafeRawPointer, count: Int, littleEndian: Bool) -> Double {
        var parts: (Double, Double, Double, Double) = (0, 0, 0, 0)
        var index = 0
        while index + 4 <= count {
            parts.0 += Double(value(at: source + index * byteCount, littleEndian: littleEndian))
            parts.1 += Double(value(at: source + (index + 1) * byteCount, littleEndian: littleEndian))
            parts.2 += Double(value(at: source + (index + 2) * byteCount, littleEndian: littleEndian))
            parts.3 += Double(value(at: source + (index + 3) * byteCount, littleEndian: littleEndian))
            index += 4
        }
        while index < count {
            parts.0 += Double(value(at: source + index * byteCount, littleEndian: littleEndian))
            index += 1
        }
        return (parts.0 + parts.1) + (parts.2 + parts.3)
    }

    @inline(__always)
    public static func add(
        at source: UnsafeRawPointer, count: Int, littleEndian: Bool, to totals: UnsafeMutablePointer<Double>
    ) {
        for index in 0..<count {
            totals[index] += Double(value(at: source + index * byteCount, littleEndian: littleEndian))
        }
    }
}

extension StoredNumber where Self: FixedWidthInteger {
    public static var byteCount: Int { MemoryLayout<Self>.size }

    @inline(__always)
    public static func value(at source: UnsafeRawPointer, littleEndian: Bool) -> Float {
        let raw = source.loadUnaligned(as: Self.self)
        return Float(littleEndian ? Self(littleEndian: raw) : Self(bigEndian: raw))
    }

    /// Integers add up exactly, and in vector registers: one loop per byte order.
    @inline(__always)
    public static func sum(at source: UnsafeRawPointer, count: Int, littleEndian: Bool) -> Double {
        var total = 0
        if littleEndian {
            for index in 0..<count {
                total &+= Int(
                    Self(littleEndian: source.loadUnaligned(fromByteOffset: index * byteCount, as: Self.self)))
            }
        } else {
            for index in 0..<count {
                total &+= Int(Self(bigEndian: source.loadUnaligned(fromByteOffset: index * byteCount, as: Self.self)))
            }
        }
        return Double(total)
    }

    @inline(__always)
    public static func add(
        at source: UnsafeRawPointer, count: Int, littleEndian: Bool, to totals: UnsafeMutablePointer<Double>
    ) {
        if littleEndian {
            for index in 0..<count {
                totals[index] += Double(
                    Self(littleEndian: source.loadUnaligned(fromByteOffset: index * byteCount, as: Self.self)))
            }
        } else {
            for index in 0..<count {
                totals[index] += Double(
                    Self(bigEndian: source.loadUnaligned(fromByteOffset: index * byteCount, as: Self.self)))
            }
        }
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
