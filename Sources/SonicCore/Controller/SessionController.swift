/// The session's router: pen events, keys (through `Bindings`) and commands go to the part that
/// handles them — the instrument, the tags, the column cursor, zoom and pan, the status panel — and
/// what is to be done comes back as `ControllerOutput`s, in the words of `Phrases`. Knows nothing
/// of X, sound servers or voices.
public final class SessionController {
    public let instrument: Instrument
    private let opened: OpenedImage
    private let tagging: Tagging
    private var columnCursor = ColumnCursor()
    private let navigation: Navigation
    private var statusPanel: StatusPanel
    private var penGestures: PenGestures
    private var lastAnnouncement = ""
    /// Whether the sound plays: false while the sound server is away.
    public private(set) var soundPlays = true
    /// The last announcement made while the sound server was away, said again when it is back.
    private var unheard: String?
    /// The time of the latest event or command.
    private var now = 0.0

    public init(
        instrument: Instrument, opened: OpenedImage, tags: TagBook = TagBook(), pixelSize: PixelSize? = nil,
        columnSpacing: Double? = nil
    ) {
        self.instrument = instrument
        self.opened = opened
        tagging = Tagging(instrument: instrument, book: tags, pixelSize: pixelSize, columnSpacing: columnSpacing)
        navigation = Navigation(instrument: instrument)
        penGestures = PenGestures(instrument.profile.gestures)
        statusPanel = StatusPanel(textSize: TextSize(scale: instrument.profile.display.textSize))
    }

    public var book: TagBook { tagging.queue.book }
    /// The tags asked for and not yet placed, oldest first: saved with the tags.
    public var unplacedTags: [UnplacedTag] { tagging.queue.unplaced }
    /// The tags as they are to be saved.
    public var tagSnapshot: TagSnapshot { tagging.snapshot }
    public var pixelSize: PixelSize? { tagging.pixelSize }
    /// Every atom column found in the image, once the search is done (nil until then).
    public var columns: [ImagePoint]? { columnCursor.columns }
    /// The column the arrow keys last moved to.
    public var cursor: ImagePoint? { columnCursor.position }
    /// The unit cell from the tags, refined by every column on its lattice when they are known.
    public var unitCell: UnitCell? { instrument.cell }

    /// What a sighted colleague sees drawn over the image: the tags, the cell, the column cursor,
    /// and the status panel when shown.
    public var overlay: Overlay {
        var overlay = Overlay(tags: book, cell: unitCell, cursor: cursor)
        overlay.status = statusPanel.lines(
            modeNumber: modes.number, mode: instrument.mode, pen: instrument.lastRecord,
            zoom: navigation.view?.zoom ?? 1, tagCount: book.tags.count, soundPlays: soundPlays)
        overlay.textSize = statusPanel.textSize
        return overlay
    }

    /// The profile's modes, at the instrument's.
    private var modes: ModeCycle {
        var cycle = ModeCycle(order: instrument.profile.modes)
        cycle.select(instrument.mode)
        return cycle
    }

    // MARK: - What comes in

    /// The greeting: what is open and how it sounds, any saved tags, then anything the user must
    /// know (`notices`).
    public func start(notices: [String] = []) -> [ControllerOutput] {
        completing {
            var parts = [
                Phrases.greeting(
                    opened, instrument.image, pixelSize: pixelSize, modeNumber: modes.number,
                    mode: instrument.mode)
            ]
            if !book.tags.isEmpty {
                parts.append(Phrases.savedTagsLoaded(book.tags.count))
                if let cell = tagging.cellDescription { parts.append(cell) }
            }
            return (unitCell == nil ? [] : [.cell(unitCell, ticks: instrument.cellTicks)])
                + [.speak((parts + notices).joined(separator: " "))]
        }
    }

    /// The window now covers `window` (root coordinates).
    public func place(window: ScreenRect) -> [ControllerOutput] {
        completing { navigation.place(window: window, at: now) }
    }

    /// The columns the arrow keys step through, once found; they refine the unit cell. With the lattice read from
    /// them, the column modes sound them.
    public func setColumns(_ found: [ImagePoint], lattice: LatticeColumns? = nil) -> [ControllerOutput] {
        completing {
            columnCursor.setColumns(found)
            tagging.setColumns(found)
            instrument.set(lattice: lattice)
            return []
        }
    }

    /// When `poll` next has something to do, if ever.
    public var deadline: Double? {
        [penGestures.deadline, columnCursor.toneEnd, tagging.clearingEnd].compactMap { $0 }.min()
    }

    /// Acts on anything whose time has come by `time`.
    public func poll(at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        return completing {
            var outputs: [ControllerOutput] = []
            if let gesture = penGestures.poll(at: time) { outputs += run(gesture) }
            if columnCursor.toneEnds(by: time) {
                instrument.probe(at: nil, time: time)
                outputs.append(.cursor(nil))
            }
            tagging.expireClearing(by: time)
            return outputs
        }
    }

    public func handle(_ event: PenEvent) -> [ControllerOutput] {
        now = max(now, event.time)
        return completing {
            var outputs: [ControllerOutput] = [.pen(instrument.handle(event))]
            for recognized in penGestures.update(event) {
                switch recognized {
                case .gesture(let gesture): outputs += run(gesture)
                case .drag(let dx, let dy): outputs += navigation.drag(dx: dx, dy: dy, at: now)
                case .dragEnd: outputs += navigation.endDrag()
                case .tap(let x, let y):
                    guard instrument.mode == .unitCellTagging else { continue }
                    outputs += tagging.tap(at: instrument.viewport.imagePoint(rootX: x, rootY: y))
                }
            }
            return outputs
        }
    }

    /// A key by its name as the user reads it ("Tab", "Shift+Tab", "+"), pressed at `time`.
    public func handle(key: String, at time: Double) -> [ControllerOutput] {
        let command = Bindings.command(for: .key(key), in: instrument.mode)
        // Any other key between the two presses that clear the tags cancels the clearing.
        if command != .clearTags { tagging.cancelClearing() }
        guard let command else {
            now = max(now, time)
            return []
        }
        return handle(command, at: time)
    }

    /// Carries out `command`, asked for at `time`.
    public func handle(_ command: Command, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        return completing { run(command) }
    }

    /// A tap's snap, done: the tags waiting for it are placed, and announced in one sentence.
    public func snapped(_ request: SnapRequest, to column: ImagePoint?) -> [ControllerOutput] {
        completing { tagging.snapped(request, to: column) }
    }

    /// The pen's device went away (unplugged; its tone has been silenced) or appeared.
    public func penDevice(found: Bool) -> [ControllerOutput] {
        completing { [.speak(found ? Phrases.penFound : Phrases.penLost)] }
    }

    /// The sound server went away: nothing is heard until it is back, so what is said meanwhile is
    /// kept for then.
    public func soundLost() -> [ControllerOutput] {
        soundPlays = false
        unheard = nil
        return []
    }

    /// The sound plays again: said, with the last thing asked for while it was away.
    public func soundBack() -> [ControllerOutput] {
        soundPlays = true
        let text = ([Phrases.soundBack] + [unheard].compactMap { $0 }).joined(separator: " ")
        unheard = nil
        return completing { [.speak(text)] }
    }

    /// Saving the tags failed: the user is warned, like any announcement (and can hear it again).
    public func saveFailed() -> [ControllerOutput] {
        completing { [.speak(Phrases.tagsNotSaved)] }
    }

    /// Every way in ends here: the unit cell follows the tags, a change to the tags or the cell is
    /// passed on, and the last thing said is kept for repeating.
    private func completing(_ body: () -> [ControllerOutput]) -> [ControllerOutput] {
        let before = (revision: tagging.queue.revision, book: book, cell: instrument.cell, ticks: instrument.cellTicks)
        var outputs = body()
        if tagging.queue.revision != before.revision {
            if book != before.book { tagging.refreshCell() }
            outputs.append(.save(tagging.snapshot))
        }
        if instrument.cell != before.cell || instrument.cellTicks != before.ticks {
            outputs.append(.cell(instrument.cell, ticks: instrument.cellTicks))
        }
        for case .speak(let text) in outputs {
            lastAnnouncement = text
            if !soundPlays { unheard = text }
        }
        return outputs
    }

    // MARK: - Commands

    private func run(_ gesture: PenGesture) -> [ControllerOutput] {
        Bindings.command(for: .pen(gesture), in: instrument.mode).map(run) ?? []
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
        case .keyHelp: return [.speak(Phrases.keyHelp)]
        case .toggleStatusPanel:
            statusPanel.shown.toggle()
            return [.speak(Phrases.statusPanel(shown: statusPanel.shown))]
        case .textLarger, .textSmaller:
            let larger = command == .textLarger
            guard statusPanel.textSize.step(larger: larger) else {
                return [.speak(Phrases.textSizeLimit(larger: larger))]
            }
            return [.speak(Phrases.textSize(statusPanel.textSize.scale))]
        case .zoomIn: return navigation.zoom(inward: true, cursor: cursor, at: now)
        case .zoomOut: return navigation.zoom(inward: false, cursor: cursor, at: now)
        case .zoomWhole: return navigation.zoom(to: 1, cursor: cursor, at: now)
        case .pan(let direction): return navigation.pan(direction, at: now)
        case .dragView:
            navigation.startDrag()
            return []
        case .removeLastTag: return tagging.removeLast()
        case .listTags: return [.speak(tagging.list)]
        case .clearTags: return tagging.clear(at: now)
        case .markOrigin: return tagging.markOrigin()
        case .toggleCellTicks:
            instrument.set(cell: instrument.cell, ticks: !instrument.cellTicks)
            return [.speak(Phrases.cellTicks(on: instrument.cellTicks, hasCell: instrument.cell != nil))]
        case .stepCursor(let direction): return stepCursor(direction)
        case .tagCursorColumn:
            guard let cursor else { return [.speak(Phrases.moveToAColumnFirst)] }
            return tagging.tagColumn(at: cursor)
        case .quit, .windowClosed: return [.speak(Phrases.goodbye), .quit]
        }
    }

    private func changeMode(_ change: (inout ModeCycle) -> Void) -> [ControllerOutput] {
        var cycle = modes
        change(&cycle)
        instrument.set(mode: cycle.current, at: now)
        let needs = latticeNeeded.map { " " + $0 } ?? ""
        return [.mode(cycle.current), .speak(Phrases.mode(cycle.number, cycle.current) + needs)]
    }

    /// In a column mode without a lattice: what it needs.
    private var latticeNeeded: String? {
        guard instrument.mode.soundsColumns, instrument.lattice?.hasLattice != true else { return nil }
        return Phrases.latticeNeeded(searching: columns == nil)
    }

    /// In a column mode, what the lattice says of the column at `point`: ", column intensity 1.31 times its
    /// sublattice's median", ", displaced 14 picometres, towards the upper left"; empty in the other modes.
    private func columnPhysics(at point: ImagePoint) -> String {
        guard instrument.mode.soundsColumns, let lattice = instrument.lattice, lattice.hasLattice else { return "" }
        guard let (_, column) = instrument.column(near: point) else { return ", " + Phrases.betweenColumns }
        switch instrument.mode {
        case .columnIntensity:
            return ", " + (column.relativeIntensity.map(Phrases.columnIntensity) ?? Phrases.offTheLattice)
        default:
            return ", "
                + (column.displacement.map { Phrases.displaced($0, pixelSize: lattice.pixelSize) }
                    ?? Phrases.offTheLattice)
        }
    }

    /// "x 512, y 300, intensity 82 percent" for the pixel under the pen, and its cell.
    private var whereAmI: String {
        guard let record = instrument.lastRecord else { return Phrases.penNotOnTablet }
        guard record.inImage else { return Phrases.outsideImage }
        let point = ImagePoint(x: record.imageX, y: record.imageY)
        let cell = unitCell.map { cell in
            let (n, m) = cell.cellIndex(of: point)
            return ", " + Phrases.cellPosition(n, m)
        }
        let needs = latticeNeeded.map { ". " + $0 } ?? ""
        return describe(point, precise: false) + columnPhysics(at: point) + (cell ?? "") + needs
    }

    private func describe(_ point: ImagePoint, precise: Bool) -> String {
        Phrases.point(point, level: instrument.level(at: point) ?? 0, precise: precise)
    }

    /// Moves the column cursor; its tone sounds the column it reaches.
    private func stepCursor(_ direction: Direction) -> [ControllerOutput] {
        let start =
            instrument.lastRecord.map { ImagePoint(x: $0.imageX, y: $0.imageY) }
            ?? ImagePoint(x: Double(instrument.image.width - 1) / 2, y: Double(instrument.image.height - 1) / 2)
        switch columnCursor.step(direction, from: start, at: now) {
        case .searching: return [.speak(Phrases.stillFindingColumns)]
        case .noColumns: return [.speak(Phrases.noColumnsFound)]
        case .noneFurther: return [.speak(Phrases.noColumnFurther(direction))]
        case .moved(let point):
            instrument.probe(at: point, time: now)
            return [
                .cursor(point), .speak(Phrases.column(at: describe(point, precise: true) + columnPhysics(at: point)))
            ]
        }
    }
}
