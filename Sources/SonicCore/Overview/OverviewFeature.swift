/// Something notable in an image, with its place: a column brighter or dimmer than its sublattice, an empty site, a
/// column off the sites, a wall between two domains; a particle on a support; a diffraction pattern's spot or ring.
public struct OverviewFeature: Sendable, Equatable {
    /// What it is; the raw value is its name in `describe --json`. In order of importance: the lines that divide the
    /// crystal (grain boundaries, interfaces), the dislocations, the walls between domains, then the columns that
    /// stand out; particles, in an image of particles; spots, then rings, in a diffraction pattern.
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        case grainBoundary = "grain-boundary"
        case interface
        case dislocation
        case domainWall = "domain-wall"
        case brightColumn = "bright-column"
        case dimColumn = "dim-column"
        case vacancy
        case interstitial
        case particle
        case spot
        case ring

        public static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    public var kind: Kind
    /// Where it is, in image pixels (pixel centres at integers): a column's centre, an empty site, a wall's middle.
    public var position: ImagePoint
    /// The part of the image it is in, in words: "upper left", "centre".
    public var place: String
    /// What the voice says on stepping to it: "Vacancy 2 of 3, upper left".
    public var label: String
    /// For a column or an empty site: its integrated intensity over what its sublattice holds there (0 for an empty
    /// site, 1.5 for a column half as bright again); nil for a wall and an interstitial.
    public var relativeIntensity: Double?
    /// For a wall, a boundary or an interface: its course through the image, end to end; empty otherwise.
    public var points: [ImagePoint]
    /// For a dislocation: its Burgers vector, in pixels (the displacement's jump once round it clockwise on screen).
    public var burgers: PixelVector?
    /// For an interface: the lattice beyond it (to its right, or below it) against the lattice before it.
    public var step: Deformation?
    /// How far it stands out from the noise, in standard deviations of the noise: the order within a kind.
    public var significance: Double
    /// For a particle, a spot or a ring: how near, in pixels, the pen must come to its place to be there; nil for the
    /// rest (a column spacing).
    public var radius: Double?

    public init(
        kind: Kind, position: ImagePoint, place: String, label: String, relativeIntensity: Double?,
        points: [ImagePoint], significance: Double, burgers: PixelVector? = nil, step: Deformation? = nil,
        radius: Double? = nil
    ) {
        self.kind = kind; self.position = position; self.place = place; self.label = label
        self.relativeIntensity = relativeIntensity; self.points = points; self.significance = significance
        self.burgers = burgers; self.step = step; self.radius = radius
    }
}
