import SonicCore

/// An element of the XML header Bruker's files carry: name, attributes, the text directly inside
/// and the elements inside.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    fileprivate(set) var text = ""
    fileprivate(set) var children: [XMLNode] = []

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The first child named `name` (and, if given, whose `Type` attribute is `type`).
    func child(_ name: String, type: String? = nil) -> XMLNode? {
        children.first { $0.name == name && (type == nil || $0.attributes["Type"] == type) }
    }

    func children(_ name: String, type: String) -> [XMLNode] {
        children.filter { $0.name == name && $0.attributes["Type"] == type }
    }

    /// A child's text as a number; Bruker's software writes some with a decimal comma.
    func number(_ name: String) -> Double? {
        guard let text = child(name)?.text.trimmingWhitespace, !text.isEmpty else { return nil }
        return Double(text) ?? Double(text.replacing(",", with: "."))
    }

    /// The XML document `bytes` hold (Bruker writes Windows-1252, read here as Latin-1: the two
    /// differ only in characters no value read here uses), as its root element.
    static func parse(_ bytes: [UInt8]) throws(ImageFileError) -> XMLNode {
        var parser = Parser(bytes: bytes)
        return try parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0
        var open: [XMLNode] = []
        var root: XMLNode?

        static let deepest = 256

        mutating func document() throws(ImageFileError) -> XMLNode {
            while at < bytes.count {
                if bytes[at] == UInt8(ascii: "<") {
                    try markup()
                } else {
                    let end = bytes[at...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                    if let current = open.last { current.text += Self.unescaped(bytes[at..<end]) }
                    at = end
                }
            }
            guard open.isEmpty, let root else { throw ImageFileError("its XML header ends before it closes") }
            return root
        }

        private mutating func markup() throws(ImageFileError) {
            if starts("<?") { return try skip(past: "?>") }
            if starts("<!--") { return try skip(past: "-->") }
            if starts("<![CDATA[") {
                let start = at + 9
                try skip(past: "]]>")
                open.last?.text += Self.text(bytes[start..<(at - 3)])
                return
            }
            if starts("<!") { return try skip(past: ">") }
            if starts("</") {
                at += 2
                let name = self.name()
                try skip(past: ">")
                guard let current = open.popLast(), current.name == name else {
                    throw ImageFileError("its XML header closes \(name) where it is not open")
                }
                return
            }
            at += 1
            let node = XMLNode(name: name(), attributes: try attributes())
            guard !node.name.isEmpty else { throw ImageFileError("its XML header has an element without a name") }
            if let parent = open.last {
                parent.children.append(node)
            } else {
                guard root == nil else { throw ImageFileError("its XML header has two roots") }
                root = node
            }
            if starts("/>") {
                at += 2
            } else {
                guard starts(">") else { throw ImageFileError("its XML header has an unclosed tag") }
                at += 1
                open.append(node)
                guard open.count <= Self.deepest else { throw ImageFileError("its XML header nests too deep") }
            }
        }

        private mutating func attributes() throws(ImageFileError) -> [String: String] {
            var attributes: [String: String] = [:]
            while true {
                skipSpaces()
                guard at < bytes.count else { throw ImageFileError("its XML header ends inside a tag") }
                if bytes[at] == UInt8(ascii: ">") || starts("/>") { return attributes }
                let key = name()
                skipSpaces()
                guard !key.isEmpty, starts("=") else { throw ImageFileError("its XML header has a broken attribute") }
                at += 1
                skipSpaces()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'"),
                    let end = bytes[(at + 1)...].firstIndex(of: bytes[at])
                else { throw ImageFileError("its XML header has a broken attribute") }
                attributes[key] = Self.unescaped(bytes[(at + 1)..<end])
                at = end + 1
            }
        }

        private mutating func name() -> String {
            let start = at
            while at < bytes.count, !Self.endsName(bytes[at]) { at += 1 }
            return Self.text(bytes[start..<at])
        }

        private static func endsName(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "=")
        }

        private mutating func skipSpaces() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D {
                at += 1
            }
        }

        private func starts(_ text: String) -> Bool {
            let wanted = Array(text.utf8)
            return at + wanted.count <= bytes.count && bytes[at..<(at + wanted.count)].elementsEqual(wanted)
        }

        private mutating func skip(past end: String) throws(ImageFileError) {
            let wanted = Array(end.utf8)
            var index = at
            while index + wanted.count <= bytes.count {
                if bytes[index..<(index + wanted.count)].elementsEqual(wanted) {
                    at = index + wanted.count
                    return
                }
                index += 1
            }
            throw ImageFileError("its XML header ends inside a tag")
        }

        /// Latin-1: each byte is the character of that number.
        private static func text(_ raw: ArraySlice<UInt8>) -> String {
            if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
            return String(String.UnicodeScalarView(raw.lazy.map { Unicode.Scalar($0) }))
        }

        private static func unescaped(_ raw: ArraySlice<UInt8>) -> String {
            var text = Self.text(raw)
            guard text.contains("&") else { return text }
            for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")]
            {
                text = text.replacing(entity, with: character)
            }
            return text
        }
    }
}

/// Base64, as Bruker stores its images in the XML header; white space is passed over.
enum Base64 {
    static func decode(_ text: String) throws(ImageFileError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count / 4 * 3)
        var group: UInt32 = 0
        var filled = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="), 0x20, 0x09, 0x0A, 0x0D: continue
            default: throw ImageFileError("an image in its XML header is not base64")
            }
            group = group << 6 | value
            filled += 1
            if filled == 4 {
                output += [UInt8(group >> 16), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)]
                group = 0
                filled = 0
            }
        }
        if filled == 3 {
            output += [UInt8(group >> 10), UInt8(group >> 2 & 0xFF)]
        } else if filled == 2 {
            output.append(UInt8(group >> 4))
        }
        return output
    }
}
