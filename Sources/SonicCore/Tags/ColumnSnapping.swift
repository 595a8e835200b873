/// Finds atom columns near a point: what snapping a tap needs, whatever finds the columns.
public protocol ColumnSnapping: Sendable {
    /// The nearest-neighbour column spacing in pixels, if the image shows a lattice.
    var spacing: Double? { get }
    /// The refined centre of the column nearest (x, y) within `radius` pixels, or nil.
    func columnCentre(nearX x: Double, y: Double, radius: Double) -> ImagePoint?
}

extension ColumnFinder: ColumnSnapping {
    public func columnCentre(nearX x: Double, y: Double, radius: Double) -> ImagePoint? {
        snap(x: x, y: y, radius: radius).map { ImagePoint(x: $0.x, y: $0.y) }
    }
}

/// A tap to snap to the nearest atom column within `radius` pixels. The controller hands it out
/// rather than snapping itself: on strongly overlapping lattices a snap takes a few tenths of a
/// second, which the event loop (and so the tone under the pen) must not wait for.
public struct SnapRequest: Sendable, Equatable {
    /// Which tap this is, so its answer finds its place among the tags still to be placed.
    public let id: Int
    public let point: ImagePoint
    public let radius: Double

    public init(id: Int, point: ImagePoint, radius: Double) {
        self.id = id
        self.point = point
        self.radius = radius
    }

    /// The snap, done by `snapper`: the column's refined centre, or nil if none is near.
    public func column(by snapper: any ColumnSnapping) -> ImagePoint? {
        snapper.columnCentre(nearX: point.x, y: point.y, radius: radius)
    }
}
