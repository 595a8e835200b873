import RealModule

/// The pen's lean, from the tablet's two tilt angles (degrees; +X: the top leans right,
/// +Y: it leans towards the user).
public struct PenTilt: Sendable, Equatable {
    /// Degrees from vertical: 0 upright, approaching 90 flat on the tablet.
    public let altitude: Double
    /// Which way it leans, degrees counter-clockwise from the right (90: towards the user,
    /// 180: left, −90: away). 0 when upright.
    public let azimuth: Double

    public init(tiltX: Double, tiltY: Double) {
        // The pen's direction is (tan tx, tan ty, 1): each tilt angle is its lean in one vertical plane.
        let dx = Double.tan(tiltX * Double.pi / 180), dy = Double.tan(tiltY * Double.pi / 180)
        let lean = (dx * dx + dy * dy).squareRoot()
        altitude = Double.atan(lean) * 180 / Double.pi
        azimuth = lean == 0 ? 0 : Double.atan2(y: dy, x: dx) * 180 / Double.pi
    }
}
