/// A closed polygon in image coordinates: its corners in order, the last joined back to the first.
public struct ImagePolygon: Sendable, Equatable {
    public var points: [ImagePoint]

    public init(_ points: [ImagePoint]) { self.points = points }

    /// The rectangle from (x0, y0) to (x1, y1).
    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        points = [
            ImagePoint(x: x0, y: y0), ImagePoint(x: x1, y: y0), ImagePoint(x: x1, y: y1), ImagePoint(x: x0, y: y1)
        ]
    }

    /// The whole of a `width` × `height` image: its pixels' squares, from −0.5 to width − 0.5.
    public static func image(width: Int, height: Int) -> ImagePolygon {
        ImagePolygon(x0: -0.5, y0: -0.5, x1: Double(width) - 0.5, y1: Double(height) - 0.5)
    }

    /// Whether `p` lies inside (by the even–odd rule).
    public func contains(_ p: ImagePoint) -> Bool {
        var inside = false
        var previous = points.last ?? p
        for point in points {
            if (point.y > p.y) != (previous.y > p.y) {
                let crossing = point.x + (p.y - point.y) * (previous.x - point.x) / (previous.y - point.y)
                if p.x < crossing { inside.toggle() }
            }
            previous = point
        }
        return inside
    }

    /// The area enclosed, in square pixels.
    public var area: Double {
        var twice = 0.0
        var previous = points.last ?? ImagePoint(x: 0, y: 0)
        for point in points {
            twice += previous.x * point.y - point.x * previous.y
            previous = point
        }
        return abs(twice) / 2
    }
}
