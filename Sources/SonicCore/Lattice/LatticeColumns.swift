/// The analysed columns as the column modes play them: the one nearest the nib, with the pixel size for picometres.
public struct LatticeColumns: Sendable {
    public let analysis: LatticeAnalysis
    /// The nearest-neighbour column spacing, in pixels.
    public let spacing: Double
    public let pixelSize: PixelSize?
    private struct Cell: Hashable { var i: Int, j: Int }
    private let cells: [Cell: [Int]]

    public init(_ analysis: LatticeAnalysis, spacing: Double, pixelSize: PixelSize?) {
        self.analysis = analysis
        self.spacing = max(1, spacing)
        self.pixelSize = pixelSize
        var cells: [Cell: [Int]] = [:]
        for (k, c) in analysis.columns.enumerated() {
            cells[Self.cell(c.column.x, c.column.y, size: self.spacing), default: []].append(k)
        }
        self.cells = cells
    }

    /// Finds every column and reads the lattice: what the column search hands a session, and `render` redoes from
    /// the image.
    public init(finding finder: ColumnFinder, pixelSize: PixelSize?) {
        self.init(LatticeAnalysis(finding: finder), spacing: finder.spacing ?? 0, pixelSize: pixelSize)
    }

    /// Whether the columns lie on a lattice (else no column has a sublattice, site or displacement).
    public var hasLattice: Bool { analysis.sublatticeCount > 0 }

    private static func cell(_ x: Double, _ y: Double, size: Double) -> Cell {
        Cell(i: Int((x / size).rounded(.down)), j: Int((y / size).rounded(.down)))
    }

    /// The index and column nearest `point` within `radius` pixels (at most a spacing), if any; none outside the
    /// crystal.
    public func nearest(to point: ImagePoint, within radius: Double) -> (index: Int, column: AnalysedColumn)? {
        guard point.x.isFinite && point.y.isFinite, analysis.crystal?.contains(point) ?? true else { return nil }
        let centre = Self.cell(point.x, point.y, size: spacing)
        var best: (index: Int, distance: Double)?
        for dj in -1...1 {
            for di in -1...1 {
                for k in cells[Cell(i: centre.i + di, j: centre.j + dj)] ?? [] {
                    let c = analysis.columns[k].column
                    let distance = ((c.x - point.x) * (c.x - point.x) + (c.y - point.y) * (c.y - point.y)).squareRoot()
                    if distance <= radius && distance < (best?.distance ?? .infinity) { best = (k, distance) }
                }
            }
        }
        return best.map { ($0.index, analysis.columns[$0.index]) }
    }

    /// A displacement's length in the unit the user hears: picometres with a pixel size, else pixels.
    public func length(_ displacement: PixelVector) -> Double {
        displacement.length * (pixelSize?.picometres ?? 1)
    }
}
