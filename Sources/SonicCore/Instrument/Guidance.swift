import RealModule

/// The place the pen is guided to (a feature of the overview), and how the guide sounds it: as a parking sensor
/// does, beeps that come faster the nearer the nib is, placed in the stereo image the way the place lies across
/// (to the left, heard on the left) and pitched the way it lies up or down (above, higher). The way is a direction on
/// a circle — across as stereo position, up and down as pitch — so one beep says both, and the rate says how far.
public struct Guidance: Sendable, Equatable {
    public var target: ImagePoint
    /// Within this many image pixels the nib is there (`arrival` of a column spacing): the beeps give way to the
    /// arrival cue.
    public var radius: Double

    /// The share of a column spacing within which the nib is on a feature: a third, so the nib is then nearer the
    /// feature than any neighbour can be (two thirds of a spacing away at least) and on the column's own peak, whose
    /// half-width is about a sixth of a spacing.
    public static let arrival = 1.0 / 3

    /// Beeps a second at the edge of `radius`, and a whole image's diagonal away.
    static let nearestRate = GuideBeeps.rateDef.range.upperBound
    static let farthestRate = 1.5
    /// How far the pitch goes for a place straight above or below, in octaves.
    static let octaves = 1.0

    public init(target: ImagePoint, radius: Double) {
        self.target = target
        self.radius = radius
    }

    /// Whether the nib at `nib` is at the place.
    public func isReached(by nib: ImagePoint) -> Bool { distance(from: nib) <= radius }

    /// What the guide plays with the nib at `nib` (nil: off the window, or no pen yet: silence) in an image of
    /// `width` × `height` pixels: the rate falls evenly in log distance from `nearestRate` at the radius to
    /// `farthestRate` at the image's diagonal.
    public func tone(from nib: ImagePoint?, width: Int, height: Int) -> GuideTone {
        guard let nib else { return .silent }
        guard !isReached(by: nib) else { return .arrived }
        let r = distance(from: nib)
        let across = (target.x - nib.x) / r, up = (nib.y - target.y) / r
        let diagonal = (Double(width * width + height * height)).squareRoot()
        let far = max(diagonal, 2 * radius)
        let share = min(1, Double.log(r / radius) / Double.log(far / radius))
        return GuideTone(
            rate: Self.nearestRate * Double.pow(Self.farthestRate / Self.nearestRate, share),
            frequency: GuideBeeps.frequencyDef.defaultValue * Double.exp2(Self.octaves * up), pan: across)
    }

    private func distance(from nib: ImagePoint) -> Double {
        ((target.x - nib.x) * (target.x - nib.x) + (target.y - nib.y) * (target.y - nib.y)).squareRoot()
    }
}
