/// One JSON object as the session log writes it — numbers, strings, booleans, null and lists of
/// numbers as values; anything nested is checked and skipped — parsed straight from UTF-8 bytes.
/// Parsing a long log is then a small part of rendering it.
struct FlatJSONObject {
    enum Value: Equatable {
        case number(Double)
        case string(String)
        case bool(Bool)
        case null
        case numbers([Double])
        /// A nested object, or a list holding more than numbers: valid, but not a shape the log uses.
        case nested
    }

    private(set) var fields: [(key: String, value: Value)] = []

    /// Deeper nesting than this is refused rather than followed.
    static let maximumDepth = 32

    /// Parses `bytes` (a whole line; whitespace around the object is allowed); nil when it is not one
    /// JSON object.
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        fields.removeAll(keepingCapacity: true)
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        guard reader.take(UInt8(ascii: "{")) else { return false }
        reader.skipSpace()
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                reader.skipSpace()
                guard let key = reader.string() else { return false }
                reader.skipSpace()
                guard reader.take(UInt8(ascii: ":")) else { return false }
                reader.skipSpace()
                guard let value = reader.value() else { return false }
                fields.append((key, value))
                reader.skipSpace()
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")) else { return false }
        }
        reader.skipSpace()
        return reader.atEnd
    }

    subscript(key: String) -> Value? {
        for field in fields where field.key == key { return field.value }
        return nil
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    var atEnd: Bool { at == bytes.count }

    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D {
            at += 1
        }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    mutating func take(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        for k in 0..<count where bytes[at + k] != word.utf8Start[k] { return false }
        at += count
        return true
    }

    mutating func value(depth: Int = 0) -> FlatJSONObject.Value? {
        guard at < bytes.count, depth < FlatJSONObject.maximumDepth else { return nil }
        switch bytes[at] {
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "t"): return take("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return take("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return take("null") ? .null : nil
        case UInt8(ascii: "["): return list(depth: depth)
        case UInt8(ascii: "{"): return object(depth: depth) ? .nested : nil
        default: return number().map { .number($0) }
        }
    }

    private mutating func list(depth: Int) -> FlatJSONObject.Value? {
        at += 1
        var numbers: [Double] = []
        var onlyNumbers = true
        skipSpace()
        if take(UInt8(ascii: "]")) { return .numbers([]) }
        repeat {
            skipSpace()
            guard let item = value(depth: depth + 1) else { return nil }
            if case .number(let n) = item { numbers.append(n) } else { onlyNumbers = false }
            skipSpace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
        return onlyNumbers ? .numbers(numbers) : .nested
    }

    private mutating func object(depth: Int) -> Bool {
        at += 1
        skipSpace()
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            skipSpace()
            guard string() != nil else { return false }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard value(depth: depth + 1) != nil else { return false }
            skipSpace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A JSON number, by its grammar (no "+", no leading zeros, no "inf" or "nan"); its value from the
    /// standard library's correctly rounded parser.
    mutating func number() -> Double? {
        let start = at
        func digits() -> Int {
            let from = at
            while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
            return at - from
        }
        _ = take(UInt8(ascii: "-"))
        let whole = at
        guard digits() > 0, bytes[whole] != 0x30 || at - whole == 1 else { return nil }
        if take(UInt8(ascii: ".")), digits() == 0 { return nil }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() > 0 else { return nil }
        }
        return Double(Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
    }

    /// A JSON string with its escapes resolved (a lone surrogate becomes U+FFFD); nil if malformed.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        // The common case: no escapes, taken in one piece.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 {
            at += 1
        }
        guard at < bytes.count else { return nil }
        if bytes[at] == UInt8(ascii: "\"") {
            defer { at += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }
        var scalars = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self).unicodeScalars
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
        }
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let escape = bytes[at]
                at += 1
                if let resolved = Self.escaped(escape) {
                    pending.append(resolved)
                    continue
                }
                guard escape == UInt8(ascii: "u"), var unit = hex4() else { return nil }
                flush()
                if (0xD800..<0xDC00).contains(unit), take("\\u") {
                    guard let low = hex4() else { return nil }
                    if (0xDC00..<0xE000).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalars.append("\u{FFFD}")
                        unit = low
                    }
                }
                scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            case 0..<0x20:
                return nil
            default:
                pending.append(byte)
            }
        }
        return nil
    }

    /// The byte a one-letter escape stands for: \" \\ \/ \b \f \n \r \t.
    private static func escaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case 0x22, 0x5C, 0x2F: letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    private mutating func hex4() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[at]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }
}
