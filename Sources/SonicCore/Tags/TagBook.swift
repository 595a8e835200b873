/// The user's tags, and which three of them are the unit cell's origin and its two neighbours:
/// the first three tags, unless the user marked another tag as the origin — then that one and the
/// next two tagged after it.
public struct TagBook: Sendable, Equatable {
    public private(set) var tags: [Tag]
    /// Ids of the origin, a and b, when the user chose the origin; nil means the first three tags.
    public private(set) var cellMarks: [Int]?

    public init(tags: [Tag] = [], cellMarks: [Int]? = nil) {
        self.tags = tags
        self.cellMarks = cellMarks.map { marks in Array(marks.filter { id in tags.contains { $0.id == id } }.prefix(3))
        }
    }

    /// Adds a tag at the next number.
    @discardableResult
    public mutating func add(x: Double, y: Double, snapped: Bool) -> Tag {
        let tag = Tag(id: (tags.last?.id ?? 0) + 1, x: x, y: y, snapped: snapped)
        tags.append(tag)
        if var marks = cellMarks, marks.count < 3 {
            marks.append(tag.id)
            cellMarks = marks
        }
        return tag
    }

    public mutating func removeLast() -> Tag? {
        guard let tag = tags.popLast() else { return nil }
        cellMarks?.removeAll { $0 == tag.id }
        return tag
    }

    public mutating func clear() {
        tags = []
        cellMarks = nil
    }

    /// Makes the last tag the cell's origin; the next two tags will be its neighbours a and b.
    public mutating func markLastAsOrigin() -> Tag? {
        guard let tag = tags.last else { return nil }
        cellMarks = [tag.id]
        return tag
    }

    /// Places tags saved unplaced — the program stopped while their taps were being snapped — in
    /// their order: each on the column nearest it within `snapRadius` spacings, or where tapped.
    public mutating func place(_ unplaced: [UnplacedTag], snapRadius: Double, by snapper: any ColumnSnapping) -> [Tag] {
        unplaced.map { waiting in
            let column = snapper.spacing.flatMap {
                snapper.columnCentre(nearX: waiting.point.x, y: waiting.point.y, radius: snapRadius * $0)
            }
            let point = column ?? waiting.point
            let tag = add(x: point.x, y: point.y, snapped: column != nil)
            if waiting.makesOrigin { _ = markLastAsOrigin() }
            return tag
        }
    }

    /// The origin, a and b tags, once all three exist.
    public var cellTags: [Tag]? {
        let ids = cellMarks ?? tags.prefix(3).map(\.id)
        let found = ids.compactMap { id in tags.first { $0.id == id } }
        return found.count == 3 ? found : nil
    }

    /// The cell the three tags span (nil until they exist, or if they are in a line).
    public var cell: UnitCell? {
        guard let t = cellTags else { return nil }
        return UnitCell(origin: t[0].point, a: t[1].point, b: t[2].point)
    }
}
