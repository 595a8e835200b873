import Foundation
import Testing

@testable import SonicCore

/// The binding table against itself, the help written from it, and the manual written by hand.
@Suite struct BindingsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func document(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func everyInputGivesOneCommandInEachMode() {
        for mode in Mode.allCases {
            var seen: Set<Binding.Input> = []
            for binding in Bindings.table where binding.modes.includes(mode) {
                #expect(seen.insert(binding.input).inserted, "\(binding.input) is bound twice in \(mode)")
            }
        }
        #expect(Bindings.command(for: .key("Left"), in: .unitCellTagging) == .stepCursor(.left))
        #expect(Bindings.command(for: .key("Left"), in: .tiltFilter) == .pan(.left))
        #expect(Bindings.command(for: .key("Enter"), in: .intensityPitch) == .lessonAnswer)
        #expect(Bindings.command(for: .pen(.upperBarrelPress), in: .unitCellTagging) == .removeLastTag)
        #expect(Bindings.command(for: .pen(.upperBarrelPress), in: .pressureAmplitude) == .repeatLast)
        #expect(Bindings.command(for: .key("7"), in: .intensityPitch) == .chooseMode(7))
    }

    @Test func eachLineOfTheHelpHasTheKeysOfOneScope() {
        for (action, bindings) in Bindings.groups {
            #expect(Set(bindings.filter(\.isKey).map(\.modes)).count <= 1, "\(action)")
        }
    }

    @Test func theHelpNamesEveryListedBinding() {
        #expect(Bindings.label(["Escape", "Q"], spoken: true) == "Escape or Q")
        #expect(Bindings.label(["1", "2", "3", "4"], spoken: true) == "1 to 4")
        #expect(Bindings.label(["1", "2", "3", "4"], spoken: false) == "1-4")
        #expect(Bindings.label(Bindings.arrowKeys, spoken: false) == "Arrow keys")
        #expect(Bindings.label(["+", "="], spoken: true) == "Plus or equals")
        for spoken in [true, false] {
            let help = Bindings.help(spoken: spoken)
            #expect(help.hasPrefix("Keys. Tab: next mode. "))
            #expect(help.unicodeScalars.allSatisfy { $0.isASCII }, "the help is printed by --help too")
            for (action, bindings) in Bindings.groups {
                let keys = bindings.compactMap(\.keyName)
                if let first = bindings.first(where: \.isKey) {
                    #expect(
                        help.contains("\(Bindings.label(keys, spoken: spoken))\(first.modes.qualifier): \(action)."))
                }
                for binding in bindings {
                    guard case .pen(let gesture) = binding.input else { continue }
                    #expect(
                        help.localizedCaseInsensitiveContains("\(gesture.name)\(binding.modes.qualifier): \(action)."))
                }
            }
        }
    }

    /// F1 speaks the keys in pages of at most 80 words, this mode's and this image's first; all the pages together
    /// hold every listed key and pen gesture.
    @Test func theSpokenHelpComesInShortPagesTheKeysWantedHereFirst() {
        for mode in Mode.allCases {
            for (frames, spectra) in [(false, false), (true, false), (false, true)] {
                let pages = Bindings.helpPages(mode: mode, frames: frames, spectra: spectra)
                #expect(pages.count > 2 && pages[0].hasPrefix("Keys. "))
                for page in pages { #expect(page.split(separator: " ").count <= Bindings.wordsPerPage, "\(page)") }
                let all = pages.joined(separator: " ")
                for group in Bindings.groups { #expect(all.contains(group.action), "\(group.action)") }
                if frames { #expect(pages[0].contains("play the next frame")) }
                if spectra { #expect(pages[0].contains("energy window")) }
                if mode == .unitCellTagging { #expect(pages[0].contains("tag the column")) }
                #expect(pages[0].contains("Control: stop speaking"))
            }
        }
    }

    /// The inputs a cell of a manual table names: `keys` in backquotes (`1` … `4` a run of them),
    /// "arrow keys", and pen gestures by the name the help gives them.
    static func inputs(inKeys keys: String, pen: String) throws -> [Binding.Input] {
        var names = keys.matches(of: try Regex("`([^`]+)`")).compactMap { $0.output[1].substring.map(String.init) }
        if let run = keys.firstMatch(of: try Regex("`([0-9])` … `([0-9])`")),
            let first = run.output[1].substring.flatMap({ Int($0) }),
            let last = run.output[2].substring.flatMap({ Int($0) })
        {
            names += (first...last).map(String.init)
        }
        if keys.contains("arrow keys") { names += Bindings.arrowKeys }
        var rest = pen
        var gestures: [PenGesture] = []
        // Longest names first: "click the lower barrel button" is inside "double click …".
        for gesture in PenGesture.allCases.sorted(by: { $0.name.count > $1.name.count })
        where rest.contains(gesture.name) {
            gestures.append(gesture)
            rest = rest.replacingOccurrences(of: gesture.name, with: "")
        }
        return Array(Set(names)).sorted().map { .key($0) } + gestures.map { .pen($0) }
    }

    /// The binding an input of a manual's row stands for: the one of the row's modes when the input
    /// does different things in and outside tagging mode.
    static func binding(_ input: Binding.Input, row: String) -> Binding? {
        let candidates = Bindings.table.filter { $0.input == input }
        guard candidates.count > 1 else { return candidates.first }
        let scope: ModeScope =
            row.contains("outside the column modes")
            ? .pixelModes
            : row.contains("in the column modes")
                ? .columnModes
                : row.contains("outside tagging mode") || row.contains("other modes")
                    ? .others
                    : row.contains("tagging mode") ? .tagging : .all
        return candidates.first { $0.modes == scope }
    }

    /// The rows of the markdown table under `heading` in `text`, split into cells.
    static func tableRows(in text: String, under heading: String) -> [[String]] {
        guard let start = text.range(of: heading) else { return [] }
        let lines = text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return lines.dropFirst(2).map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func theManualsKeyTableIsTheBindingTable() throws {
        let rows = Self.tableRows(in: try Self.document("docs/usage.md"), under: "## Pen buttons and keys")
        #expect(rows.count > 10)
        var rowOfAction: [String: Int] = [:]
        var covered: [String: Set<Binding.Input>] = [:]
        for (index, row) in rows.enumerated() {
            let text = row.joined(separator: " ")
            for input in try Self.inputs(inKeys: row[2], pen: row[1]) {
                let found = Self.binding(input, row: text)
                #expect(found != nil, "docs/usage.md names \(input), which is not bound: \(text)")
                guard let found else { continue }
                #expect(
                    rowOfAction[found.action, default: index] == index,
                    "\(found.action) is on two rows of docs/usage.md")
                rowOfAction[found.action] = index
                covered[found.action, default: []].insert(input)
            }
        }
        for (action, bindings) in Bindings.groups {
            #expect(covered[action] == Set(bindings.map(\.input)), "docs/usage.md lacks a binding to \(action)")
        }
    }

    @Test func theReadmeNamesOnlyBoundKeys() throws {
        let rows = Self.tableRows(in: try Self.document("README.md"), under: "## A first session")
        var named = 0
        for row in rows {
            for input in try Self.inputs(inKeys: row[2], pen: row[1]) {
                named += 1
                #expect(Bindings.table.contains { $0.input == input }, "README names \(input), which is not bound")
            }
        }
        #expect(named > 8)
    }

    @Test func theManualPagesKeysAreTheListedKeys() throws {
        let text = try Self.document("docs/manual-sections.mdoc")
        let section = try #require(
            text.components(separatedBy: ".Sh KEYS\n").last?.components(separatedBy: "\n.Sh ").first)
        var named: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix(".It ") {
            let item = line.dropFirst(4)
            if item == "Arrow keys" { named.formUnion(Bindings.arrowKeys); continue }
            let words = item.split(separator: " ").map(String.init).filter { $0 != "," }
            if words.count == 3, words[1] == "...", let first = Int(words[0]), let last = Int(words[2]) {
                named.formUnion((first...last).map(String.init))
            } else {
                named.formUnion(words)
            }
        }
        #expect(named == Set(Bindings.table.filter(\.listed).compactMap(\.keyName)))
    }
}
