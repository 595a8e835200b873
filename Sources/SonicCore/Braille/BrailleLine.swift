/// A message on the braille display: its written form, and the places on it a routing key acts on.
public struct BrailleMessage: Sendable, Equatable {
    public var text: String
    public var targets: [BrailleTarget]
    /// On a display of several rows, the message as a table instead: a row a line.
    public var table: [BrailleTableRow]?

    public init(_ text: String, targets: [BrailleTarget] = [], table: [BrailleTableRow]? = nil) {
        self.text = text
        self.targets = targets
        self.table = table
    }
}

/// A line of a message shown as a table, and what a routing key on it does.
public struct BrailleTableRow: Sendable, Equatable {
    public var text: String
    public var action: BrailleAction?

    public init(_ text: String, action: BrailleAction? = nil) {
        self.text = text
        self.action = action
    }
}

/// Characters of a message (from 0) and what a routing key over them does.
public struct BrailleTarget: Sendable, Equatable {
    public var characters: Range<Int>
    public var action: BrailleAction

    public init(characters: Range<Int>, action: BrailleAction) {
        self.characters = characters
        self.action = action
    }
}

/// What a routing key asks for.
public enum BrailleAction: Sendable, Equatable {
    /// Guide the pen to the tag with this id.
    case guideToTag(Int)
    /// Guide the pen to the overview's feature at this index.
    case guideToFeature(Int)
}

/// The text a braille display shows, read at the user's pace: each announcement, newest first, in its written form;
/// long ones panned a display's width at a time with the pan keys, at word boundaries; earlier ones walked with line
/// up and down; the status line when nothing new has been said for a while. A message that arrives while the user
/// reads an earlier one, or a later part of one, does not move them: a mark in the last cell says it is there, and
/// the newest key (or walking down) reaches it.
public struct BrailleLine: Sendable {
    /// How many messages are kept for review.
    public static let kept = 200
    /// The mark of a message not yet read: all eight dots.
    public static let unreadMark: Character = "\u{28FF}"

    /// How long a message stays before the status line takes its place (0: until the next message).
    public var messageSeconds: Double
    /// Whether the status line is shown at all.
    public var showsStatus: Bool
    public private(set) var history: [BrailleMessage] = []
    /// The message read (an index of `history`); nil: the newest, or the status line after it.
    private var reading: Int?
    /// The display's page of the message read.
    private var page = 0
    /// Until when the message read stays rather than the status line.
    private var heldUntil = 0.0
    /// The user walked below the newest message, to the status line.
    private var atStatus = false
    /// A message arrived while the user read an earlier place.
    public private(set) var unread = false

    public init(messageSeconds: Double, showsStatus: Bool) {
        self.messageSeconds = messageSeconds
        self.showsStatus = showsStatus
    }

    /// A new announcement, at `time`; one `continuing` the newest (said once it has been) is written on after it, so
    /// the greeting is not taken away by what follows it.
    public mutating func add(_ message: BrailleMessage, continuing: Bool = false, at time: Double) {
        if continuing, var last = history.last {
            let offset = last.text.count + 1
            last.text += " " + message.text
            last.table = nil
            last.targets += message.targets.map {
                BrailleTarget(
                    characters: ($0.characters.lowerBound + offset)..<($0.characters.upperBound + offset),
                    action: $0.action)
            }
            history[history.count - 1] = last
            return
        }
        let reviewing = (reading != nil || page > 0) && !atStatus && time < heldUntil
        history.append(message)
        if history.count > Self.kept {
            history.removeFirst(history.count - Self.kept)
            reading = reading.map { max(0, $0 - 1) }
        }
        if reviewing {
            // Keep the place: the message read stays where it is in the history.
            if reading == nil { reading = history.count - 2 }
            unread = true
            return
        }
        reading = nil
        page = 0
        atStatus = false
        unread = false
        heldUntil = time + (messageSeconds > 0 ? messageSeconds : .infinity)
    }

    /// Whether the status line shows at `time` rather than a message.
    public func showsStatusLine(at time: Double) -> Bool {
        guard showsStatus else { return false }
        return history.isEmpty || atStatus || (reading == nil && page == 0 && time >= heldUntil)
    }

    /// The rows the display shows at `time` (each at most `size.columns` characters), with `status` as the status
    /// line.
    public func rows(_ size: BrailleSize, status: String, at time: Double) -> [String] {
        guard size.cells > 0 else { return [] }
        if showsStatusLine(at: time) { return Array(Self.lines(status, width: size.columns).prefix(size.rows)) }
        var rows = pageRows(size)
        if unread, !rows.isEmpty {
            var first = Array(rows[0].padding(size.columns))
            first[size.columns - 1] = Self.unreadMark
            rows[0] = String(first)
        }
        return rows
    }

    /// Answers a key pressed at `time`: moves through the text, or says what a routing key asks for.
    public mutating func press(_ key: BrailleKey, size: BrailleSize, at time: Double) -> BrailleAction? {
        heldUntil = time + (messageSeconds > 0 ? messageSeconds : .infinity)
        guard !history.isEmpty else { return nil }
        let newest = history.count - 1
        let index = reading ?? newest
        switch key {
        case .panRight:
            if atStatus { return nil }
            if page + 1 < pageCount(history[index], size) {
                page += 1
            } else if index < newest {
                go(to: index + 1)
            }
        case .panLeft:
            if atStatus {
                go(to: newest)
            } else if page > 0 {
                page -= 1
            } else if index > 0 {
                go(to: index - 1)
                page = max(0, pageCount(history[index - 1], size) - 1)
            }
        case .lineUp:
            if atStatus { go(to: newest) } else if index > 0 { go(to: index - 1) }
        case .lineDown:
            if atStatus { return nil }
            if index < newest {
                go(to: index + 1)
            } else if showsStatus {
                atStatus = true
                page = 0
            }
        case .top: go(to: 0)
        case .newest: go(to: newest)
        case .route(let cell): return atStatus ? nil : target(at: cell, size: size)
        case .switchView: break
        }
        return nil
    }

    private mutating func go(to index: Int) {
        let newest = history.count - 1
        reading = index == newest ? nil : index
        page = 0
        atStatus = false
        if index == newest { unread = false }
    }

    /// The display's rows of the message read, at its page.
    private func pageRows(_ size: BrailleSize) -> [String] {
        let lines = layout(history[reading ?? history.count - 1], size).map(\.text)
        let start = min(page * size.rows, max(0, lines.count - 1))
        return Array(lines[start..<min(lines.count, start + size.rows)])
    }

    private func pageCount(_ message: BrailleMessage, _ size: BrailleSize) -> Int {
        let count = layout(message, size).count
        let rows = max(1, size.rows)
        return max(1, (count + rows - 1) / rows)
    }

    /// The lines `message` is shown in: its table's rows on a display of several rows, else its text wrapped; each
    /// with the characters of the text it holds, or a table row's action.
    private func layout(_ message: BrailleMessage, _ size: BrailleSize) -> [(
        text: String, characters: Range<Int>?, action: BrailleAction?
    )] {
        let width = width(size)
        if size.rows > 1, let table = message.table, !table.isEmpty {
            // A row wider than the display goes on in the next line, with the same action.
            return table.flatMap { row in
                let characters = Array(row.text)
                return Self.lineRanges(characters, width: width).map {
                    (String(characters[$0]), Range<Int>?.none, row.action)
                }
            }
        }
        let characters = Array(message.text)
        return Self.lineRanges(characters, width: width).map { (String(characters[$0]), $0, nil) }
    }

    /// The width text wraps at: a cell less while the mark of an unread message takes the last.
    private func width(_ size: BrailleSize) -> Int { unread ? max(1, size.columns - 1) : size.columns }

    /// What the routing key over `cell` acts on, if anything.
    private func target(at cell: Int, size: BrailleSize) -> BrailleAction? {
        guard size.columns > 0, cell >= 0, cell < size.cells else { return nil }
        let message = history[reading ?? history.count - 1]
        let lines = layout(message, size)
        let row = page * size.rows + cell / size.columns
        guard lines.indices.contains(row), cell % size.columns < lines[row].text.count else { return nil }
        guard let characters = lines[row].characters else { return lines[row].action }
        let character = characters.lowerBound + cell % size.columns
        return message.targets.first { $0.characters.contains(character) }?.action
    }

    /// `text` in lines of at most `width` characters, broken at spaces where it can be.
    static func lines(_ text: String, width: Int) -> [String] {
        let characters = Array(text)
        return lineRanges(characters, width: width).map { String(characters[$0]) }
    }

    /// The characters of each line: a line ends before the word that does not fit (a word longer than the line is
    /// cut), and the space a line breaks at starts none.
    static func lineRanges(_ characters: [Character], width: Int) -> [Range<Int>] {
        guard width > 0 else { return [] }
        var ranges: [Range<Int>] = []
        var start = 0
        while start < characters.count {
            var end = min(characters.count, start + width)
            if end < characters.count && characters[end] != " ",
                let space = characters[start..<end].lastIndex(of: " "), space > start
            {
                end = space
            }
            ranges.append(start..<end)
            start = end
            while start < characters.count && characters[start] == " " { start += 1 }
        }
        return ranges.isEmpty ? [0..<0] : ranges
    }
}

extension String {
    /// Padded with blanks, or cut, to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
