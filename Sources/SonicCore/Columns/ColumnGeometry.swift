/// Every length and limit the column finder uses, derived from the nearest-neighbour spacing d.
struct ColumnGeometry: Sendable {
    let spacing: Double
    /// A candidate must be the band-passed image's maximum within this radius (0.35·d).
    let suppressionRadius: Double
    /// First-pass fit window radius (0.45·d): the column and its near flanks, not its neighbours.
    let firstWindow: Double
    /// How far a fit may move the centre from its candidate pixel (0.35·d) before it counts as failed.
    let maximumShift: Double
    /// Accepted Gaussian widths.
    let minimumSigma = 0.5
    let maximumSigma: Double
    /// Two first-pass fits closer than this (0.5·d) are one column: the weaker goes.
    let duplicateDistance: Double
    /// Starting width for the first pass.
    let sigmaGuess: Double
    let bandPass: BandPass

    /// A fit is a column when its amplitude is at least this many times the per-pixel noise,…
    static let minimumContrast = 3.0
    /// …stands this many standard errors above zero…
    static let minimumSignificance = 5.0
    /// …and the model explains at least this share of the window's variance.
    static let minimumQuality = 0.25
    /// The first pass asks less: in its narrow window a wide column's Gaussian trades against the plane, so a real
    /// column can look barely significant there. It only decides what goes on to the later passes, which decide.
    static let firstPassSignificance = 3.0
    /// Fit passes: the first alone, each later one with the neighbours' previous-pass Gaussians subtracted; from the
    /// third on, the plane's slopes are held at the mean of the column's and its neighbours' previous-pass slopes
    /// (why three: docs/columns.md).
    static let passes = 3
    /// Where columns are refined jointly, the joint fit starts from the second pass: its smooth background takes the
    /// held slopes' place, and on wide columns a start from the third settles less well (docs/columns.md).
    static let jointStartPasses = 2
    /// The neighbours whose slopes the third pass averages lie within this many spacings of the column…
    static let slopeNeighbourhood = 2.0
    /// …and there must be at least this many of them; fewer (a corner, a lone column) leave the slopes free.
    static let minimumSlopeNeighbours = 2
    /// Candidates: band-passed value above this many noise standard deviations (of the band-passed image).
    static let candidateThreshold = 3.0
    /// Columns this wide (σ as a share of the spacing, as the local fits measure it: a little narrower than it is)
    /// or wider overlap so much that they are refined jointly (`JointTiling`); narrower ones are refined as
    /// accurately, and faster, one at a time (where the line lies: docs/columns.md).
    static let jointOverlap = 0.18
    /// The joint fit's tiles, their margins and its background nodes, in spacings.
    static let jointTileSpacings = 16.0
    static let jointMarginSpacings = 1.0
    static let jointNodeSpacings = 4.0
    /// Rounds of trial columns at empty lattice sites in the joint fit (each round's finds make new sites), and
    /// the amplitude, in standard errors, below which a rejected trial counts as having changed nothing.
    static let jointRecoveryRounds = 3
    static let negligibleTrialErrors = 1.0
    /// A bump the joint fit leaves in its residual is tried as a column when it is at least this share of the
    /// columns' median height: above what a misfit leaves, below what a weak sublattice does (docs/columns.md).
    static let residualShare = 0.06
    /// Searches of the residual per region: the columns the first one finds make the model fit better, which shows
    /// the bumps they hid (at an image edge, where half a column is all there is, most of all).
    static let residualSearches = 2

    init(spacing d: Double) {
        spacing = d
        suppressionRadius = max(1.5, 0.35 * d)
        firstWindow = max(3, 0.45 * d)
        maximumShift = max(1.5, 0.35 * d)
        maximumSigma = max(1, 0.4 * d)
        duplicateDistance = 0.5 * d
        sigmaGuess = min(max(1, d / 8), firstWindow / 2)
        bandPass = BandPass(spacing: d)
    }

    /// Second-pass window radius for a column of width σ (neighbours subtracted): min(4σ, 0.6·d), at least 3 px.
    func secondWindow(sigma: Double) -> Double { max(3, min(4 * sigma, 0.6 * spacing)) }

    /// Beyond this distance from a second-pass window's centre a column's Gaussian (σ ≤ maximumSigma) is
    /// negligible in it: below exp(−8) of its peak.
    var neighbourReach: Double { max(3, 0.6 * spacing) + 4 * maximumSigma }

    /// Candidate-pixel distances within which one candidate's result can depend on another's first-pass fit.
    var duplicateSearch: Double { duplicateDistance + 2 * maximumShift + 1 }
    var neighbourSearch: Double { neighbourReach + 2 * maximumShift + 1 }
}
