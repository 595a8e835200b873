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
