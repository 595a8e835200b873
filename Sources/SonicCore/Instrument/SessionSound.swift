/// A change to what the session sounds.
public enum SoundChange: Sendable {
    /// A pen event: sounds what the pen is on, as the mode says.
    case pen(PenEvent)
    case mode(Mode)
    /// Where the image sits on screen.
    case viewport(Viewport)
    /// The pen, still, sounds what it is over now (the image moved under it).
    case stillPen
    /// The unit cell (nil: none) and whether its boundaries tick.
    case cell(UnitCell?, ticks: Bool)
    /// The columns found, and the lattice read from them.
    case lattice(LatticeColumns?)
    /// The column cursor sounds this point; nil gives the sound back to the pen.
    case cursor(ImagePoint?)
    /// A sweep starts, ending any other; nil stops the one playing.
    case sweep(Sweep?)
    /// The pen is guided to a place from now on; nil: no longer.
    case guidance(Guidance?)
    /// The spectrum the spectrum bank plays from now on.
    case spectrum(SpectrumLevels)
    /// Another image of the same size, made ready, plays and shows in place of the one before — a stack's frame,
    /// through the same stretch so that frames compare, or a window's map, through its own — and a sweep playing
    /// stops; the columns found in the image before are gone with it.
    case playedImage(PlayedImage)
    /// The image's diffractogram shows and plays in its place from now on, the lattice and columns staying the
    /// image's; nil: the image again. A sweep playing stops.
    case diffractogram(ShownDiffractogram?)
    /// Silence, as the session ends.
    case silence
}

/// The one way from what happens in a session to what is heard, shared by `play` (the controller
/// hands it every change) and `render` (the replay hands it every logged one): each change goes into
/// the session's state, and the synth's targets follow, stamped with the change's time so that the
/// audio side makes them a constant delay later. The only writer of the instrument and the targets.
public final class SessionSound {
    public let instrument: Instrument
    private let controls: SynthControls
    /// The sweeps' tables of the image played, and whether the lines offered last are the lattice-strain mode's.
    private lazy var imageTables = instrument.sweepTables
    private var strainLinesOffered = false
    public init(instrument: Instrument, controls: SynthControls) {
        self.instrument = instrument
        self.controls = controls
    }

    /// Whether the user waits on long work: the waiting pulse sounds while they do.
    public var waiting: Bool {
        get { controls.isWaiting }
        set { controls.setWaiting(newValue) }
    }

    /// Makes `change` at `time` in `state` and sounds it; returns the pen's record when a pen was
    /// sounded.
    @discardableResult
    public func apply(_ change: SoundChange, to state: inout SessionState, at time: Double) -> PenRecord? {
        switch change {
        case .pen(let event):
            return play(instrument.sound(event, in: state), in: state, at: event.time)
        case .mode(let mode):
            state.mode = mode
            if let targets = instrument.lastTargets(in: state) { set(targets, in: state, at: time) }
        case .viewport(let viewport):
            state.viewport = viewport
        case .stillPen:
            return instrument.soundAgain(at: time, in: state).map { play($0, in: state, at: time) }
        case .cell(let cell, let ticks):
            state.cell = cell
            state.cellTicks = ticks
            instrument.cellChanged()
        case .lattice(let lattice):
            state.lattice = lattice
            instrument.latticeChanged()
        case .cursor(let point?):
            if let targets = instrument.probe(at: point, in: state) { set(targets, in: state, at: time) }
        case .cursor(nil):
            set(instrument.lastTargets(in: state) ?? instrument.silent, in: state, at: time)
        case .sweep(let sweep):
            if let sweep, sweep != .image { offerLines(strainOf: state.mode == .latticeStrain ? state : nil) }
            state.sweep = sweep.map { PlayingSweep(sweep: $0, end: time + instrument.profile.chain.sweepLength) }
            controls.sweep(sweep, at: time)
        case .guidance(let guidance):
            state.guidance = guidance
            set(controls.targets, in: state, at: time)
        case .spectrum(let levels):
            controls.setSpectrum(levels.amplitudes, at: time)
        case .playedImage(let played):
            state.diffractogram = nil
            play(played, in: &state, at: time)
            state.columns = nil
            state.overview = nil
            state.lattice = nil
            instrument.latticeChanged()
        case .diffractogram(let shown):
            guard let played = shown?.played ?? state.diffractogram?.image else { break }
            state.diffractogram = shown
            play(played, in: &state, at: time)
        case .silence:
            set(instrument.silent, in: state, at: time)
        }
        return nil
    }

    /// Another image of the same size plays: the sweeps play it too, and a sweep playing stops.
    private func play(_ played: PlayedImage, in state: inout SessionState, at time: Double) {
        if state.sweep != nil {
            state.sweep = nil
            controls.sweep(nil, at: time)
        }
        instrument.play(played)
        imageTables = played.tables
        strainLinesOffered = false
        controls.sweepTables.offer(played.tables)
    }

    /// A row or column about to be swept: in the lattice-strain mode over the image's lattice, the strain along it;
    /// else the image, as the pen sounds it.
    private func offerLines(strainOf state: SessionState?) {
        let lattice = state.flatMap { $0.soundsColumns && $0.lattice?.hasLattice == true ? $0.lattice : nil }
        guard lattice != nil || strainLinesOffered else { return }
        strainLinesOffered = lattice != nil
        controls.sweepTables.offer(
            SweepTables(image: imageTables.image, lines: lattice.map(instrument.strainLines) ?? imageTables.lines))
    }

    private func play(_ sounded: Instrument.Sounded, in state: SessionState, at time: Double) -> PenRecord {
        if sounded.tick { controls.tick(at: time) }
        set(sounded.targets, in: state, at: time)
        return sounded.record
    }

    /// Sets the pen's targets with the guide's, as the nib and the place it is guided to say.
    private func set(_ targets: SynthTargets, in state: SessionState, at time: Double) {
        var targets = targets
        let image = instrument.image
        targets.guide =
            state.guidance?.tone(from: instrument.nib(in: state), width: image.width, height: image.height) ?? .silent
        controls.set(targets, at: time)
    }
}
