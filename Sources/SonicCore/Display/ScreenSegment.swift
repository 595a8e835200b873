/// A straight line in window pixels, as drawn over the image.
public struct ScreenSegment: Sendable, Equatable {
    public var x0: Double, y0: Double, x1: Double, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }

    /// The part of the line inside the window widened by `margin` on every side, nil if none is.
    /// Zoomed far in, a unit cell's corners lie thousands of pixels off screen, beyond what X's
    /// 16-bit coordinates hold; clipped, the edges still cross the window where they should.
    public func clipped(width: Double, height: Double, margin: Double) -> ScreenSegment? {
        // Liang–Barsky: the line is x0 + t·dx, y0 + t·dy for t in 0...1, narrowed edge by edge.
        let dx = x1 - x0, dy = y1 - y0
        var enter = 0.0, leave = 1.0
        let edges: [(p: Double, q: Double)] = [
            (-dx, x0 + margin), (dx, width + margin - x0), (-dy, y0 + margin), (dy, height + margin - y0)
        ]
        for (p, q) in edges {
            if p == 0 {
                if q < 0 { return nil }
                continue
            }
            let t = q / p
            if p < 0 { enter = max(enter, t) } else { leave = min(leave, t) }
            if enter > leave { return nil }
        }
        return ScreenSegment(x0: x0 + enter * dx, y0: y0 + enter * dy, x1: x0 + leave * dx, y1: y0 + leave * dy)
    }
}
