/// The tags, and those asked for but not yet placed, in the order asked. A tap in tagging mode waits
/// for its snap to an atom column, worked out away from the event loop; any tag asked for after it
/// waits its turn, so tags are numbered, undone and made the cell's origin in the order the user
/// asked for them, however long each snap takes.
struct TagQueue: Sendable {
    /// A tag put in the book.
    struct Placed: Sendable, Equatable {
        var tag: Tag
        /// A tap with no atom column near it, tagged where it landed.
        var missedColumn = false
        /// The cell the tags span, when this tag completed it.
        var completedCell: UnitCell?
        /// The tag was made the cell's origin while it waited, and is now.
        var becameOrigin = false
    }

    /// What undoing the latest tag took back.
    enum Removal: Sendable, Equatable {
        case waitingTag
        case tag(Tag)
        case nothing
    }

    /// What making the latest tag the cell's origin marked.
    enum OriginMark: Sendable, Equatable {
        case waitingTag
        case tag(Tag)
        case nothing
    }

    private struct Waiting: Sendable {
        /// Where it was asked for: the tap, or the cursor's column.
        var point: ImagePoint
        /// The tap's snap it waits for; nil for a tag queued behind a tap.
        var snapID: Int?
        /// Where it goes, once known.
        var placement: (point: ImagePoint, snapped: Bool, missedColumn: Bool)?
        var makesOrigin = false
    }

    private(set) var book: TagBook
    private var waiting: [Waiting] = []
    private var lastSnapID = 0
    /// Changes with every change to the tags or the tags waiting: each is a time to save them.
    private(set) var revision = 0

    init(book: TagBook = TagBook()) { self.book = book }

    /// The tags asked for and not yet placed, oldest first: saved with the tags.
    var unplaced: [UnplacedTag] { waiting.map { UnplacedTag(point: $0.point, makesOrigin: $0.makesOrigin) } }

    var waitingCount: Int { waiting.count }

    /// A tap to snap to the nearest column within `radius`: it waits for `snapped(_:to:)`.
    mutating func awaitSnap(at point: ImagePoint, radius: Double) -> SnapRequest {
        lastSnapID += 1
        waiting.append(Waiting(point: point, snapID: lastSnapID))
        revision += 1
        return SnapRequest(id: lastSnapID, point: point, radius: radius)
    }

    /// A tag at `point`: placed at once, or (nil) queued behind the taps still waiting for their snaps.
    mutating func tag(at point: ImagePoint, snapped: Bool) -> Placed? {
        guard waiting.isEmpty else {
            waiting.append(Waiting(point: point, placement: (point, snapped, false)))
            revision += 1
            return nil
        }
        return add(point, snapped: snapped, missedColumn: false)
    }

    /// A tap's snap, done: the tap goes on the column, or where it landed if none was near, unless it
    /// was undone or cleared meanwhile; then every tag now ready at the head of the queue is placed.
    mutating func snapped(_ request: SnapRequest, to column: ImagePoint?) -> [Placed] {
        guard let index = waiting.firstIndex(where: { $0.snapID == request.id }) else { return [] }
        waiting[index].placement = column.map { ($0, true, false) } ?? (request.point, false, true)
        var placed: [Placed] = []
        while let next = waiting.first, let placement = next.placement {
            waiting.removeFirst()
            var tag = add(placement.point, snapped: placement.snapped, missedColumn: placement.missedColumn)
            if next.makesOrigin, book.markLastAsOrigin() != nil {
                tag.becameOrigin = true
                revision += 1
            }
            placed.append(tag)
        }
        return placed
    }

    private mutating func add(_ point: ImagePoint, snapped: Bool, missedColumn: Bool) -> Placed {
        let hadCell = book.cell != nil
        let tag = book.add(x: point.x, y: point.y, snapped: snapped)
        revision += 1
        return Placed(tag: tag, missedColumn: missedColumn, completedCell: hadCell ? nil : book.cell)
    }

    /// Undoes the latest tag asked for, placed or not.
    mutating func removeLast() -> Removal {
        if waiting.popLast() != nil {
            revision += 1
            return .waitingTag
        }
        guard let tag = book.removeLast() else { return .nothing }
        revision += 1
        return .tag(tag)
    }

    /// Takes every tag away, placed or waiting; returns the placed ones.
    mutating func clear() -> [Tag] {
        let removed = book.tags
        waiting.removeAll()
        book.clear()
        revision += 1
        return removed
    }

    /// Makes the latest tag asked for the cell's origin — once placed, if it is still waiting.
    mutating func markOrigin() -> OriginMark {
        guard waiting.isEmpty else {
            waiting[waiting.count - 1].makesOrigin = true
            revision += 1
            return .waitingTag
        }
        guard let tag = book.markLastAsOrigin() else { return .nothing }
        revision += 1
        return .tag(tag)
    }
}
