/// The column cursor: in the column modes the arrow keys walk it from atom column to atom column, for a
/// user without a tablet or who wants exact steps, and the tone sounds each column it reaches.
struct ColumnCursor: Sendable {
    /// How long the tone sounds a column the cursor reached.
    static let toneTime = 0.5

    enum Step: Sendable, Equatable {
        /// The column search is still running.
        case searching
        case noColumns
        case noneFurther
        case moved(to: ImagePoint)
    }

    /// Every atom column found in the image, once the search is done (nil until then).
    private(set) var columns: [ImagePoint]?
    /// The column the cursor is on.
    private(set) var position: ImagePoint?
    /// When the tone sounding the cursor's column stops.
    private(set) var toneEnd: Double?
    /// Where the pen was (image pixels; nil off the image) when the arrow keys last moved the cursor; nil once
    /// anything else moved it.
    private var penAtStep: ImagePoint??

    /// nil: the search runs (again, for another frame).
    mutating func setColumns(_ found: [ImagePoint]?) { columns = found }

    /// Moves to the nearest column within 45° of `direction`, favouring those straight ahead; the
    /// first step goes to the column nearest `start` (the pen, or the image's centre).
    mutating func step(
        _ direction: Direction, from start: ImagePoint, pen: ImagePoint? = nil, at time: Double
    ) -> Step {
        guard let columns else { return .searching }
        guard !columns.isEmpty else { return .noColumns }
        let next: ImagePoint?
        if let from = position {
            let way = direction.step
            next = columns.filter { c in
                let dx = c.x - from.x, dy = c.y - from.y
                let distance = (dx * dx + dy * dy).squareRoot()
                return distance > 0.5 && (dx * way.x + dy * way.y) / distance >= 0.7071
            }.min { Self.score($0, from: from, way) < Self.score($1, from: from, way) }
        } else {
            next = columns.min { Self.distanceSquared($0, start) < Self.distanceSquared($1, start) }
        }
        guard let next else { return .noneFurther }
        position = next
        toneEnd = time + Self.toneTime
        penAtStep = .some(pen)
        return .moved(to: next)
    }

    /// Goes to `point` (a feature of the overview) at `time`: the tone sounds it, and the next step starts there.
    mutating func move(to point: ImagePoint, at time: Double) {
        position = point
        toneEnd = time + Self.toneTime
        penAtStep = nil
    }

    /// Whether the arrow keys moved the cursor last, the pen (at `pen`) having stayed within `stillPen` pixels of where it was, so the cursor's column is the user's place.
    func isTheUsersPlace(pen: ImagePoint?) -> Bool {
        guard position != nil, case .some(let was) = penAtStep else { return false }
        guard let pen, let was else { return pen == nil && was == nil }
        return (pen.x - was.x) * (pen.x - was.x) + (pen.y - was.y) * (pen.y - was.y) <= Self.stillPen * Self.stillPen
    }

    /// A hovering pen's jitter, in image pixels: moving less is not moving.
    static let stillPen = 2.0

    /// Whether the tone's time is up by `time`; it is then over.
    mutating func toneEnds(by time: Double) -> Bool {
        guard let end = toneEnd, time >= end else { return false }
        toneEnd = nil
        return true
    }

    private static func distanceSquared(_ a: ImagePoint, _ b: ImagePoint) -> Double {
        (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)
    }

    /// Lower is better: the distance ahead, and twice the distance aside.
    private static func score(_ c: ImagePoint, from: ImagePoint, _ way: (x: Double, y: Double)) -> Double {
        let dx = c.x - from.x, dy = c.y - from.y
        let along = dx * way.x + dy * way.y
        let across = abs(dx * way.y - dy * way.x)
        return along + 2 * across
    }
}
