/// The JSON that Velox writes beside its data, parsed just far enough to look values up.
///
/// Hostile text is bounded: nesting deeper than `maxDepth` or any syntax error gives nil.
indirect enum JSONValue: Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    static let maxDepth = 64

    static func parse(_ text: String) -> JSONValue? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipSpace()
        return parser.atEnd ? value : nil
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var text: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Every string anywhere inside, depth first.
    var strings: [String] {
        switch self {
        case .string(let text): [text]
        case .array(let items): items.flatMap(\.strings)
        case .object(let members): members.keys.sorted().flatMap { members[$0]!.strings }
        default: []
        }
    }

    /// The items of an array.
    var items: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// A number, written as one or (as Velox does) as a string.
    var double: Double? {
        switch self {
        case .number(let d): d
        case .string(let s): Double(s.trimmingSpaces)
        default: nil
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        var atEnd: Bool { at >= bytes.count }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func consume(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard at + expected.count <= bytes.count, Array(bytes[at..<at + expected.count]) == expected else {
                return false
            }
            at += expected.count
            return true
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < JSONValue.maxDepth else { return nil }
            skipSpace()
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return consume("null") ? .null : nil
            default: return number()
            }
        }

        mutating func object(depth: Int) -> JSONValue? {
            at += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if consume("}") { return .object(members) }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard consume(":"), let member = value(depth: depth + 1) else { return nil }
                members[key] = member
                skipSpace()
                if consume(",") { continue }
                return consume("}") ? .object(members) : nil
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            at += 1
            var elements: [JSONValue] = []
            skipSpace()
            if consume("]") { return .array(elements) }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                if consume(",") { continue }
                return consume("]") ? .array(elements) : nil
            }
        }

        mutating func string() -> String? {
            at += 1
            var utf8: [UInt8] = []
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escaped = bytes[at]
                    at += 1
                    switch escaped {
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard at + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
                        else { return nil }
                        at += 4
                        // Surrogate halves stand for nothing alone; Velox writes none.
                        utf8.append(
                            contentsOf: Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                    default: utf8.append(escaped)
                    }
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        mutating func number() -> JSONValue? {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let d = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else { return nil }
            return .number(d)
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
