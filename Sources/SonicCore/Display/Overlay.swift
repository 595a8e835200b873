/// What is drawn over the image for a sighted colleague, in image coordinates.
public struct Overlay: Sendable, Equatable {
    public struct Mark: Sendable, Equatable {
        public enum Kind: Sendable { case tag, unsnappedTag, cursor }
        public var point: ImagePoint
        public var label: String
        public var kind: Kind
    }

    public var marks: [Mark] = []
    /// The unit cell's parallelogram, corner to corner (closed), if there is one.
    public var cell: [ImagePoint] = []
    /// Text shown in the corner (the status panel), one entry per line.
    public var status: [String] = []
    /// How large the text and how thick the lines are drawn.
    public var textSize = TextSize()

    public init() {}

    /// The tags, the unit cell and the column cursor.
    public init(tags: TagBook, cell: UnitCell?, cursor: ImagePoint?) {
        marks = tags.tags.map { Mark(point: $0.point, label: String($0.id), kind: $0.snapped ? .tag : .unsnappedTag) }
        if let cursor { marks.append(Mark(point: cursor, label: "", kind: .cursor)) }
        self.cell = cell?.corners ?? []
    }
}
