/// What the controller wants done, besides the sound it sets directly.
public enum ControllerOutput: Sendable, Equatable {
    /// A handled pen event, for the session log.
    case pen(PenRecord)
    /// The mode changed.
    case mode(Mode)
    /// Say this (it interrupts whatever is being said).
    case speak(String)
    case tagAdded(Tag)
    case tagRemoved(Tag)
    /// The tags (placed or still being placed) or the cell's corners changed: time to save them.
    case tagsChanged
    /// Snap this tap to a column, away from the event loop, and hand the answer to `snapped(_:to:)`.
    case snap(SnapRequest)
    /// The column cursor sounds this point; nil: it fell silent.
    case cursor(ImagePoint?)
    /// The image's placement changed (window placed, zoomed or panned): show it and log it.
    case viewport(Viewport)
    /// The unit cell changed (nil: none), or its boundary ticks were turned on or off.
    case cell(UnitCell?, ticks: Bool)
    /// The user asked to quit (the goodbye has been asked to be spoken first).
    case quit
}
