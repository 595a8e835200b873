/// The written form of an announcement on a braille display, as braille readers write: values first and units
/// short, no words a reader does not need ("Tag 3 at x 97.8, y 92.9, intensity 100 percent." is
/// `Tag 3 x 97.8 y 92.9 100%`; "Unit cell: a 390.5 picometres, b 391.2 picometres, gamma 89.7 degrees." is
/// `Cell a 390.5pm b 391.2pm γ 89.7°`).
public enum BrailleText {
    /// A spoken announcement written compactly.
    public static func compact(_ spoken: String) -> String {
        var text = spoken
        for (long, short) in phrases { text = text.replacing(long, with: short) }
        // The level's name, before its value: the percent sign says it.
        text = text.replacing(#/intensity (\d)/#, with: { "\($0.output.1)" })
        for (word, symbol) in units { text = text.replacing(word, with: { "\($0.output.1)\(symbol)" }) }
        // Commas cost a cell each and say nothing a space does not.
        text = text.replacing(", ", with: " ")
        while text.hasSuffix(".") || text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// Words that say what a value is where its place or unit already does.
    static let phrases: [(String, String)] = [
        ("Unit cell: ", "Cell "), (" at x ", " x "), ("gamma ", "γ "), ("Column at x ", "Column x ")
    ]

    /// A unit's words after a number, to its symbol: the units frames are placed in (as `Phrases` says them), and
    /// those of lengths, levels and energies.
    // A Regex is never changed once made; it is only not declared Sendable.
    nonisolated(unsafe) static let units: [(Regex<(Substring, Substring)>, String)] = {
        var symbols: [String: String] = [
            "percent": "%", "pixel": "px", "pixels": "px", "kilo electron volts": "keV", "electron volts": "eV",
            "per nanometre": "/nm"
        ]
        // Of two symbols for one unit (µm and um), the shorter, then the one that is not plain ASCII.
        for (symbol, (one, many)) in Phrases.axisUnits.sorted(by: { $0.key < $1.key }) {
            for word in [one, many] {
                if let other = symbols[word],
                    other.count < symbol.count || (other.count == symbol.count && !other.allSatisfy(\.isASCII))
                {
                    continue
                }
                symbols[word] = symbol
            }
        }
        // Longer words first, so "degrees Celsius" is not read as "degrees".
        return symbols.sorted { ($0.key.count, $0.key) > ($1.key.count, $1.key) }.map { word, symbol in
            (try! Regex("([0-9]) \(word)\\b", as: (Substring, Substring).self), symbol)
        }
    }()
}
