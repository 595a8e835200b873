/// The tag commands, answered: a tap or the column cursor's column tagged (a tap snapped first when
/// the image shows a lattice), the latest tag undone, all cleared after asking, the origin marked,
/// the tags listed. The order is the `TagQueue`'s; the unit cell the tags span goes to the
/// instrument, which ticks at its boundaries.
final class Tagging {
    /// How long a first clear command waits for the second that clears.
    static let confirmationTime = 5.0

    private let instrument: Instrument
    /// The nearest-neighbour column spacing, if the image shows a lattice: taps snap within a share of it.
    private let columnSpacing: Double?
    private(set) var queue: TagQueue
    /// The size of a pixel, for speaking the cell in picometres; saved with the tags.
    let pixelSize: PixelSize?
    /// Every atom column, once found: they refine the unit cell.
    private var columns: [ImagePoint]?
    /// Until when a second clear command clears the tags.
    private(set) var clearingEnd: Double?

    init(instrument: Instrument, book: TagBook, pixelSize: PixelSize?, columnSpacing: Double?) {
        self.instrument = instrument
        queue = TagQueue(book: book)
        self.pixelSize = pixelSize
        self.columnSpacing = columnSpacing
        refreshCell()
    }

    /// The tags as they are to be saved.
    var snapshot: TagSnapshot { TagSnapshot(book: queue.book, unplaced: queue.unplaced, pixelSize: pixelSize) }

    /// "Unit cell: a 24.1 pixels, …", once there is one.
    var cellDescription: String? { instrument.cell.map { Phrases.unitCell($0, pixelSize: pixelSize) } }

    /// The columns, once found, refine the cell.
    func setColumns(_ found: [ImagePoint]) {
        columns = found
        refreshCell()
    }

    /// The instrument's cell follows the tags, refined by every column on its lattice once known.
    func refreshCell() {
        instrument.set(cell: queue.book.cell.map(refined), ticks: instrument.cellTicks)
    }

    private func refined(_ cell: UnitCell) -> UnitCell { columns.map { cell.refined(with: $0) } ?? cell }

    /// A tap in tagging mode: snapped to the nearest atom column if the image shows a lattice.
    func tap(at point: ImagePoint) -> [ControllerOutput] {
        guard instrument.level(at: point) != nil else { return [.speak(Phrases.notTaggedOutside)] }
        guard let spacing = columnSpacing else { return tag(point, snapped: false) }
        return [.snap(queue.awaitSnap(at: point, radius: instrument.profile.gestures.snapRadius * spacing))]
    }

    /// A column's centre, tagged as it is.
    func tagColumn(at point: ImagePoint) -> [ControllerOutput] { tag(point, snapped: true) }

    private func tag(_ point: ImagePoint, snapped: Bool) -> [ControllerOutput] {
        announce(queue.tag(at: point, snapped: snapped).map { [$0] } ?? [])
    }

    /// A tap's snap, done: the tags waiting for it are placed, and announced in one sentence.
    func snapped(_ request: SnapRequest, to column: ImagePoint?) -> [ControllerOutput] {
        announce(queue.snapped(request, to: column))
    }

    /// Tags just placed, for the log, and said in one announcement so that no part cuts off another.
    private func announce(_ placed: [TagQueue.Placed]) -> [ControllerOutput] {
        guard !placed.isEmpty else { return [] }
        let texts = placed.map { placed in
            var text = Phrases.tagPlaced(placed.tag.id, at: describe(placed.tag), missedColumn: placed.missedColumn)
            if let cell = placed.completedCell { text += " " + Phrases.unitCell(refined(cell), pixelSize: pixelSize) }
            return placed.becameOrigin ? text + " " + Phrases.origin(placed.tag.id) : text
        }
        return placed.map { .tagAdded($0.tag) } + [.speak(texts.joined(separator: " "))]
    }

    func removeLast() -> [ControllerOutput] {
        switch queue.removeLast() {
        case .waitingTag: [.speak(Phrases.removedWaitingTag)]
        case .tag(let tag): [.tagRemoved(tag), .speak(Phrases.removedTag(tag.id))]
        case .nothing: [.speak(Phrases.noTagsToRemove)]
        }
    }

    /// Asks first; clears when asked again before `clearingEnd`.
    func clear(at time: Double) -> [ControllerOutput] {
        let total = queue.book.tags.count + queue.waitingCount
        guard total > 0 else { return [.speak(Phrases.noTagsToClear)] }
        guard clearingEnd != nil else {
            clearingEnd = time + Self.confirmationTime
            return [.speak(Phrases.confirmClearing(total))]
        }
        clearingEnd = nil
        return queue.clear().reversed().map(ControllerOutput.tagRemoved) + [.speak(Phrases.cleared(total))]
    }

    /// Anything else asked for before the second clear command stops the clearing.
    func cancelClearing() { clearingEnd = nil }

    /// The time to clear has run out by `time`.
    func expireClearing(by time: Double) {
        if let end = clearingEnd, time >= end { clearingEnd = nil }
    }

    func markOrigin() -> [ControllerOutput] {
        switch queue.markOrigin() {
        case .waitingTag: [.speak(Phrases.waitingTagWillBeOrigin)]
        case .tag(let tag): [.speak(Phrases.origin(tag.id))]
        case .nothing: [.speak(Phrases.noTagForOrigin)]
        }
    }

    /// Every tag and where it is, those still being placed, and the cell.
    var list: String {
        Phrases.tagList(
            queue.book.tags.map { ($0.id, describe($0)) }, waiting: queue.waitingCount, cell: cellDescription)
    }

    /// A tag's place as spoken: to a tenth of a pixel when snapped to a column's refined centre.
    private func describe(_ tag: Tag) -> String {
        Phrases.point(tag.point, level: instrument.level(at: tag.point) ?? 0, precise: tag.snapped)
    }
}
