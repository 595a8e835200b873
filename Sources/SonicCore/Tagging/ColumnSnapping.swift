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
