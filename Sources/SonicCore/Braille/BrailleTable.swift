/// A message naming several tags, as a table for a display of several rows: what comes before them, one tag a line
/// with its columns aligned (numbers to the right), and what follows them; a routing key on a tag's line guides the
/// pen there.
public enum BrailleTable {
    /// The table of `text` (a message as the display writes it), or nil when it names fewer than two tags.
    public static func tags(_ text: String, targets: [BrailleTarget]) -> [BrailleTableRow]? {
        let characters = Array(text)
        let tags = targets.filter { if case .guideToTag = $0.action { true } else { false } }
            .sorted { $0.characters.lowerBound < $1.characters.lowerBound }
        guard tags.count >= 2, let first = tags.first, first.characters.lowerBound <= characters.count else {
            return nil
        }
        func trimmed(_ part: ArraySlice<Character>) -> String {
            var line = String(part).trimmingSpaces
            while line.hasSuffix(".") { line.removeLast() }
            return line
        }
        var footer: [String] = []
        var lines: [[String]] = []
        for tag in tags {
            let range = max(0, tag.characters.lowerBound)..<min(characters.count, tag.characters.upperBound)
            guard !range.isEmpty else { return nil }
            // A sentence after the last tag's own (tags still being placed, the unit cell) is a line of its own.
            var own = trimmed(characters[range])
            if let end = own.firstRange(of: ". ") {
                footer.append(trimmed(ArraySlice(own[end.upperBound...])))
                own = String(own[..<end.lowerBound])
            }
            lines.append(own.split(separator: " ").map(String.init))
        }
        let aligned = align(lines)
        let header = trimmed(characters[0..<first.characters.lowerBound])
        return (header.isEmpty ? [] : [BrailleTableRow(header)])
            + zip(aligned, tags).map { BrailleTableRow($0, action: $1.action) }
            + footer.filter { !$0.isEmpty }.map { BrailleTableRow($0) }
    }

    /// The overview's details and the tags as a multi-line display's text lines show them, each part a message as
    /// the display writes it with the places a routing key acts on: each detail a line (routed to what it names),
    /// then the tags, one a line with their columns aligned (routed to the tag) — or their one line when they are
    /// fewer than two.
    public static func sheet(details: [BrailleMessage], tags: BrailleMessage) -> BrailleMessage {
        var text = "", targets: [BrailleTarget] = []
        for part in details + [tags] {
            let offset = text.isEmpty ? 0 : text.count + 1
            text += (text.isEmpty ? "" : " ") + part.text
            targets += part.targets.map {
                BrailleTarget(
                    characters: ($0.characters.lowerBound + offset)..<($0.characters.upperBound + offset),
                    action: $0.action)
            }
        }
        let detailRows = details.map { BrailleTableRow($0.text, action: $0.targets.first?.action) }
        let tagRows =
            Self.tags(tags.text, targets: tags.targets) ?? [
                BrailleTableRow(tags.text, action: tags.targets.first?.action)
            ]
        return BrailleMessage(text, targets: targets, table: detailRows + tagRows)
    }

    /// Lines of words, each column padded to its widest: numbers to the right, words to the left. Lines of
    /// different numbers of words stay as they are.
    static func align(_ lines: [[String]]) -> [String] {
        guard let count = lines.first?.count, lines.allSatisfy({ $0.count == count }) else {
            return lines.map { $0.joined(separator: " ") }
        }
        let widths = (0..<count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { words in
            words.enumerated().map { column, word in
                let padding = String(repeating: " ", count: widths[column] - word.count)
                return word.first.map { $0.isNumber || $0 == "-" } == true ? padding + word : word + padding
            }.joined(separator: " ")
        }
    }
}

extension String {
    /// Without blanks at either end.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
