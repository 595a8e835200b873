/// What the controller wants done, besides the sound it sets directly.
public enum ControllerOutput: Sendable, Equatable {
    /// A handled pen event, for the session log.
    case pen(PenRecord)
    /// The mode changed.
    case mode(Mode)
    /// Say this (it interrupts whatever is being said).
    case speak(String)
    /// Say this once what is being said has been (the overview's first sentence after the greeting).
    case speakAfter(String)
    case tagAdded(Tag)
    case tagRemoved(Tag)
    /// The tags (placed or still being placed) or the cell's corners changed: save them as they are
    /// now; report a failure to `saveFailed()`.
    case save(TagSnapshot)
    /// Snap this tap to a column, away from the event loop, and hand the answer to `snapped(_:to:)`.
    case snap(SnapRequest)
    /// The column cursor sounds this point; nil: it fell silent.
    case cursor(ImagePoint?)
    /// The image's placement changed (window placed, zoomed or panned): show it and log it.
    case viewport(Viewport)
    /// The unit cell changed (nil: none), or its boundary ticks were turned on or off.
    case cell(UnitCell?, ticks: Bool)
    /// A sweep starts; nil: the one playing stops.
    case sweep(Sweep?)
    /// The pen is guided to a place from now on; nil: the guidance ended.
    case guidance(Guidance?)
    /// Read this spectrum away from the event loop, and hand its levels to `spectrumFetched(_:at:)`; a newer request
    /// makes older ones stale.
    case fetchSpectrum(SpectrumRequest)
    /// The spectrum bank plays this spectrum from `time` on: for the session log.
    case spectrum(SpectrumRequest, time: Double)
    /// Make this window's map away from the event loop, and hand it to `windowMapMade(_:for:at:)`; a newer window
    /// makes older ones stale.
    case makeWindowMap(PlayedWindow)
    /// The map of this window plays from `time` on: for the session log.
    case window(PlayedWindow, time: Double)
    /// The window's map plays from now on: show it (through `instrument.stretch`), and find its columns.
    case windowMap(PlayedImage)
    /// Read this frame of the stack (from 0) away from the event loop, make it ready with `instrument.preparation`,
    /// and hand it to `frameRead(_:index:at:)`; a newer frame makes older ones stale.
    case readFrame(index: Int)
    /// Another frame of the stack plays (`index` from 0): show it, log it, and find its columns.
    case frame(index: Int, PlayedImage)
    /// The image's diffractogram shows and plays in its place from now on (nil: the image again): show it and log it.
    case diffractogram(ShownDiffractogram?)
    /// A lesson step's image plays from now on: show it, and find its columns.
    case lessonImage(PlayedImage)
    /// Something happened in the lesson: log it, and keep where the user has got to.
    case lesson(LessonEvent)
    /// The user asked to quit (the goodbye has been asked to be spoken first).
    case quit
    /// The user asked for the lesson (said first): the session ends, its tags saved, and the lesson runs in its place.
    case learn
}

/// What is saved of the tags: the tags with the cell's corners, those still being placed, and the
/// pixel size their lengths are spoken in.
public struct TagSnapshot: Sendable, Equatable {
    public var book: TagBook
    public var unplaced: [UnplacedTag]
    public var pixelSize: PixelSize?

    public init(book: TagBook, unplaced: [UnplacedTag] = [], pixelSize: PixelSize? = nil) {
        self.book = book
        self.unplaced = unplaced
        self.pixelSize = pixelSize
    }
}
