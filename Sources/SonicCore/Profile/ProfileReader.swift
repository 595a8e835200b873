/// Typed, range-checked reads from a document, remembering which keys were used. Each key's default and the values
/// it allows come from its entry in `ProfileKeys`.
struct ProfileReader {
    let document: ProfileDocument
    private var used = Set<String>()

    init(_ document: ProfileDocument) { self.document = document }

    func error(_ key: String, _ message: String) -> ProfileError {
        ProfileError(file: document.file, line: document.entry(key)?.line, key: key, message: message)
    }

    func has(_ key: String) -> Bool { document.entry(key) != nil }

    /// The table's entry for a key the program reads: one missing there is a mistake in the program, not the file.
    private static func definition(_ key: String) -> ProfileKey {
        guard let definition = ProfileKeys.named(key) else { preconditionFailure("\(key) is not in ProfileKeys") }
        return definition
    }

    mutating func bool(_ key: String) throws(ProfileError) -> Bool {
        guard case .bool(let fallback)? = Self.definition(key).defaultValue else {
            preconditionFailure("\(key) is not true or false in ProfileKeys")
        }
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .bool(let value) = entry.value else {
            throw error(key, "must be true or false, not \(entry.value.typeName)")
        }
        return value
    }

    mutating func number(_ key: String) throws(ProfileError) -> Double {
        let definition = Self.definition(key)
        guard case .number(let fallback)? = definition.defaultValue, case .number(let range, _) = definition.allowed
        else {
            preconditionFailure("\(key) is not a number in ProfileKeys")
        }
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .number(let value) = entry.value else {
            throw error(key, "must be a number, not \(entry.value.typeName)")
        }
        guard range.contains(value) else {
            throw error(
                key, "must be between \(range.lowerBound.compact) and \(range.upperBound.compact), not \(value.compact)"
            )
        }
        return value
    }

    /// A list of exactly as many numbers as the key takes, each in its range.
    mutating func numbers(_ key: String) throws(ProfileError) -> [Double] {
        let definition = Self.definition(key)
        guard case .array(let defaults)? = definition.defaultValue,
            case .numbers(let count, let range) = definition.allowed
        else { preconditionFailure("\(key) is not a list of numbers in ProfileKeys") }
        used.insert(key)
        guard let entry = document.entry(key) else { return defaults.compactMap(\.number) }
        let shape = "a list of \(count) numbers between \(range.lowerBound.compact) and \(range.upperBound.compact)"
        guard case .array(let items) = entry.value, items.count == count else { throw error(key, "must be \(shape)") }
        var values: [Double] = []
        for item in items {
            guard case .number(let v) = item, range.contains(v) else { throw error(key, "must be \(shape)") }
            values.append(v)
        }
        return values
    }

    /// Free text (or a voice name).
    mutating func text(_ key: String) throws(ProfileError) -> String {
        guard case .string(let fallback)? = Self.definition(key).defaultValue else {
            preconditionFailure("\(key) is not text in ProfileKeys")
        }
        return try string(key, default: fallback, allowed: nil)
    }

    /// One of the words the key allows.
    mutating func choice(_ key: String) throws(ProfileError) -> String {
        let definition = Self.definition(key)
        guard case .string(let fallback)? = definition.defaultValue, case .choice(let allowed) = definition.allowed
        else {
            preconditionFailure("\(key) is not a choice in ProfileKeys")
        }
        return try string(key, default: fallback, allowed: allowed)
    }

    private mutating func string(_ key: String, default fallback: String, allowed: [String]?) throws(ProfileError)
        -> String
    {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .string(let value) = entry.value else {
            throw error(key, "must be a \"string\", not \(entry.value.typeName)")
        }
        if let allowed, !allowed.contains(value) {
            throw error(key, "must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return value
    }

    /// A list of the words the key allows, none twice.
    mutating func words(_ key: String) throws(ProfileError) -> [String] {
        let definition = Self.definition(key)
        guard case .array(let defaults)? = definition.defaultValue, case .words(let allowed, _) = definition.allowed
        else {
            preconditionFailure("\(key) is not a list of words in ProfileKeys")
        }
        used.insert(key)
        guard let entry = document.entry(key) else { return defaults.compactMap(\.string) }
        guard case .array(let items) = entry.value else {
            throw error(key, "must be a list like [\"\(allowed[0])\"], not \(entry.value.typeName)")
        }
        var words: [String] = []
        for item in items {
            guard case .string(let word) = item, allowed.contains(word) else {
                throw error(key, "each item must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            guard !words.contains(word) else { throw error(key, "\"\(word)\" appears twice") }
            words.append(word)
        }
        return words
    }

    /// A pixel size like "9.33pm", or nil when the key is absent.
    mutating func pixelSize(_ key: String) throws(ProfileError) -> PixelSize? {
        guard Self.definition(key).allowed == .pixelSize else {
            preconditionFailure("\(key) is not a pixel size in ProfileKeys")
        }
        let text = try string(key, default: "", allowed: nil)
        if text.isEmpty { return nil }
        guard let size = PixelSize(text) else {
            throw error(key, "must be a size like \"9.33pm\", \"0.933nm\" or \"9.33Å\"")
        }
        return size
    }

    /// Throws for the first of `keys` the document sets although it applies only when another key has a value
    /// other than `value`, the value that key has.
    func rejectInapplicable(_ keys: [String], given value: String) throws(ProfileError) {
        for key in keys where has(key) {
            guard case .when(let other, let required)? = Self.definition(key).condition, required != value else {
                continue
            }
            let otherName = ProfileKeys.named(other)?.shortName ?? other
            throw error(key, "applies with \(otherName) = \"\(required)\"")
        }
    }

    func hasSection(_ section: String) -> Bool { firstKey(in: section) != nil }

    func firstKey(in section: String) -> String? {
        document.entries.first { $0.key.hasPrefix(section + ".") }?.key
    }

    func rejectUnknownKeys() throws(ProfileError) {
        if let unknown = document.entries.first(where: { !used.contains($0.key) }) {
            throw error(unknown.key, "unknown key")
        }
    }
}

extension ProfileValue {
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
}

extension Double {
    /// 110 rather than 110.0 in messages.
    var compact: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
