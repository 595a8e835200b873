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

/// The multi-mode instrument: pen gestures and keys become mode changes, tags and announcements;
/// pen positions become sound through the instrument. Knows nothing of X, sound servers or voices.
public final class SessionController {
    public let instrument: Instrument
    public private(set) var modes: ModeCycle
    public private(set) var book: TagBook { didSet { if book != oldValue { refreshCell() } } }
    public var pixelSize: PixelSize?
    /// Every atom column found in the image, once the search is done (nil until then).
    public private(set) var columns: [ImagePoint]? { didSet { refreshCell() } }
    /// The unit cell from the tags, refined by every column on its lattice when they are known.
    public private(set) var unitCell: UnitCell? { didSet { tickingCellChanged() } }
    /// Whether the touching pen ticks as it crosses the unit cell's boundaries.
    public private(set) var cellTicks: Bool { didSet { tickingCellChanged() } }
    /// The nearest-neighbour column spacing, if the image shows a lattice: taps snap within a share of it.
    private let columnSpacing: Double?
    /// Tags asked for but not yet placed, oldest first: a tap waits for its snap, and any tag asked
    /// for after it waits its turn, so tags are numbered, undone and marked in the order asked.
    private var queuedTags: [QueuedTag] = []
    private var lastSnapID = 0
    private var lowerBarrel: ClickDetector
    private var taps: TapDetector
    private var lastButtons = PenButtons()
    private var lastAnnouncement = ""
    private let opened: OpenedImage
    /// The column the arrow keys last moved to.
    public private(set) var cursor: ImagePoint?
    /// When the cursor's tone stops.
    private var cursorSilence: Double?
    /// Until when a second C clears the tags.
    private var clearConfirmation: Double?
    /// The time of the latest event or key.
    private var now = 0.0
    /// Zoom and pan; nil until the window is placed.
    public private(set) var view: View?
    /// Whether the status panel is shown over the image.
    public private(set) var showsStatus = false
    /// The upper barrel button held: where the drag last was, and whether it has moved (a pan)
    /// rather than been pressed in place (a command, on release).
    private var barrelDrag: (x: Double, y: Double, panned: Bool)?
    /// Screen pixels the pen may wander while the upper barrel button is held and still count as a press.
    static let dragThreshold = 4.0

    public static let cursorToneTime = 0.5
    public static let confirmationTime = 5.0

    public init(instrument: Instrument, opened: OpenedImage, tags: TagBook = TagBook(), pixelSize: PixelSize? = nil,
                columnSpacing: Double? = nil) {
        self.instrument = instrument
        self.opened = opened
        self.book = tags
        self.pixelSize = pixelSize
        self.columnSpacing = columnSpacing
        let profile = instrument.profile
        cellTicks = profile.gestures.cellTicks
        modes = ModeCycle(order: profile.modes)
        lowerBarrel = ClickDetector(doubleClickTime: profile.gestures.doubleClickTime)
        taps = TapDetector(maximumTime: profile.gestures.tapTime, maximumDistance: profile.gestures.tapDistance)
        refreshCell()
    }

    private func tickingCellChanged() { instrument.setTickingCell(cellTicks ? unitCell : nil) }

    private func refreshCell() {
        unitCell = book.cell.map { cell in columns.map { cell.refined(with: $0) } ?? cell }
    }

    /// The key help, spoken after F1.
    public static let keyHelp = Bindings.help(spoken: true)

    /// The greeting: what is open and how it sounds, any saved tags, then anything the user must
    /// know (`notices`).
    public func start(notices: [String] = []) -> [ControllerOutput] {
        let image = instrument.image
        let scale = opened.spokenScale(pixelSize: pixelSize).map { ", \($0)" } ?? ""
        var parts = ["SonicAtomic. \(opened.spokenName), \(image.width) by \(image.height) pixels, "
                     + "\(image.sampleType.spoken)\(scale). " + modeAnnouncement]
        if !book.tags.isEmpty {
            parts.append("\(count(book.tags.count, "saved tag")) loaded.")
            if let cell = cellDescription { parts.append(cell) }
        }
        return (unitCell == nil ? [] : [.cell(unitCell, ticks: cellTicks)]) + [announce((parts + notices).joined(separator: " "))]
    }

    /// Runs `change`, and says so if the unit cell or its ticking changed with it.
    private func noticingCell(_ change: () -> [ControllerOutput]) -> [ControllerOutput] {
        let before = (unitCell, cellTicks)
        let outputs = change()
        return before == (unitCell, cellTicks) ? outputs : outputs + [.cell(unitCell, ticks: cellTicks)]
    }

    /// The window now covers `window` (root coordinates).
    public func place(window: ScreenRect) -> [ControllerOutput] {
        if view == nil {
            view = View(imageWidth: instrument.image.width, imageHeight: instrument.image.height, window: window)
        } else {
            view!.place(in: window)
        }
        return viewChanged()
    }

    /// The new placement to the instrument, the screen and the log — and what the still pen is over now.
    private func viewChanged() -> [ControllerOutput] {
        guard let view else { return [] }
        instrument.place(view.viewport)
        return [.viewport(view.viewport)] + (instrument.refresh(at: now).map { [.pen($0)] } ?? [])
    }

    /// The columns the arrow keys step through, once found.
    public func setColumns(_ found: [ImagePoint]) -> [ControllerOutput] {
        noticingCell {
            columns = found
            return []
        }
    }

    /// When `poll` next has something to do, if ever.
    public var deadline: Double? {
        [lowerBarrel.deadline, cursorSilence, clearConfirmation].compactMap { $0 }.min()
    }

    /// Acts on anything whose time has come by `time`.
    public func poll(at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        var outputs: [ControllerOutput] = []
        if lowerBarrel.poll(at: time) == .single { outputs += noticingCell { run(.lowerBarrelClick) } }
        if let end = cursorSilence, time >= end {
            cursorSilence = nil
            instrument.probe(at: nil)
            outputs.append(.cursor(nil))
        }
        if let end = clearConfirmation, time >= end { clearConfirmation = nil }
        return outputs
    }

    public func handle(_ event: PenEvent) -> [ControllerOutput] {
        noticingCell { handlePen(event) }
    }

    private func handlePen(_ event: PenEvent) -> [ControllerOutput] {
        now = max(now, event.time)
        var outputs: [ControllerOutput] = [.pen(instrument.handle(event))]
        let pressed = PenButtons(bits: event.buttons.bits & ~lastButtons.bits)
        lastButtons = event.buttons
        if pressed.contains(PenButtons.lowerBarrel) {
            switch lowerBarrel.press(at: event.time) {
            case .double: outputs += run(.lowerBarrelDoubleClick)
            case .single: outputs += run(.lowerBarrelClick)
            case nil: break
            }
        }
        outputs += upperBarrel(event)
        let tipDown = event.buttons.contains(PenButtons.tip) && event.pressure > 0
        if let tap = taps.update(tipDown: tipDown, time: event.time, x: event.rootX, y: event.rootY),
           modes.current == .unitCellTagging {
            outputs += tag(at: instrument.viewport.imagePoint(rootX: tap.x, rootY: tap.y))
        }
        return outputs
    }

    /// A key by its name as the user reads it ("Tab", "Shift+Tab", "+"), pressed at `time`.
    public func handle(key: String, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        let command = Bindings.command(for: .key(key), in: modes.current)
        // Any other key between the two presses that clear the tags cancels the clearing.
        if command != .clearTags { clearConfirmation = nil }
        return command.map { handle($0, at: time) } ?? []
    }

    /// Carries out `command`, asked for at `time`.
    public func handle(_ command: Command, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        return noticingCell { run(command) }
    }

    private func run(_ command: Command) -> [ControllerOutput] {
        switch command {
        case .nextMode: return changeMode { $0.next() }
        case .previousMode: return changeMode { $0.previous() }
        case .chooseMode(let n):
            guard n <= modes.order.count else { return [announce("There is no mode \(n).")] }
            return changeMode { $0.select(number: n) }
        case .whereAmI: return [announce(whereAmI)]
        case .removeLastTag: return removeLastTag()
        case .repeatLast: return [repeatLast()]
        case .listTags: return [announce(tagList)]
        case .clearTags: return clearTags()
        case .markOrigin: return markOrigin()
        case .toggleCellTicks: return toggleCellTicks()
        case .keyHelp: return [announce(Self.keyHelp)]
        case .toggleStatusPanel:
            showsStatus.toggle()
            return [announce(showsStatus ? "Status panel shown." : "Status panel hidden.")]
        case .zoomIn: return zoom(inward: true)
        case .zoomOut: return zoom(inward: false)
        case .zoomWhole: return zoom(to: 1)
        case .quit, .windowClosed: return [announce("Goodbye."), .quit]
        case .pan(let direction): return pan(direction)
        case .dragView: return []
        case .stepCursor(let direction): return stepCursor(direction)
        case .tagCursorColumn:
            guard let cursor else { return [announce("Move to a column with the arrow keys first.")] }
            return place(Placement(point: cursor, snapped: true))
        }
    }

    /// The command a pen gesture gives in the current mode.
    private func run(_ gesture: PenGesture) -> [ControllerOutput] {
        Bindings.command(for: .pen(gesture), in: modes.current).map(run) ?? []
    }

    // MARK: - Zoom and pan

    /// The upper barrel button: held and dragged, it pans; pressed in place, it removes the last tag
    /// (tagging mode) or repeats the last announcement — on release, once it is clear it was no drag.
    private func upperBarrel(_ event: PenEvent) -> [ControllerOutput] {
        let held = event.buttons.contains(PenButtons.upperBarrel)
        guard var drag = barrelDrag else {
            if held { barrelDrag = (event.rootX, event.rootY, false) }
            return []
        }
        guard held else {
            barrelDrag = nil
            if drag.panned { return [announce(viewDescription)] }
            return run(.upperBarrelPress)
        }
        let dx = event.rootX - drag.x, dy = event.rootY - drag.y
        guard drag.panned || (dx * dx + dy * dy).squareRoot() > Self.dragThreshold, view != nil else { return [] }
        drag = (event.rootX, event.rootY, true)
        barrelDrag = drag
        // The image follows the pen.
        return view!.pan(dx: dx, dy: dy) ? viewChanged() : []
    }

    private func zoom(inward: Bool) -> [ControllerOutput] {
        guard let view else { return [] }
        let target = view.nextStep(in: inward)
        guard target != view.zoom else {
            return [announce(inward ? "Zoom 16 times: as far in as it goes." : "Zoom 1 time: the whole image.")]
        }
        return zoom(to: target)
    }

    /// Zooms about the pen (or the column cursor, or the window's centre), which stays put on screen.
    private func zoom(to level: Double) -> [ControllerOutput] {
        guard var view else { return [] }
        let anchor: (x: Double, y: Double)
        if let pen = instrument.lastRecord, pen.inImage {
            anchor = (pen.rootX, pen.rootY)
        } else if let cursor {
            anchor = view.viewport.rootPoint(of: cursor)
        } else {
            anchor = (Double(view.window.x) + Double(view.window.width) / 2, Double(view.window.y) + Double(view.window.height) / 2)
        }
        view.zoom(to: level, keeping: anchor)
        self.view = view
        return viewChanged() + [announce("Zoom \(Self.times(level)).")]
    }

    /// A quarter of the window per arrow press, the way the arrow points (the view moves, the image
    /// slides the other way).
    private func pan(_ direction: Direction) -> [ControllerOutput] {
        guard var view else { return [] }
        let step = 0.25 * Double(min(view.window.width, view.window.height))
        let name = switch direction {
        case .left: "left"
        case .right: "right"
        case .up: "top"
        case .down: "bottom"
        }
        guard view.pan(dx: -step * direction.step.x, dy: -step * direction.step.y) else {
            return [announce(view.zoom == 1 ? "The whole image is in view." : "At the \(name) edge.")]
        }
        self.view = view
        return viewChanged() + [announce(viewDescription)]
    }

    /// "Showing x 120 to 311, y 40 to 147": what part of the image is in view.
    private var viewDescription: String {
        guard let view else { return "" }
        let v = view.viewport
        let w = view.window
        let topLeft = v.imagePoint(rootX: Double(w.x), rootY: Double(w.y))
        let bottomRight = v.imagePoint(rootX: Double(w.x + w.width), rootY: Double(w.y + w.height))
        func clampX(_ x: Double) -> Int { min(max(Int(x.rounded()), 0), instrument.image.width - 1) }
        func clampY(_ y: Double) -> Int { min(max(Int(y.rounded()), 0), instrument.image.height - 1) }
        return "Showing x \(clampX(topLeft.x)) to \(clampX(bottomRight.x)), y \(clampY(topLeft.y)) to \(clampY(bottomRight.y))."
    }

    /// "4 times", "1.5 times", "1 time".
    static func times(_ zoom: Double) -> String {
        let number = zoom == zoom.rounded() ? String(Int(zoom)) : String(zoom)
        return zoom == 1 ? "1 time" : "\(number) times"
    }

    // MARK: - Modes and announcements

    private var modeAnnouncement: String { "Mode \(modes.number), \(modes.current.spokenName)." }

    private func changeMode(_ change: (inout ModeCycle) -> Void) -> [ControllerOutput] {
        change(&modes)
        instrument.set(mode: modes.current)
        return [.mode(modes.current), announce(modeAnnouncement)]
    }

    /// "x 512, y 300, intensity 82 percent" for the pixel under the pen.
    private var whereAmI: String {
        guard let record = instrument.lastRecord else { return "The pen is not on the tablet." }
        guard record.inImage else { return "Outside the image." }
        let point = ImagePoint(x: record.imageX, y: record.imageY)
        return describe(point, precise: false) + (unitCell.map { ", " + Self.cellPosition(of: point, in: $0) } ?? "")
    }

    /// "cell 3 along a, minus 1 along b": which cell of the lattice a point is in, counted from the origin's.
    static func cellPosition(of point: ImagePoint, in cell: UnitCell) -> String {
        let (n, m) = cell.cellIndex(of: point)
        func spoken(_ k: Int) -> String { k < 0 ? "minus \(-k)" : "\(k)" }
        return "cell \(spoken(n)) along a, \(spoken(m)) along b"
    }

    /// A point as spoken: whole pixels, or to a tenth for refined column centres.
    private func describe(_ p: ImagePoint, precise: Bool) -> String {
        let level = instrument.level(at: p) ?? 0
        let position = precise
            ? "x \(UnitCell.oneDecimal(p.x)), y \(UnitCell.oneDecimal(p.y))"
            : "x \(p.nearestPixel.x), y \(p.nearestPixel.y)"
        return "\(position), intensity \(Int((level * 100).rounded())) percent"
    }

    private func repeatLast() -> ControllerOutput {
        .speak(lastAnnouncement.isEmpty ? "Nothing to repeat." : lastAnnouncement)
    }

    private func announce(_ text: String) -> ControllerOutput {
        lastAnnouncement = text
        return .speak(text)
    }

    private func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    // MARK: - Tags and the unit cell

    /// Where a tag goes, and what to add to its announcement.
    private struct Placement {
        var point: ImagePoint
        var snapped: Bool
        var note = ""
    }

    private struct QueuedTag {
        /// Where it was asked for: the tap, or the cursor's column.
        var point: ImagePoint
        /// The tap's snap it waits for; nil for a tag from the column cursor, queued behind a tap.
        var snapID: Int?
        var placement: Placement?
        /// O was pressed while it waited: it becomes the unit cell's origin once placed.
        var makesOrigin = false
    }

    /// A tap in tagging mode: snapped to the nearest atom column if the image shows a lattice.
    private func tag(at point: ImagePoint) -> [ControllerOutput] {
        guard instrument.level(at: point) != nil else { return [announce("Not tagged: outside the image.")] }
        guard let spacing = columnSpacing else { return place(Placement(point: point, snapped: false)) }
        lastSnapID += 1
        queuedTags.append(QueuedTag(point: point, snapID: lastSnapID))
        return [.snap(SnapRequest(id: lastSnapID, point: point, radius: instrument.profile.gestures.snapRadius * spacing)),
                .tagsChanged]
    }

    /// Tags at once, or after the taps still waiting for their snaps.
    private func place(_ placement: Placement) -> [ControllerOutput] {
        guard queuedTags.isEmpty else {
            queuedTags.append(QueuedTag(point: placement.point, placement: placement))
            return [.tagsChanged]
        }
        return addTag(placement)
    }

    /// The tags asked for and not yet placed, oldest first: saved with the tags.
    public var unplacedTags: [UnplacedTag] {
        queuedTags.map { UnplacedTag(point: $0.point, makesOrigin: $0.makesOrigin) }
    }

    /// A tap's snap, done: the tag goes on the column, or where the pen touched if none was near —
    /// unless it was undone or cleared meanwhile.
    public func snapped(_ request: SnapRequest, to column: ImagePoint?) -> [ControllerOutput] {
        guard let index = queuedTags.firstIndex(where: { $0.snapID == request.id }) else { return [] }
        queuedTags[index].placement = column.map { Placement(point: $0, snapped: true) }
            ?? Placement(point: request.point, snapped: false, note: ", not snapped: no atom column nearby")
        return noticingCell {
            var outputs: [ControllerOutput] = []
            while let next = queuedTags.first, let placement = next.placement {
                queuedTags.removeFirst()
                outputs += addTag(placement)
                if next.makesOrigin { outputs += markLastTagAsOrigin() }
            }
            return inOneAnnouncement(outputs)
        }
    }

    /// Joins what `outputs` says into one announcement, so that no part cuts off another.
    private func inOneAnnouncement(_ outputs: [ControllerOutput]) -> [ControllerOutput] {
        let texts = outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
        guard texts.count > 1 else { return outputs }
        return outputs.filter { if case .speak = $0 { false } else { true } } + [announce(texts.joined(separator: " "))]
    }

    private func addTag(_ placement: Placement) -> [ControllerOutput] {
        let hadCell = book.cell != nil
        let tag = book.add(x: placement.point.x, y: placement.point.y, snapped: placement.snapped)
        var text = "Tag \(tag.id) at \(describe(placement.point, precise: placement.snapped))\(placement.note)."
        if !hadCell, let cell = cellDescription { text += " " + cell }
        return [.tagAdded(tag), .tagsChanged, announce(text)]
    }

    /// Undoes the latest tag asked for, placed or not.
    private func removeLastTag() -> [ControllerOutput] {
        guard queuedTags.popLast() == nil else { return [.tagsChanged, announce("Removed the tag being placed.")] }
        guard let tag = book.removeLast() else { return [announce("No tags to remove.")] }
        return [.tagRemoved(tag), .tagsChanged, announce("Removed tag \(tag.id).")]
    }

    private func clearTags() -> [ControllerOutput] {
        let total = book.tags.count + queuedTags.count
        guard total > 0 else { return [announce("No tags to clear.")] }
        guard clearConfirmation != nil else {
            clearConfirmation = now + Self.confirmationTime
            return [announce("Clear all \(count(total, "tag"))? Press C again to confirm.")]
        }
        clearConfirmation = nil
        queuedTags.removeAll()
        let removed = book.tags
        book.clear()
        return removed.reversed().map(ControllerOutput.tagRemoved) + [.tagsChanged, announce("Cleared \(count(total, "tag")).")]
    }

    /// Makes the latest tag asked for the cell's origin (once placed, if it is still waiting).
    private func markOrigin() -> [ControllerOutput] {
        guard queuedTags.isEmpty else {
            queuedTags[queuedTags.count - 1].makesOrigin = true
            return [.tagsChanged, announce("The tag being placed will be the unit cell's origin.")]
        }
        return markLastTagAsOrigin()
    }

    private func markLastTagAsOrigin() -> [ControllerOutput] {
        guard let tag = book.markLastAsOrigin() else { return [announce("No tags yet: tag the cell's origin first.")] }
        return [.tagsChanged, announce("Tag \(tag.id) is the unit cell's origin. Tag its two neighbours next.")]
    }

    private var tagList: String {
        guard !book.tags.isEmpty || !queuedTags.isEmpty else { return "No tags." }
        var parts = book.tags.isEmpty ? [] : ["\(count(book.tags.count, "tag"))."]
        parts += book.tags.map { "Tag \($0.id) at \(describe($0.point, precise: $0.snapped))." }
        if !queuedTags.isEmpty { parts.append("\(count(queuedTags.count, "tag")) still being placed.") }
        if let cell = cellDescription { parts.append(cell) }
        return parts.joined(separator: " ")
    }

    private var cellDescription: String? { unitCell?.spoken(pixelSize: pixelSize) }

    private func toggleCellTicks() -> [ControllerOutput] {
        cellTicks.toggle()
        guard cellTicks else { return [announce("Cell boundary ticks off.")] }
        return [announce(unitCell == nil ? "Cell boundary ticks on, once the unit cell is tagged." : "Cell boundary ticks on.")]
    }

    /// What a sighted colleague sees drawn over the image: the tags, the cell, the column cursor,
    /// and the status panel when shown.
    public var overlay: Overlay {
        var overlay = Overlay(tags: book, cell: unitCell, cursor: cursor)
        if showsStatus { overlay.status = statusLines }
        return overlay
    }

    /// The status panel: what the listener hears, and the view.
    var statusLines: [String] {
        var lines = ["Mode \(modes.number): \(modes.current.spokenName)"]
        if let r = instrument.lastRecord {
            lines.append(r.frequency > 0
                         ? "Pitch \(UnitCell.oneDecimal(r.frequency)) Hz" + (NoteName.of(r.frequency).map { " (\($0))" } ?? "")
                         : "Silent")
            lines.append(r.inImage
                         ? "Level \(Int((r.level * 100).rounded())) %   x \(UnitCell.oneDecimal(r.imageX)), y \(UnitCell.oneDecimal(r.imageY))"
                         : "Outside the image")
            lines.append("Pressure \(Int((r.pressure * 100).rounded())) %   Tilt \(Int(r.tiltX.rounded()))°, \(Int(r.tiltY.rounded()))°")
        }
        lines.append("Zoom \(Self.times(view?.zoom ?? 1))   Tags \(book.tags.count)")
        return lines
    }

    // MARK: - Column cursor

    /// Moves the cursor to the nearest column in the arrow's direction (within 45° of it).
    private func stepCursor(_ way: Direction) -> [ControllerOutput] {
        guard let columns else { return [announce("Still finding the atom columns.")] }
        guard !columns.isEmpty else { return [announce("No atom columns were found in this image.")] }
        let direction = way.step
        let next: ImagePoint?
        if let from = cursor {
            next = columns.filter { c in
                let dx = c.x - from.x, dy = c.y - from.y
                let distance = (dx * dx + dy * dy).squareRoot()
                return distance > 0.5 && (dx * direction.x + dy * direction.y) / distance >= 0.7071
            }.min { a, b in
                // Nearest, favouring those straight ahead.
                score(a, from: from, direction) < score(b, from: from, direction)
            }
        } else {
            let start = instrument.lastRecord.map { ImagePoint(x: $0.imageX, y: $0.imageY) }
                ?? ImagePoint(x: Double(instrument.image.width - 1) / 2, y: Double(instrument.image.height - 1) / 2)
            next = columns.min { distanceSquared($0, start) < distanceSquared($1, start) }
        }
        guard let next else {
            return [announce("No column further \(way).")]
        }
        cursor = next
        instrument.probe(at: next)
        cursorSilence = now + Self.cursorToneTime
        return [.cursor(next), announce("Column at \(describe(next, precise: true)).")]
    }

    private func distanceSquared(_ a: ImagePoint, _ b: ImagePoint) -> Double {
        (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)
    }

    private func score(_ c: ImagePoint, from: ImagePoint, _ direction: (x: Double, y: Double)) -> Double {
        let dx = c.x - from.x, dy = c.y - from.y
        let along = dx * direction.x + dy * direction.y
        let across = abs(dx * direction.y - dy * direction.x)
        return along + 2 * across
    }
}
