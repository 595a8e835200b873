/// A point the user tagged, in image coordinates ((0, 0) is the centre of the top-left pixel).
public struct Tag: Sendable, Equatable {
    /// 1, 2, 3 … in the order tagged (as spoken: "Tag 3").
    public var id: Int
    public var x: Double
    public var y: Double
    /// Whether the tap was snapped to an atom column's refined centre.
    public var snapped: Bool

    public init(id: Int, x: Double, y: Double, snapped: Bool = false) {
        self.id = id; self.x = x; self.y = y; self.snapped = snapped
    }

    public var point: ImagePoint { ImagePoint(x: x, y: y) }
}

/// A tag asked for but not yet placed: its tap is still being snapped to a column. Saved with the
/// tags, so a kill meanwhile does not lose it: it is snapped again when the image is next opened.
public struct UnplacedTag: Sendable, Equatable {
    /// Where the pen tapped (or the column the cursor was on).
    public var point: ImagePoint
    /// O was pressed for it: it becomes the unit cell's origin once placed.
    public var makesOrigin: Bool

    public init(point: ImagePoint, makesOrigin: Bool = false) {
        self.point = point; self.makesOrigin = makesOrigin
    }
}
