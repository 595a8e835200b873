/// The session's router: pen events, keys (through `Bindings`) and commands go to the part that
/// handles them — the instrument, the tags, the column cursor, zoom and pan, the status panel — and
/// what is to be done comes back as `ControllerOutput`s, in the words of `Phrases`. Knows nothing
/// of X, sound servers or voices.
public final class SessionController {
    /// The one way to the sound: every change that touches it is made there.
    public let sound: SessionSound
    /// What the session is now; changed only as the controller settles what its parts return.
    public private(set) var state: SessionState
    private let opened: OpenedImage
    var tagging: Tagging
    var columnCursor = ColumnCursor()
    var navigation: Navigation
    private var statusPanel: StatusPanel
    private var penGestures: PenGestures
    var tour = OverviewTour()
    private var escapeKey = EscapeKey(), keyHelp = KeyHelp()
    private var diffractogramView = DiffractogramView()
    /// Whether the overview's first sentence has been said: only the first image's (a stack's first frame) is.
    private var overviewTold = false
    let frameStepper: FrameStepper
    private var lastAnnouncement = ""
    /// The last announcement made while the sound server was away, said again when it is back.
    private var unheard: String?
    /// The time of the latest event or command.
    var now = 0.0
    /// The spectrum last asked for in the spectrum mode, while the pen touches.
    private var requestedSpectrum: SpectrumRequest?
    /// The energy window last asked for, whose map may still be being made.
    private var requestedWindow: PlayedWindow?
    /// The frame last asked to be read, until it plays.
    private var requestedFrame: Int?
    /// The lesson under way, in a session that `startLesson` started.
    var lesson: LessonRun?
    /// The long work the session waits on (the atom columns being found) and its share done; "where am I" tells it.
    public var workUnderWay: (what: String, fraction: Double)?
    /// Other work the user has waited on for seconds (a window's map, a frame); "where am I" tells it, and the
    /// waiting pulse sounds while it lasts.
    public var waitUnderWay: (what: String, fraction: Double?)? {
        didSet { sound.waiting = waitUnderWay != nil }
    }

    public init(
        sound: SessionSound, opened: OpenedImage, tags: TagBook = TagBook(), pixelSize: PixelSize? = nil,
        columnSpacing: Double? = nil, frames: SessionFrames? = nil
    ) {
        self.sound = sound
        self.opened = opened
        frameStepper = FrameStepper(frames: frames)
        let instrument = sound.instrument
        state = instrument.initialState
        state.tags = TagQueue(book: tags)
        tagging = Tagging(
            level: instrument.level(at:), snapRadius: instrument.profile.gestures.snapRadius, pixelSize: pixelSize,
            columnSpacing: columnSpacing)
        navigation = Navigation(imageWidth: instrument.image.width, imageHeight: instrument.image.height)
        penGestures = PenGestures(instrument.profile.gestures)
        statusPanel = StatusPanel(textSize: TextSize(scale: instrument.profile.display.textSize))
        sound.apply(.cell(tagging.cell(state), ticks: state.cellTicks), to: &state, at: 0)
    }

    public var instrument: Instrument { sound.instrument }
    public var book: TagBook { state.tags.book }
    /// The tags asked for and not yet placed, oldest first: saved with the tags.
    public var unplacedTags: [UnplacedTag] { state.tags.unplaced }
    /// The tags as they are to be saved.
    public var tagSnapshot: TagSnapshot { tagging.snapshot(state) }
    public var pixelSize: PixelSize? { tagging.pixelSize }
    /// Every atom column found in the image, once the search is done (nil until then).
    public var columns: [ImagePoint]? { state.columns }
    /// The column the arrow keys last moved to.
    public var cursor: ImagePoint? { columnCursor.position }
    /// The unit cell from the tags, refined by every column on its lattice when they are known.
    public var unitCell: UnitCell? { state.cell }
    /// Whether the sound plays: false while the sound server is away.
    public var soundPlays: Bool { state.soundPlays }

    /// What a sighted colleague sees drawn over the image: the tags, the cell, the column cursor (none over the
    /// diffractogram, where they are not), and the status panel when shown.
    public var overlay: Overlay {
        var overlay = state.diffractogram == nil ? Overlay(tags: book, cell: unitCell, cursor: cursor) : Overlay()
        overlay.status = statusPanel.lines(
            modeNumber: modes.number, mode: state.mode, frame: framePlayed, pen: instrument.lastRecord,
            zoom: navigation.view?.zoom ?? 1, tagCount: book.tags.count, soundPlays: state.soundPlays,
            diffractogram: state.diffractogram != nil)
        overlay.textSize = statusPanel.textSize
        return overlay
    }

    /// The session's modes, at the session's.
    var modes: ModeCycle {
        var cycle = ModeCycle(order: instrument.modes)
        cycle.select(state.mode)
        return cycle
    }

    // MARK: - What comes in

    /// The greeting: what is open and how it sounds, any saved tags, then anything the user must
    /// know (`notices`).
    public func start(notices: [String] = []) -> [ControllerOutput] {
        var parts = [
            Phrases.greeting(
                opened, instrument.image, pixelSize: pixelSize, modeNumber: modes.number, mode: state.mode)
        ]
        if !book.tags.isEmpty {
            parts.append(Phrases.savedTagsLoaded(book.tags.count))
            if let cell = tagging.cellDescription(state) { parts.append(cell) }
        }
        return settle(
            (unitCell == nil ? [] : [.cell(unitCell, ticks: state.cellTicks)])
                + [.speak((parts + notices).joined(separator: " "))])
    }

    /// The window now covers `window` (root coordinates).
    public func place(window: ScreenRect) -> [ControllerOutput] { settle(navigation.place(window: window)) }

    /// The columns the arrow keys step through, once found; they refine the unit cell. With the lattice read from
    /// them, the column modes sound them.
    public func setColumns(_ found: [ImagePoint], lattice: LatticeColumns? = nil) -> [ControllerOutput] {
        columnCursor.setColumns(found)
        state.columns = found
        sound.apply(.lattice(lattice), to: &state, at: now)
        let cell = tagging.cell(state)
        return settle(cell == state.cell ? [] : [.cell(cell, ticks: state.cellTicks)])
    }

    /// The image at a glance, read from the columns: its first sentence follows whatever is being said (the
    /// greeting), and the features can be stepped through. Another frame's overview is not said: `D` tells it.
    public func setOverview(_ overview: ImageOverview) -> [ControllerOutput] {
        state.overview = overview
        // In a lesson, the step says what the image holds.
        guard !overviewTold, lesson == nil else { return [] }
        overviewTold = true
        return settle(overview.summary.first.map { [.speakAfter($0)] } ?? [])
    }

    /// The frame of a stack that plays (from 0).
    public var frame: Int { state.frame }

    /// When `poll` next has something to do, if ever.
    public var deadline: Double? {
        [penGestures.deadline, columnCursor.toneEnd, tagging.clearingEnd].compactMap { $0 }.min()
    }

    /// Acts on anything whose time has come by `time`.
    public func poll(at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        var outputs: [ControllerOutput] = []
        for gesture in penGestures.poll(at: time) { outputs += run(gesture) }
        if columnCursor.toneEnds(by: time) { outputs.append(.cursor(nil)) }
        tagging.expireClearing(by: time)
        return settle(outputs)
    }

    public func handle(_ event: PenEvent) -> [ControllerOutput] {
        now = max(now, event.time)
        let record = sound.apply(.pen(event), to: &state, at: event.time)!
        var outputs: [ControllerOutput] = [.pen(record)] + spectrumWanted()
        // The pen touching stops a sweep: the image is the pen's again.
        if isSweeping && record.buttons.contains(PenButtons.tip) && record.pressure > 0 { outputs.append(.sweep(nil)) }
        outputs += tour.follow(instrument.nib(in: state), in: state)
        for recognized in penGestures.update(event) {
            switch recognized {
            case .gesture(let gesture): outputs += run(gesture)
            case .drag(let dx, let dy): outputs += navigation.drag(dx: dx, dy: dy)
            case .dragEnd: outputs += navigation.endDrag()
            case .tap(let x, let y):
                guard state.mode == .unitCellTagging else { continue }
                outputs += tagging.tap(at: state.viewport.imagePoint(rootX: x, rootY: y), in: &state)
            }
        }
        return settle(outputs)
    }

    /// A key by its name as the user reads it ("Tab", "Shift+Tab", "+"), pressed at `time`. While a sweep plays,
    /// any key stops it and does nothing else.
    public func handle(key: String, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        let command = Bindings.command(for: .key(key), in: state.mode)
        // Control only silences; any other key between two presses that clear the tags (or quit) cancels them.
        if command == .silence { return settle([.speak("")]) }
        if command != .clearTags { tagging.cancelClearing() }
        if command != .escape { escapeKey.otherKey() }
        if isSweeping { return settle([.sweep(nil), .speak(Phrases.sweepStopped)]) }
        guard let command else { return settle([.speak(Bindings.doesNothing(key: key, in: state.mode))]) }
        return handle(command, at: time)
    }

    /// Carries out `command`, asked for at `time`.
    public func handle(_ command: Command, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        return settle(run(command))
    }

    /// A tap's snap, done: the tags waiting for it are placed, and announced in one sentence.
    public func snapped(_ request: SnapRequest, to column: ImagePoint?) -> [ControllerOutput] {
        settle(tagging.snapped(request, to: column, in: &state))
    }

    /// The pen's device went away (unplugged; its tone has been silenced) or appeared.
    public func penDevice(found: Bool) -> [ControllerOutput] {
        settle([.speak(found ? Phrases.penFound : Phrases.penLost)])
    }

    /// The sound server went away: nothing is heard until it is back, so what is said meanwhile is
    /// kept for then.
    public func soundLost() -> [ControllerOutput] {
        state.soundPlays = false
        unheard = nil
        return []
    }

    /// The sound plays again: said, with the last thing asked for while it was away.
    public func soundBack() -> [ControllerOutput] {
        state.soundPlays = true
        let text = ([Phrases.soundBack] + [unheard].compactMap { $0 }).joined(separator: " ")
        unheard = nil
        return settle([.speak(text)])
    }

    /// Saving the tags failed: the user is warned, like any announcement (and can hear it again).
    public func saveFailed() -> [ControllerOutput] { settle([.speak(Phrases.tagsNotSaved)]) }

    /// The spectrum asked for has been read: the spectrum bank plays it from `time` on (logged).
    public func spectrumFetched(_ levels: SpectrumLevels, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        sound.apply(.spectrum(levels), to: &state, at: now)
        return [.spectrum(levels.request, time: now)]
    }

    /// The map of a window asked for is made: it plays and shows from `time` on.
    public func windowMapMade(_ map: PlayedImage, for window: PlayedWindow, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        state.window = window
        return settle([.window(window, time: now), .windowMap(map)])
    }

    /// A frame asked for is read: it plays and shows from `time` on.
    public func frameRead(_ frame: PlayedImage, index: Int, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        if requestedFrame == index { requestedFrame = nil }
        return settle([.frame(index: index, frame)])
    }

    /// A frame asked for could not be read: said, and the frame played stays.
    public func frameUnreadable(index: Int, _ error: ImageFileError) -> [ControllerOutput] {
        requestedFrame = nil
        return settle([.speak(Phrases.frameUnreadable(index + 1, error.description))])
    }

    /// The map of the window asked for could not be made: said, and the window stays as it was.
    public func windowMapFailed() -> [ControllerOutput] {
        requestedWindow = state.window
        return settle([.speak(Phrases.windowMapFailed)])
    }

    /// In the spectrum mode, the spectrum under the touching pen, when it is not the one last asked for.
    private func spectrumWanted() -> [ControllerOutput] {
        guard let request = instrument.spectrumRequest(in: state) else {
            requestedSpectrum = nil
            return []
        }
        guard request != requestedSpectrum else { return [] }
        requestedSpectrum = request
        return [.fetchSpectrum(request)]
    }

    /// The one way another image of the same size takes the session's place (a stack's frame, a window's map): it
    /// plays from now on, and the still pen sounds what it is over in it. The columns, the overview and its tour were
    /// the image's before: they are found again for this one.
    private func play(_ played: PlayedImage) -> [ControllerOutput] {
        sound.apply(.playedImage(played), to: &state, at: now)
        columnCursor.setColumns(nil)
        tour = OverviewTour()
        return sound.apply(.stillPen, to: &state, at: now).map { [.pen($0)] } ?? []
    }

    /// Silence from `time` on, as the session ends.
    public func silence(at time: Double) { sound.apply(.silence, to: &state, at: time) }

    /// Every way in ends here: the changes the parts returned are made — through the one way to the
    /// sound for those that touch it, the still pen sounding afresh when the image moved under it —
    /// and passed on; the last thing said is kept for repeating.
    func settle(_ outputs: [ControllerOutput]) -> [ControllerOutput] {
        let settled = settleEach(outputs)
        return settled + settleEach(followLesson(settled))
    }

    private func settleEach(_ outputs: [ControllerOutput]) -> [ControllerOutput] {
        var settled: [ControllerOutput] = []
        for output in outputs {
            settled.append(output)
            switch output {
            case .mode(let mode):
                sound.apply(.mode(mode), to: &state, at: now)
                requestedSpectrum = nil
                settled += spectrumWanted()
            case .cell(let cell, let ticks): sound.apply(.cell(cell, ticks: ticks), to: &state, at: now)
            case .cursor(let point): sound.apply(.cursor(point), to: &state, at: now)
            case .viewport(let viewport):
                sound.apply(.viewport(viewport), to: &state, at: now)
                if let record = sound.apply(.stillPen, to: &state, at: now) { settled.append(.pen(record)) }
            case .diffractogram(let shown):
                sound.apply(.diffractogram(shown), to: &state, at: now)
                if let record = sound.apply(.stillPen, to: &state, at: now) { settled.append(.pen(record)) }
            case .sweep(let sweep): sound.apply(.sweep(sweep), to: &state, at: now)
            case .guidance(let guidance): sound.apply(.guidance(guidance), to: &state, at: now)
            case .frame(let index, let frame):
                state.frame = index
                settled += play(frame)
            case .windowMap(let map), .lessonImage(let map): settled += play(map)
            case .readFrame(let index): requestedFrame = index
            case .speak(let text), .speakAfter(let text):
                if !text.isEmpty { lastAnnouncement = text }
                if !state.soundPlays { unheard = text }
            case .pen, .tagAdded, .tagRemoved, .save, .snap, .fetchSpectrum, .spectrum, .makeWindowMap, .window,
                .lesson, .quit, .learn:
                break
            }
        }
        return settled
    }

    // MARK: - Commands

    private func run(_ gesture: PenGesture) -> [ControllerOutput] {
        Bindings.command(for: .pen(gesture), in: state.mode).map(run) ?? []
    }

    private func run(_ command: Command) -> [ControllerOutput] {
        switch command {
        case .nextMode: return changeMode { $0.next() }
        case .previousMode: return changeMode { $0.previous() }
        case .chooseMode(let n):
            guard n <= modes.order.count else { return [.speak(Phrases.noMode(n))] }
            return changeMode { $0.select(number: n) }
        case .whereAmI: return [.speak(whereAmI)]
        case .repeatLast: return [.speak(lastAnnouncement.isEmpty ? Phrases.nothingToRepeat : lastAnnouncement)]
        case .keyHelp:
            return [.speak(keyHelp.next(state.mode, frames: frameStepper.frames, instrument, lesson: lesson != nil))]
        case .toggleStatusPanel:
            statusPanel.shown.toggle()
            return [.speak(Phrases.statusPanel(shown: statusPanel.shown))]
        case .textLarger, .textSmaller:
            let larger = command == .textLarger
            guard statusPanel.textSize.step(larger: larger) else {
                return [.speak(Phrases.textSizeLimit(larger: larger))]
            }
            return [.speak(Phrases.textSize(statusPanel.textSize.scale))]
        case .zoomIn: return navigation.zoom(inward: true, pen: instrument.lastRecord, cursor: cursor)
        case .zoomOut: return navigation.zoom(inward: false, pen: instrument.lastRecord, cursor: cursor)
        case .zoomWhole: return navigation.zoom(to: 1, pen: instrument.lastRecord, cursor: cursor)
        case .pan(let direction): return navigation.pan(direction)
        case .dragView:
            navigation.startDrag()
            return []
        case .removeLastTag: return tagging.removeLast(in: &state)
        case .listTags: return [.speak(tagging.list(state))]
        case .clearTags: return tagging.clear(at: now, in: &state)
        case .markOrigin: return tagging.markOrigin(in: &state)
        case .toggleCellTicks:
            let ticks = !state.cellTicks
            return [
                .cell(state.cell, ticks: ticks), .speak(Phrases.cellTicks(on: ticks, hasCell: state.cell != nil))
            ]
        case .stepCursor(let direction): return stepCursor(direction)
        case .tagCursorColumn:
            guard let cursor else { return [.speak(Phrases.moveToAColumnFirst)] }
            return tagging.tagColumn(at: cursor, in: &state)
        case .describe: return tour.describe(state)
        case .toggleDiffractogram: return diffractogramView.toggle(in: state, instrument: instrument)
        case .nextFeature, .previousFeature:
            let outputs = tour.step(forward: command == .nextFeature, in: state, nib: instrument.nib(in: state))
            for case .cursor(let point?) in outputs { columnCursor.move(to: point, at: now) }
            return outputs
        case .escape: return escapeKey.press(in: state, tour: tour)
        case .silence: return [.speak("")]
        case .sweepImage: return [.sweep(.image)]
        case .sweepRow, .sweepColumn:
            guard let point = penOrCursor else {
                return [.speak(instrument.lastRecord == nil ? Phrases.penNotOnTablet : Phrases.outsideImage)]
            }
            let pixel = point.nearestPixel
            return [.sweep(command == .sweepRow ? .row(pixel.y) : .column(pixel.x))]
        case .windowDown, .windowUp, .windowNarrower, .windowWider, .nextLine, .previousLine:
            return changeWindow(command)
        case .nextFrame, .previousFrame, .firstFrame, .lastFrame:
            return frameStepper.step(command, from: requestedFrame ?? state.frame)
        case .lessonAnswer, .lessonRepeat, .lessonSkip, .startLesson: return runLesson(command)
        case .quit, .windowClosed: return [.speak(Phrases.goodbye), .quit]
        }
    }

    /// A spectrum image's energy window moved, narrower or wider: said, and its map made to play.
    private func changeWindow(_ command: Command) -> [ControllerOutput] {
        guard let spectra = instrument.spectra else { return [.speak(Phrases.noEnergyWindow)] }
        let axis = spectra.cube.spectralAxis
        let lines = spectra.lineWindows()
        let current = requestedWindow ?? state.window ?? lines.strongest ?? PlayedWindow.starting(on: axis)
        let (changed, limit): (PlayedWindow?, Phrases.WindowLimit) =
            switch command {
            case .windowDown: (current.moved(by: -1, on: axis), .end)
            case .windowUp: (current.moved(by: 1, on: axis), .end)
            case .windowNarrower: (current.scaled(by: 1 / PlayedWindow.widthStep, on: axis), .narrowest)
            case .nextLine, .previousLine:
                (lines.step(from: current, up: command == .nextLine), lines.windows.isEmpty ? .noLines : .lastLine)
            default: (current.scaled(by: PlayedWindow.widthStep, on: axis), .widest)
            }
        guard let window = changed else { return [.speak(Phrases.windowLimit(limit))] }
        requestedWindow = window
        let said = Phrases.window(window, units: axis.units, feature: lines.feature(of: window))
        let empty = lines.holdsSignal(window) ? "" : " " + Phrases.windowHoldsNothing(element: nil)
        return [.speak(said + empty), .makeWindowMap(window)]
    }

    /// Whether a sweep plays now.
    private var isSweeping: Bool { state.sweep.map { now < $0.end } ?? false }

    /// Where the pen is over the image, or else the column cursor's column.
    private var penOrCursor: ImagePoint? {
        if let record = instrument.lastRecord, record.inImage { return ImagePoint(x: record.imageX, y: record.imageY) }
        return cursor
    }

    /// A mode chosen: said, and the guidance to a feature, if any, ends.
    private func changeMode(_ change: (inout ModeCycle) -> Void) -> [ControllerOutput] {
        var cycle = modes
        change(&cycle)
        let needs = latticeNeeded(in: cycle.current).map { " " + $0 } ?? ""
        let said = Phrases.mode(cycle.number, cycle.current) + needs
        guard state.guidance != nil else { return [.mode(cycle.current), .speak(said)] }
        return [.mode(cycle.current)] + tour.endGuidance(after: [said])
    }

    /// In a column mode without a lattice: what it needs.
    func latticeNeeded(in mode: Mode) -> String? {
        guard mode.soundsColumns, state.lattice?.hasLattice != true else { return nil }
        return Phrases.latticeNeeded(searching: columns == nil)
    }

    /// Moves the column cursor; its tone sounds the column it reaches.
    private func stepCursor(_ direction: Direction) -> [ControllerOutput] {
        let start =
            instrument.lastRecord.map { ImagePoint(x: $0.imageX, y: $0.imageY) }
            ?? ImagePoint(x: Double(instrument.image.width - 1) / 2, y: Double(instrument.image.height - 1) / 2)
        switch columnCursor.step(direction, from: start, pen: instrument.penInImage, at: now) {
        case .searching: return [.speak(Phrases.stillFindingColumns)]
        case .noColumns: return [.speak(Phrases.noColumnsFound)]
        case .noneFurther: return [.speak(Phrases.noColumnFurther(direction))]
        case .moved(let point):
            return [
                .cursor(point), .speak(Phrases.column(at: describe(point, precise: true) + columnReading(at: point)))
            ]
        }
    }
}
