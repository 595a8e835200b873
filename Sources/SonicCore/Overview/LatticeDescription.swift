import RealModule

/// The lattice as the overview says it: which of the five plane lattices it is, its cell, how far it is turned, and
/// how many columns and sublattices it holds.
public struct LatticeDescription: Sendable, Equatable {
    /// The five plane lattices; the raw value is the name in `describe --json`.
    public enum Kind: String, Sendable {
        case square, rectangular
        case centredRectangular = "centred-rectangular"
        case hexagonal, oblique

        /// "square", "centred rectangular".
        public var spoken: String { rawValue.replacingOccurrences(of: "-", with: " ") }
    }

    /// A sublattice: how many columns it holds, and its median integrated intensity over the brightest one's.
    public struct Sublattice: Sendable, Equatable {
        public var columns: Int
        public var relativeIntensity: Double
    }

    public var kind: Kind
    /// The lattice vectors' lengths, in pixels.
    public var a: Double, b: Double
    /// The angle between them, in degrees: 90 or more (120 for a hexagonal lattice).
    public var gamma: Double
    /// How far a is turned from the image's x axis, in degrees, clockwise as the image is seen (y down); within the
    /// lattice's own symmetry (±45° for a square lattice, ±30° for a hexagonal one).
    public var rotation: Double
    public var columns: Int
    public var sublattices: [Sublattice]

    /// Lengths this close (a share) and angles this close (degrees) count as equal: what a scan's distortions leave.
    static let sameLength = 0.03
    static let sameAngle = 2.0

    init?(_ analysis: LatticeAnalysis) {
        // The cell most of the reference lattice's grain has, not the reference's own, which may be a small patch.
        guard let grain = analysis.grains.first, let brightest = analysis.sublattices.first else { return nil }
        let (a, b) = LatticeAnalysis.oriented(grain.cell.columnA, grain.cell.columnB)
        self.a = a.length
        self.b = b.length
        let shape = Self.shape(a, b)
        kind = shape.kind
        gamma = shape.gamma
        rotation = shape.rotation
        columns = analysis.columns.count
        sublattices = analysis.sublattices.map {
            Sublattice(
                columns: $0.columnCount,
                relativeIntensity: brightest.medianIntensity > 0 ? $0.medianIntensity / brightest.medianIntensity : 0)
        }
    }

    /// Which plane lattice the oriented vectors `a` and `b` span, the angle between them (90° or more) and how far
    /// a is turned from the x axis, clockwise as seen, within the lattice's symmetry.
    static func shape(_ a: PixelVector, _ b: PixelVector) -> (kind: Kind, gamma: Double, rotation: Double) {
        let cosine = LatticeAnalysis.dot(a, b) / (a.length * b.length)
        let acute = Double.acos(abs(max(-1, min(1, cosine)))) * 180 / Double.pi
        let (short, long) = (min(a.length, b.length), max(a.length, b.length))
        let equal = long - short <= sameLength * long
        let right = abs(acute - 90) <= sameAngle
        // A centred cell: the longer vector's projection on the shorter is half of it.
        let centred = abs(long * Double.cos(acute * Double.pi / 180) - short / 2) <= sameLength * short
        let hexagonal = abs(acute - 60) <= sameAngle
        let kind = Self.kind(equal: equal, right: right, hexagonal: hexagonal, centred: centred)
        let period: Double =
            switch kind {
            case .square: 90
            case .hexagonal: 60
            default: 180
            }
        let angle = Double.atan2(y: a.y, x: a.x) * 180 / Double.pi
        return (kind, 180 - acute, angle - period * (angle / period).rounded())
    }

    /// Which plane lattice a cell is: its two sides equal or not, its angle right, 60° or neither, and whether a
    /// centred rectangle holds it.
    private static func kind(equal: Bool, right: Bool, hexagonal: Bool, centred: Bool) -> Kind {
        switch (equal, right) {
        case (true, true): .square
        case (true, false): hexagonal ? .hexagonal : .centredRectangular
        case (false, true): .rectangular
        case (false, false): centred ? .centredRectangular : .oblique
        }
    }
}
