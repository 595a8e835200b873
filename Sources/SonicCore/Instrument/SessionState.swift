/// What a session is at one moment: one value, owned live by the session controller and in `render`
/// by the replay. What it means for the sound changes only through `SessionSound`, which sounds each
/// change as it makes it; the controller's parts (the tags, the view) compute their changes and
/// return them rather than make them.
public struct SessionState: Sendable {
    /// The mode the pen plays in.
    public var mode: Mode
    /// Where the image sits on screen.
    public var viewport: Viewport
    /// The unit cell the tags span (refined by the columns once found), and whether the touching pen
    /// ticks as it crosses its boundaries.
    public var cell: UnitCell?
    public var cellTicks: Bool
    /// The lattice read from every atom column, once found: the column modes sound it.
    public var lattice: LatticeColumns?
    /// Every atom column found in the image, once the search is done (nil until then).
    public var columns: [ImagePoint]?
    /// The tags, placed and still being placed, in the order asked for.
    var tags = TagQueue()
    /// Whether the sound plays: false while the sound server is away.
    public var soundPlays = true
    /// The whole image at a glance, once read from the columns (nil until then).
    public var overview: ImageOverview?
    /// The place the pen is guided to, while one is chosen.
    public var guidance: Guidance?
    /// The sweep playing, until it ends or is stopped.
    public var sweep: PlayingSweep?
    /// For a spectrum image, the energy window whose map plays (nil: the image acquired with the spectra, or the
    /// total counts).
    public var window: PlayedWindow?
    /// The frame of a stack that plays (from 0); 0 for an image, and for a stack played combined.
    public var frame = 0
    /// The image's diffractogram, while it shows and plays in the image's place.
    public var diffractogram: ShownDiffractogram?

    public init(mode: Mode, viewport: Viewport, cell: UnitCell? = nil, cellTicks: Bool) {
        self.mode = mode
        self.viewport = viewport
        self.cell = cell
        self.cellTicks = cellTicks
    }

    /// Whether the pen sounds the lattice's columns: in a column mode, over the image rather than its diffractogram.
    public var soundsColumns: Bool { mode.soundsColumns && diffractogram == nil }
}

/// A sweep the engine plays, and when it is over.
public struct PlayingSweep: Sendable, Equatable {
    public var sweep: Sweep
    /// The time (of the clock changes are stamped with) it ends by.
    public var end: Double
}
