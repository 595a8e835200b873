import SonicCore

/// Little-endian fields for the messages between the HDF5 reader and its helper process.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func int(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

    mutating func string(_ value: String) {
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    mutating func strings(_ values: [String]) {
        int(values.count)
        for value in values { string(value) }
    }

    mutating func ints(_ values: [Int]) {
        int(values.count)
        for value in values { int(value) }
    }
}

/// Reads what `ByteWriter` wrote, refusing anything that runs past the end.
struct ByteReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }

    static let garbled = ImageFileError("a garbled message between the HDF5 reader and its helper")

    mutating func int() throws(ImageFileError) -> Int {
        guard bytes.count - at >= 8 else { throw Self.garbled }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        at += 8
        return Int(Int64(bitPattern: value))
    }

    mutating func double() throws(ImageFileError) -> Double {
        Double(bitPattern: UInt64(bitPattern: Int64(try int())))
    }

    mutating func bool() throws(ImageFileError) -> Bool {
        guard at < bytes.count, bytes[at] <= 1 else { throw Self.garbled }
        at += 1
        return bytes[at - 1] == 1
    }

    /// A count of items, each taking at least `minimumBytes`, that the rest of the message can hold.
    mutating func count(minimumBytes: Int = 1) throws(ImageFileError) -> Int {
        let n = try int()
        guard n >= 0, n <= (bytes.count - at) / max(minimumBytes, 1) else { throw Self.garbled }
        return n
    }

    mutating func string() throws(ImageFileError) -> String {
        let n = try count()
        at += n
        return String(decoding: bytes[(at - n)..<at], as: UTF8.self)
    }

    mutating func optionalString() throws(ImageFileError) -> String? {
        try bool() ? try string() : nil
    }

    mutating func strings() throws(ImageFileError) -> [String] {
        let n = try count(minimumBytes: 8)
        var values: [String] = []
        for _ in 0..<n { values.append(try string()) }
        return values
    }

    mutating func ints() throws(ImageFileError) -> [Int] {
        let n = try count(minimumBytes: 8)
        var values: [Int] = []
        for _ in 0..<n { values.append(try int()) }
        return values
    }
}
