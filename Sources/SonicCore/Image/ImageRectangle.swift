/// A rectangle of an image, from (x0, y0) to (x1, y1) in image coordinates (pixel centres at integers, y down).
public struct ImageRectangle: Sendable, Equatable {
    public var x0: Double, y0: Double, x1: Double, y1: Double

    /// The rectangle between two corners, in either order.
    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = min(x0, x1); self.y0 = min(y0, y1); self.x1 = max(x0, x1); self.y1 = max(y0, y1)
    }

    /// Reads "X0,Y0,X1,Y1": four finite numbers.
    public init?(_ text: String) {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double(String($0.trimmingWhitespace))
        }
        guard values.count == 4, let x0 = values[0], let y0 = values[1], let x1 = values[2], let y1 = values[3],
            [x0, y0, x1, y1].allSatisfy(\.isFinite), x0 != x1, y0 != y1
        else { return nil }
        self.init(x0: x0, y0: y0, x1: x1, y1: y1)
    }

    public func contains(_ p: PixelVector) -> Bool { p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1 }
}
