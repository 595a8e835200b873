/// A key of the braille display the program answers, whatever the display's own keys are called (brltty maps them).
public enum BrailleKey: Sendable, Equatable {
    /// The display's pan keys: the previous or next part of the text (at an end, the message before or after).
    case panLeft, panRight
    /// The previous or next message of the history (below the newest: the status line).
    case lineUp, lineDown
    /// The oldest message kept.
    case top
    /// The newest message, which also clears the mark of messages not yet read.
    case newest
    /// The routing key above this cell (from 0, row by row).
    case route(Int)
    /// A multi-line display switches between the tactile picture and text.
    case switchView
}

/// A braille display's text area: cells across and rows.
public struct BrailleSize: Sendable, Equatable {
    /// More cells than any display has: a size beyond it is damaged, and taken as no display.
    public static let largest = 10_000

    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        let fits =
            columns > 0 && rows > 0 && columns <= Self.largest && rows <= Self.largest
            && columns * rows <= Self.largest
        self.columns = fits ? columns : 0
        self.rows = fits ? rows : 0
    }

    public var cells: Int { columns * rows }
}
