/// A column as the local refinement left it, with the candidate pixel it was found at.
struct LocalColumn: Sendable {
    var gaussian: ColumnGaussian
    var pixelX: Int, pixelY: Int
}

/// A refined column and the pixel it was found at (for a stable order).
struct PlacedColumn: Sendable {
    var column: AtomColumn
    var pixelX: Int, pixelY: Int
}
