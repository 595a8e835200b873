/// Everything the user can ask of a session, whatever the key or pen button that asks it
/// (`Bindings.table` says which does what).
public enum Command: Sendable, Hashable {
    case nextMode
    case previousMode
    /// The n-th mode of the profile's cycle, counted from 1.
    case chooseMode(Int)
    /// The position and intensity under the pen, and the unit cell it is in.
    case whereAmI
    case repeatLast
    /// Speaks every binding.
    case keyHelp
    case toggleStatusPanel
    /// The text on screen one step larger or smaller (`TextSize.steps`).
    case textLarger
    case textSmaller
    case zoomIn
    case zoomOut
    case zoomWhole
    /// Moves the view a quarter of the window that way.
    case pan(Direction)
    /// The image follows the pen while the upper barrel button stays held.
    case dragView
    /// Undoes the latest tag asked for, placed or still being placed.
    case removeLastTag
    case listTags
    /// Asks first; the same command again within `Tagging.confirmationTime` clears.
    case clearTags
    case markOrigin
    case toggleCellTicks
    /// Moves the column cursor to the nearest atom column that way.
    case stepCursor(Direction)
    case tagCursorColumn
    /// The overview's summary; asked again, its details one by one.
    case describe
    /// Steps through the overview's features: the column cursor goes to the next (or previous) one, and the pen is
    /// guided to it.
    case nextFeature
    case previousFeature
    /// Shows and plays the image's diffractogram in its place; given again, the image.
    case toggleDiffractogram
    /// Ends what is going on — the guidance to a feature (a sweep ends at any key); with nothing going on, warns,
    /// and quits only when given again next.
    case escape
    /// Stops the speech at once, and nothing else (as a screen reader's Control does).
    case silence
    /// Plays the whole image from left to right.
    case sweepImage
    /// Plays the row, or the column, under the pen from one end to the other.
    case sweepRow
    case sweepColumn
    /// A spectrum image's energy window, whose map plays: moved by its width to lower or higher energies, or made
    /// narrower or wider around its middle.
    case windowDown
    case windowUp
    case windowNarrower
    case windowWider
    /// The energy window moved to the next (or previous) line or edge of an element the spectra hold.
    case nextLine
    case previousLine
    /// A stack's next, previous, first or last frame plays.
    case nextFrame
    case previousFrame
    case firstFrame
    case lastFrame
    /// In a lesson: the step's answer checked, the step said again and started afresh, or skipped.
    case lessonAnswer
    case lessonRepeat
    case lessonSkip
    /// Outside a lesson: the session ends and the lesson starts in its place.
    case startLesson
    case quit
    /// The window manager asked the window to close: the same as `quit`.
    case windowClosed
}

/// Which way an arrow key points.
public enum Direction: Sendable, Hashable, CaseIterable {
    case left, right, up, down

    /// As a unit step in image coordinates (y grows downwards).
    public var step: (x: Double, y: Double) {
        switch self {
        case .left: (-1, 0)
        case .right: (1, 0)
        case .up: (0, -1)
        case .down: (0, 1)
        }
    }
}
