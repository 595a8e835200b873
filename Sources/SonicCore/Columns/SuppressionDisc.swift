/// Maxima of a filtered grid that stand alone: a value is a maximum if nothing within `radius` pixels is larger,
/// and ties go to the earlier pixel in row-major order, so a flat top gives exactly one.
struct SuppressionDisc: Sendable {
    /// Disc offsets, nearest first (most rejections come from the immediate neighbours), each marked whether it
    /// comes before the centre in row-major order.
    private let offsets: [(dx: Int, dy: Int, before: Bool)]

    init(radius: Double) {
        let reach = Int(radius.rounded(.down))
        var offsets: [(dx: Int, dy: Int, before: Bool)] = []
        for dy in -reach...reach {
            for dx in -reach...reach where (dx != 0 || dy != 0) && Double(dx * dx + dy * dy) <= radius * radius {
                offsets.append((dx, dy, dy < 0 || (dy == 0 && dx < 0)))
            }
        }
        offsets.sort { $0.dx * $0.dx + $0.dy * $0.dy < $1.dx * $1.dx + $1.dy * $1.dy }
        self.offsets = offsets
    }

    /// Whether `values[index]`, the value at (x, y) of a row-major grid `width` wide that covers `xs`×`ys`,
    /// is the maximum of its disc (the part of the disc inside the grid).
    @inline(__always)
    func isMaximum(
        _ values: UnsafeBufferPointer<Double>, index: Int, x: Int, y: Int, width: Int,
        xs: Range<Int>, ys: Range<Int>
    ) -> Bool {
        let v = values[index]
        return offsets.withUnsafeBufferPointer { disc in
            for o in disc {
                guard xs.contains(x + o.dx) && ys.contains(y + o.dy) else { continue }
                let q = values[index + o.dy * width + o.dx]
                if q > v || (o.before && q == v) { return false }
            }
            return true
        }
    }

    /// (x, y) moved to the vertex of a parabola through the value at `index` and its two neighbours, along each
    /// axis on which both neighbours are in the grid.
    @inline(__always)
    static func vertex(
        _ values: UnsafeBufferPointer<Double>, index: Int, x: Int, y: Int, width: Int,
        xs: Range<Int>, ys: Range<Int>
    ) -> (x: Double, y: Double) {
        let v = values[index]
        var vx = Double(x), vy = Double(y)
        if xs.contains(x - 1) && xs.contains(x + 1) {
            vx += SpacingEstimator.parabolaVertex(values[index - 1], v, values[index + 1])
        }
        if ys.contains(y - 1) && ys.contains(y + 1) {
            vy += SpacingEstimator.parabolaVertex(values[index - width], v, values[index + width])
        }
        return (vx, vy)
    }
}
