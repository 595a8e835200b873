/// A value in a profile file.
public enum ProfileValue: Sendable, Equatable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case array([ProfileValue])

    var typeName: String {
        switch self {
        case .number: "a number"
        case .string: "a string"
        case .bool: "true or false"
        case .array: "a list"
        }
    }
}

/// A profile problem, pinned to the file, line and key it comes from.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let key: String?
    public let message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file; self.line = line; self.key = key; self.message = message
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let key { return "\(place): \(key): \(message)" }
        return "\(place): \(message)"
    }
}

/// A parsed profile file: the TOML subset people need for settings —
/// `[section]` headers, `key = value` lines, `#` comments; values are numbers, "strings",
/// true/false and one-line [lists]. Every key remembers its line for error messages.
public struct ProfileDocument: Sendable {
    public struct Entry: Sendable, Equatable {
        public let value: ProfileValue
        public let line: Int
    }

    public let file: String
    /// Full key ("section.key", or "key" before any section) → entry, in file order.
    public private(set) var entries: [(key: String, entry: Entry)] = []

    public func entry(_ key: String) -> Entry? { entries.first { $0.key == key }?.entry }

    public init(file: String, text: String) throws(ProfileError) {
        self.file = file
        var section = ""
        var seen = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            func fail(_ message: String, key: String? = nil) -> ProfileError {
                ProfileError(file: file, line: lineNumber, key: key, message: message)
            }
            var scanner = Scanner(Array(rawLine.unicodeScalars))
            scanner.skipSpaces()
            if scanner.atEndOrComment { continue }
            if scanner.peek == "[" {
                scanner.advance()
                scanner.skipSpaces()
                let name = scanner.bareKey()
                scanner.skipSpaces()
                guard !name.isEmpty, scanner.peek == "]" else { throw fail("a section header looks like [name]") }
                scanner.advance()
                scanner.skipSpaces()
                guard scanner.atEndOrComment else { throw fail("unexpected text after the section header") }
                section = name
                continue
            }
            let name = scanner.bareKey()
            guard !name.isEmpty else { throw fail("expected `key = value`") }
            let key = section.isEmpty ? name : section + "." + name
            scanner.skipSpaces()
            guard scanner.peek == "=" else { throw fail("expected `=` after the key", key: key) }
            scanner.advance()
            scanner.skipSpaces()
            let value: ProfileValue
            do { value = try scanner.value() } catch { throw fail(error.message, key: key) }
            scanner.skipSpaces()
            guard scanner.atEndOrComment else { throw fail("unexpected text after the value", key: key) }
            guard seen.insert(key).inserted else { throw fail("set twice", key: key) }
            entries.append((key, Entry(value: value, line: lineNumber)))
        }
    }
}

private struct ParseFailure: Error { let message: String }

/// A cursor over one line.
private struct Scanner {
    let chars: [Unicode.Scalar]
    var position = 0
    init(_ chars: [Unicode.Scalar]) { self.chars = chars }

    var peek: Unicode.Scalar? { position < chars.count ? chars[position] : nil }
    mutating func advance() { position += 1 }
    var atEndOrComment: Bool { peek == nil || peek == "#" || peek == "\r" }

    mutating func skipSpaces() {
        while let c = peek, c == " " || c == "\t" { advance() }
    }

    mutating func bareKey() -> String {
        var key = ""
        while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-" || c == "." {
            key.unicodeScalars.append(c)
            advance()
        }
        return key
    }

    mutating func value() throws(ParseFailure) -> ProfileValue {
        guard let c = peek else { throw ParseFailure(message: "a value is missing") }
        switch c {
        case "\"": return .string(try string())
        case "[": return .array(try array())
        default:
            var word = ""
            while let c = peek, !" \t#,]\r".unicodeScalars.contains(c) {
                word.unicodeScalars.append(c)
                advance()
            }
            if word == "true" { return .bool(true) }
            if word == "false" { return .bool(false) }
            if let number = Double(word.replacingUnderscores()), number.isFinite { return .number(number) }
            throw ParseFailure(message: "`\(word)` is not a value (write text in \"quotes\")")
        }
    }

    private mutating func string() throws(ParseFailure) -> String {
        advance()
        var text = ""
        while let c = peek {
            advance()
            switch c {
            case "\"": return text
            case "\\":
                guard let escaped = peek else { break }
                advance()
                switch escaped {
                case "n": text += "\n"
                case "t": text += "\t"
                case "\"", "\\": text.unicodeScalars.append(escaped)
                default: throw ParseFailure(message: "unknown escape \\\(escaped) in a string")
                }
            default: text.unicodeScalars.append(c)
            }
        }
        throw ParseFailure(message: "a string is missing its closing quote")
    }

    private mutating func array() throws(ParseFailure) -> [ProfileValue] {
        advance()
        var items: [ProfileValue] = []
        while true {
            skipSpaces()
            if peek == "]" { advance(); return items }
            items.append(try value())
            skipSpaces()
            if peek == "," { advance(); continue }
            if peek == "]" { advance(); return items }
            throw ParseFailure(message: "a list is written [a, b, c] on one line")
        }
    }
}

extension String {
    /// TOML allows 1_000 for readability.
    fileprivate func replacingUnderscores() -> String { String(unicodeScalars.filter { $0 != "_" }) }
}
