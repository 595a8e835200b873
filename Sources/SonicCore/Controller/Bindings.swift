/// The pen's barrel buttons, as the gestures the controller tells apart.
public enum PenGesture: Sendable, Hashable, CaseIterable {
    case lowerBarrelDoubleClick
    /// Known once the double-click time has passed without a second press.
    case lowerBarrelClick
    /// Held still for `PenGestures.holdTime`.
    case lowerBarrelHold
    case upperBarrelDoubleClick
    /// Pressed and released without moving; known once the double-click time has passed without a second press.
    case upperBarrelPress
    /// Held still for `PenGestures.holdTime`.
    case upperBarrelHold
    /// Held and moved more than a few screen pixels.
    case upperBarrelDrag

    /// How the help and the manual name it.
    public var name: String {
        switch self {
        case .lowerBarrelDoubleClick: "double click the lower barrel button"
        case .lowerBarrelClick: "click the lower barrel button"
        case .lowerBarrelHold: "hold the lower barrel button still"
        case .upperBarrelDoubleClick: "double click the upper barrel button"
        case .upperBarrelPress: "the upper barrel button"
        case .upperBarrelHold: "hold the upper barrel button still"
        case .upperBarrelDrag: "hold the upper barrel button and drag"
        }
    }
}

/// The modes a binding works in.
public enum ModeScope: Sendable, Hashable {
    case all, tagging, others
    /// The column modes: tagging and the modes that sound the columns, where the arrow keys step from column to
    /// column; and the modes outside them.
    case columnModes, pixelModes

    public func includes(_ mode: Mode) -> Bool {
        switch self {
        case .all: true
        case .tagging: mode == .unitCellTagging
        case .others: mode != .unitCellTagging
        case .columnModes: mode == .unitCellTagging || mode.soundsColumns
        case .pixelModes: mode != .unitCellTagging && !mode.soundsColumns
        }
    }

    /// As the help adds it after the key: ", in tagging mode".
    public var qualifier: String {
        switch self {
        case .all: ""
        case .tagging: ", in tagging mode"
        case .others: ", outside tagging mode"
        case .columnModes: ", in the column modes"
        case .pixelModes: ", outside the column modes"
        }
    }
}

/// One key or pen gesture, the command it gives in which modes, and what the help says it does.
public struct Binding: Sendable {
    public enum Input: Sendable, Hashable {
        /// A key as the user reads it: "Tab", "Shift+Tab", "BackSpace", "+", "Q", "Ctrl++" (with Control held).
        case key(String)
        case pen(PenGesture)
    }

    public let input: Input
    public let modes: ModeScope
    public let command: Command
    /// What it does, as the help says it; the bindings with the same words are one line of the help.
    public let action: String
    /// Whether the help names it (the digits past the last mode are bound only to say there is none).
    public let listed: Bool
}

/// The one table of what every key and pen button does. The controller dispatches through it, and
/// the spoken key help and `play --help` are written from it; a test holds the manual to it.
public enum Bindings {
    public static let table: [Binding] =
        keys(["Tab"], .nextMode, "next mode")
        + keys(["Shift+Tab"], .previousMode, "previous mode")
        + (1...9).map { key("\($0)", .chooseMode($0), "choose a mode", listed: $0 <= Mode.allCases.count) }
        + keys(["Space"], .whereAmI, "where am I")
        + keys(["R"], .repeatLast, "repeat the last announcement")
        + keys(["F1"], .keyHelp, "speak the keys")
        + keys(["D"], .describe, "describe the image: the summary, then each detail in turn")
        + keys(["F"], .toggleDiffractogram, "show and play the image's diffractogram in its place, or the image again")
        + keys(["S"], .sweepImage, "sweep the whole image from left to right; any key stops a sweep")
        + keys(["X"], .sweepRow, "sweep the row under the pen")
        + keys(["Shift+X"], .sweepColumn, "sweep the column under the pen")
        + keys(["["], .windowDown, "move a spectrum image's energy window down by its width; its map plays")
        + keys(["]"], .windowUp, "move the energy window up by its width")
        + keys(["{"], .windowNarrower, "make the energy window narrower")
        + keys(["}"], .windowWider, "make the energy window wider")
        + keys(["E"], .nextLine, "move the energy window to the next line or edge of an element the spectra hold")
        + keys(["Shift+E"], .previousLine, "move the energy window to the previous line or edge of an element")
        + keys(["N"], .nextFeature, "go to the next feature that stands out, guided by beeps")
        + keys(["Shift+N"], .previousFeature, "go to the previous feature")
        + keys(["PageDown"], .nextFrame, "play the next frame of a stack")
        + keys(["PageUp"], .previousFrame, "play the previous frame")
        + keys(["Home"], .firstFrame, "play the first frame")
        + keys(["End"], .lastFrame, "play the last frame")
        + keys(["Control"], .silence, "stop speaking")
        + keys(["Escape"], .escape, "end the guidance or a sweep; with nothing going on, pressed twice, quit")
        + keys(["Q"], .quit, "quit")
        + keys(["+", "="], .zoomIn, "zoom in around the pen")
        + keys(["-"], .zoomOut, "zoom out")
        + keys(["0"], .zoomWhole, "show the whole image")
        + arrows(.pixelModes, Command.pan, "move the view")
        + keys(["H"], .toggleStatusPanel, "show or hide the status panel for sighted helpers")
        + keys(["Ctrl++", "Ctrl+="], .textLarger, "make the text on screen larger")
        + keys(["Ctrl+-"], .textSmaller, "make the text on screen smaller")
        + keys(["BackSpace"], .removeLastTag, "remove the last tag")
        + keys(["L"], .listTags, "list the tags")
        + keys(["C"], .clearTags, "clear the tags, pressed twice")
        + keys(["O"], .markOrigin, "make the last tag the unit cell's origin")
        + keys(["T"], .toggleCellTicks, "turn the ticks at the unit cell's boundaries off and on")
        + arrows(.columnModes, Command.stepCursor, "step from column to column")
        + keys(["Enter"], .tagCursorColumn, "tag the column", in: .tagging)
        + keys(["Enter"], .lessonAnswer, "in a lesson, answer the step", in: .others)
        + keys(["Shift+Enter"], .lessonRepeat, "in a lesson, say the step again and start it afresh")
        + keys(["Ctrl+Enter"], .lessonSkip, "in a lesson, skip the step")
        + keys(["F2"], .startLesson, "start the lesson, a spoken course in listening, in place of the image")
        + [
            pen(.lowerBarrelDoubleClick, .nextMode, "next mode"),
            pen(.lowerBarrelClick, .whereAmI, "where am I"),
            pen(.lowerBarrelHold, .sweepRow, "sweep the row under the pen"),
            pen(.upperBarrelPress, .removeLastTag, "remove the last tag", in: .tagging),
            pen(.upperBarrelPress, .repeatLast, "repeat the last announcement", in: .others),
            pen(.upperBarrelDoubleClick, .nextFeature, "go to the next feature that stands out, guided by beeps"),
            pen(.upperBarrelHold, .sweepImage, "sweep the whole image from left to right; any key stops a sweep"),
            pen(.upperBarrelDrag, .dragView, "move the view")
        ]

    /// The command `input` gives in `mode`, if any.
    public static func command(for input: Binding.Input, in mode: Mode) -> Command? {
        table.first { $0.input == input && $0.modes.includes(mode) }?.command
    }

    /// The arrow keys, as the user reads them, in `Direction.allCases` order.
    public static let arrowKeys = ["Left", "Right", "Up", "Down"]

    private static func key(
        _ name: String, _ command: Command, _ action: String, in modes: ModeScope = .all,
        listed: Bool = true
    ) -> Binding {
        Binding(input: .key(name), modes: modes, command: command, action: action, listed: listed)
    }

    private static func keys(
        _ names: [String], _ command: Command, _ action: String,
        in modes: ModeScope = .all
    ) -> [Binding] {
        names.map { key($0, command, action, in: modes) }
    }

    private static func arrows(_ modes: ModeScope, _ command: (Direction) -> Command, _ action: String) -> [Binding] {
        zip(arrowKeys, Direction.allCases).map { key($0, command($1), action, in: modes) }
    }

    private static func pen(
        _ gesture: PenGesture, _ command: Command, _ action: String,
        in modes: ModeScope = .all
    ) -> Binding {
        Binding(input: .pen(gesture), modes: modes, command: command, action: action, listed: true)
    }
}
