/// A sweep the engine plays over the profile's sweep length: the whole image, left to right, as an additive bank
/// (`ImageSweep`), or one row (left to right) or column (top to bottom) as the pen would sound it (`LineSweep`).
public enum Sweep: Sendable, Hashable {
    case image
    case row(Int)
    case column(Int)

    /// Its name in the session log.
    public var kind: String {
        switch self {
        case .image: "image"
        case .row: "row"
        case .column: "column"
        }
    }

    /// The row or column, for a line.
    public var index: Int? {
        switch self {
        case .image: nil
        case .row(let index), .column(let index): index
        }
    }

    /// The sweep a log's `kind` and `index` name; nil for a kind there is none of, or a line without its index.
    public init?(kind: String, index: Int?) {
        switch (kind, index) {
        case ("image", nil): self = .image
        case ("row", let index?): self = .row(index)
        case ("column", let index?): self = .column(index)
        default: return nil
        }
    }
}
