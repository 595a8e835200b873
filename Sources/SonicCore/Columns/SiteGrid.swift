/// Column positions bucketed by square cells, for finding the ones near a point.
struct SiteGrid {
    private struct Cell: Hashable { var i: Int, j: Int }
    private let cellSize: Double
    private var cells: [Cell: [Int]] = [:]

    init(cellSize: Double) { self.cellSize = max(1, cellSize) }

    private func cell(_ x: Double, _ y: Double) -> Cell {
        Cell(i: Int((x / cellSize).rounded(.down)), j: Int((y / cellSize).rounded(.down)))
    }

    mutating func insert(_ index: Int, x: Double, y: Double) { cells[cell(x, y), default: []].append(index) }

    /// The indices of the columns within `radius` (at most two cells) of (x, y), in increasing order.
    func indices(nearX x: Double, y: Double, within radius: Double, in columns: [ColumnGaussian]) -> [Int] {
        let centre = cell(x, y)
        var found: [Int] = []
        for dj in -2...2 {
            for di in -2...2 {
                for k in cells[Cell(i: centre.i + di, j: centre.j + dj)] ?? [] {
                    let dx = columns[k].x - x, dy = columns[k].y - y
                    if dx * dx + dy * dy < radius * radius { found.append(k) }
                }
            }
        }
        return found.sorted()
    }
}
