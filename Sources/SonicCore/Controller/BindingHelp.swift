/// The help, written from the binding table: spoken after F1, printed by `play --help`.
extension Bindings {
    /// The listed bindings grouped by what they do, in the table's order: one line of the help each.
    public static var groups: [(action: String, bindings: [Binding])] {
        var actions: [String] = []
        var members: [String: [Binding]] = [:]
        for binding in table where binding.listed {
            if members[binding.action] == nil { actions.append(binding.action) }
            members[binding.action, default: []].append(binding)
        }
        return actions.map { ($0, members[$0, default: []]) }
    }

    /// "Keys. Tab: next mode. … Pen. Double click the lower barrel button: next mode. …", with the
    /// keys named as a voice says them or as they are written.
    public static func help(spoken: Bool) -> String {
        (["Keys."] + keyLines(spoken: spoken).map(\.text) + ["Pen."] + penLines).joined(separator: " ")
    }

    /// One line a group of keys that do the same, in the table's order, with the binding that leads the group.
    static func keyLines(spoken: Bool) -> [(binding: Binding, text: String)] {
        groups.compactMap { action, bindings in
            let keys = bindings.filter(\.isKey)
            guard let first = keys.first else { return nil }
            return (first, "\(label(keys.compactMap(\.keyName), spoken: spoken))\(first.modes.qualifier): \(action).")
        }
    }

    /// One line a listed pen gesture, in the table's order.
    static var penLines: [String] {
        table.filter(\.listed).compactMap { binding in
            guard case .pen(let gesture) = binding.input else { return nil }
            return
                "\(gesture.name.prefix(1).uppercased() + gesture.name.dropFirst())\(binding.modes.qualifier): \(binding.action)."
        }
    }

    /// What a key that does nothing in `mode` says: where it does something ("Enter: tag the column, in tagging mode
    /// only."), or that it does nothing at all.
    public static func doesNothing(key: String, in mode: Mode) -> String {
        let spoken = label([key], spoken: true)
        guard let elsewhere = table.first(where: { $0.input == .key(key) && !$0.modes.includes(mode) }) else {
            return "\(spoken) does nothing. F1 says the keys."
        }
        return "\(spoken): \(elsewhere.action)\(elsewhere.modes.qualifier) only."
    }

    /// About this many words a page of F1's help: half a minute of a voice, what a listener keeps.
    public static let wordsPerPage = 80

    /// F1's help in pages of at most `wordsPerPage` words, the keys most wanted first: those of `mode` and of
    /// the image's kind (a stack's frames, a spectrum image's window) or of a lesson, then those every session
    /// uses; the other keys and the pen on the next pages.
    public static func helpPages(mode: Mode, frames: Bool, spectra: Bool, lesson: Bool = false) -> [String] {
        // What every session uses, in the order a newcomer wants it: speech under the hand first.
        let everyday: [Command] = [
            .silence, .escape, .whereAmI, .nextMode, .chooseMode(1), .repeatLast, .describe, .nextFeature, .keyHelp,
            .quit
        ]
        func rank(_ binding: Binding) -> Int {
            switch binding.command {
            case .nextFrame, .previousFrame, .firstFrame, .lastFrame: return frames ? 0 : 200
            case .windowDown, .windowUp, .windowNarrower, .windowWider: return spectra ? 0 : 200
            case .lessonAnswer, .lessonRepeat, .lessonSkip: return lesson ? 0 : 200
            case .startLesson: return lesson ? 200 : 100
            case .nextLine, .previousLine: return spectra ? 50 : 200
            case .chooseMode: return 1 + everyday.firstIndex(of: .chooseMode(1))!
            default:
                if let place = everyday.firstIndex(of: binding.command) { return 1 + place }
                let own = binding.modes == .tagging || binding.modes == .columnModes
                return own && binding.modes.includes(mode) ? 0 : 100
            }
        }
        var ordered = keyLines(spoken: true).enumerated()
            .sorted { (rank($0.element.binding), $0.offset) < (rank($1.element.binding), $1.offset) }
            .map(\.element.text)
        let pen = ["Pen."] + penLines
        ordered[0] = "Keys. " + ordered[0]
        var pages: [String] = []
        var page: [String] = []
        for line in ordered + pen {
            let words = (page + [line]).joined(separator: " ").split(separator: " ").count
            if !page.isEmpty, words > wordsPerPage - 6 {
                pages.append((page + ["F1 for more."]).joined(separator: " "))
                page = []
            }
            page.append(line)
        }
        pages.append((page + ["That is all; F1 starts again."]).joined(separator: " "))
        return pages
    }

    /// How keys doing the same are named together: "Escape or Q", "Arrow keys", "1 to 4" ("1-4" written).
    public static func label(_ keys: [String], spoken: Bool) -> String {
        if keys == arrowKeys { return "Arrow keys" }
        let digits = keys.compactMap { Int($0) }
        if digits.count == keys.count, digits.count > 2, let first = digits.first, let last = digits.last,
            digits == Array(first...last)
        {
            return "\(first)\(spoken ? " to " : "-")\(last)"
        }
        return keys.map { spoken ? spokenNames[$0] ?? $0 : $0 }.joined(separator: " or ")
    }

    /// Keys whose written names a voice would misread or skip.
    static let spokenNames = [
        "Shift+Tab": "Shift Tab", "Shift+X": "Shift X", "Shift+N": "Shift N", "BackSpace": "Backspace", "+": "Plus",
        "=": "equals", "-": "Minus",
        "Ctrl++": "Control plus", "Ctrl+=": "Control equals", "Ctrl+-": "Control minus", "PageUp": "Page Up",
        "PageDown": "Page Down", "Shift+Enter": "Shift Enter", "Ctrl+Enter": "Control Enter"
    ]
}

extension Binding {
    public var isKey: Bool { keyName != nil }

    /// The key's name, for a key binding.
    public var keyName: String? {
        if case .key(let name) = input { name } else { nil }
    }
}
