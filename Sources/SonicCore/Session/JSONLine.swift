/// Builds one JSON object, fields in the order they are added (the log's documented order).
public struct JSONLine {
    private var text = "{"

    public init() {}

    /// A session-log record: its type and time first.
    public init(type: String, t: Double) {
        add("type", type)
        add("t", t)
    }

    public mutating func add(_ key: String, _ value: String) { field(key, Self.quoted(value)) }
    public mutating func add(_ key: String, _ value: Int) { field(key, String(value)) }
    public mutating func add(_ key: String, _ value: Bool) { field(key, value ? "true" : "false") }
    public mutating func add(_ key: String, _ value: [Int]) {
        field(key, "[" + value.map(String.init).joined(separator: ",") + "]")
    }
    public mutating func add(_ key: String, _ value: Double) { field(key, Self.number(value)) }

    /// Shortest text that reads back as the same Double; JSON has no NaN or infinity, so those are null.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    public var result: String { text + "}" }

    private mutating func field(_ key: String, _ json: String) {
        if text.count > 1 { text += "," }
        text += Self.quoted(key) + ":" + json
    }

    /// A JSON string literal.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
