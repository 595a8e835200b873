/// Points bucketed by square cells, for finding those near a place fast.
struct PointGrid {
    private struct Cell: Hashable { var i: Int, j: Int }
    private let cellSize: Double
    private var cells: [Cell: [Int]] = [:]
    let points: [PixelVector]

    /// `points` bucketed for searches of up to about `reach` pixels.
    init(_ points: [PixelVector], reach: Double) {
        self.points = points
        cellSize = max(1, reach)
        for (k, p) in points.enumerated() where p.x.isFinite && p.y.isFinite {
            cells[cell(p), default: []].append(k)
        }
    }

    private func cell(_ p: PixelVector) -> Cell {
        Cell(i: Int((p.x / cellSize).rounded(.down)), j: Int((p.y / cellSize).rounded(.down)))
    }

    /// The indices of the points within `radius` of `p`, in increasing order.
    func within(_ radius: Double, of p: PixelVector) -> [Int] {
        guard p.x.isFinite && p.y.isFinite && abs(p.x) < 1e9 && abs(p.y) < 1e9 else { return [] }
        let centre = cell(p)
        let span = Int((radius / cellSize).rounded(.up))
        var found: [Int] = []
        for dj in -span...span {
            for di in -span...span {
                for k in cells[Cell(i: centre.i + di, j: centre.j + dj)] ?? [] where (points[k] - p).length < radius {
                    found.append(k)
                }
            }
        }
        return found.sorted()
    }

    /// The point nearest `p` within `radius` that `accepts`, if any.
    func nearest(to p: PixelVector, within radius: Double, where accepts: (Int) -> Bool = { _ in true }) -> Int? {
        var best: (index: Int, distance: Double)?
        for k in within(radius, of: p) where accepts(k) {
            let d = (points[k] - p).length
            if d < (best?.distance ?? .infinity) { best = (k, d) }
        }
        return best?.index
    }
}
