import RealModule

/// A 2 × 2 matrix acting on pixel vectors: [[xx, xy], [yx, yy]], so that (M·v).x = xx·v.x + xy·v.y.
public struct Matrix2: Sendable, Equatable {
    public var xx: Double, xy: Double, yx: Double, yy: Double

    public init(xx: Double, xy: Double, yx: Double, yy: Double) {
        self.xx = xx; self.xy = xy; self.yx = yx; self.yy = yy
    }

    /// The matrix whose columns are `a` and `b`: it takes fractions of a lattice's vectors to pixels.
    public init(columns a: PixelVector, _ b: PixelVector) { self.init(xx: a.x, xy: b.x, yx: a.y, yy: b.y) }

    public static let identity = Matrix2(xx: 1, xy: 0, yx: 0, yy: 1)

    /// A turn by `angle` radians, x towards +y (clockwise on screen, y down).
    public static func rotation(_ angle: Double) -> Matrix2 {
        let c = Double.cos(angle), s = Double.sin(angle)
        return Matrix2(xx: c, xy: -s, yx: s, yy: c)
    }

    public var determinant: Double { xx * yy - xy * yx }
    public var columnA: PixelVector { PixelVector(x: xx, y: yx) }
    public var columnB: PixelVector { PixelVector(x: xy, y: yy) }

    /// Nil when (nearly) singular.
    public var inverse: Matrix2? {
        let d = determinant
        let scale = max(abs(xx), abs(xy), abs(yx), abs(yy))
        guard d.isFinite, abs(d) > 1e-12 * scale * scale else { return nil }
        return Matrix2(xx: yy / d, xy: -xy / d, yx: -yx / d, yy: xx / d)
    }

    public static func * (m: Matrix2, n: Matrix2) -> Matrix2 {
        Matrix2(
            xx: m.xx * n.xx + m.xy * n.yx, xy: m.xx * n.xy + m.xy * n.yy,
            yx: m.yx * n.xx + m.yy * n.yx, yy: m.yx * n.xy + m.yy * n.yy)
    }

    public static func * (m: Matrix2, v: PixelVector) -> PixelVector {
        PixelVector(x: m.xx * v.x + m.xy * v.y, y: m.yx * v.x + m.yy * v.y)
    }

    public static func + (m: Matrix2, n: Matrix2) -> Matrix2 {
        Matrix2(xx: m.xx + n.xx, xy: m.xy + n.xy, yx: m.yx + n.yx, yy: m.yy + n.yy)
    }

    public static func - (m: Matrix2, n: Matrix2) -> Matrix2 {
        Matrix2(xx: m.xx - n.xx, xy: m.xy - n.xy, yx: m.yx - n.yx, yy: m.yy - n.yy)
    }

    public static func * (k: Double, m: Matrix2) -> Matrix2 {
        Matrix2(xx: k * m.xx, xy: k * m.xy, yx: k * m.yx, yy: k * m.yy)
    }

    /// The largest absolute entry.
    public var size: Double { max(abs(xx), abs(xy), abs(yx), abs(yy)) }
}

/// How a patch of crystal is deformed against a reference lattice: its strain and its rotation.
///
/// From the deformation gradient F (which takes the reference lattice's vectors to the local ones): the rotation θ is
/// the turn that brings F nearest a symmetric matrix, atan2(F_yx − F_xy, F_xx + F_yy); the strain is the
/// small-strain tensor of what is left, R(−θ)·F − I. For small gradients these are the usual small-strain
/// definitions (exx = ∂u_x/∂x, exy = ½(∂u_x/∂y + ∂u_y/∂x), θ = ½(∂u_y/∂x − ∂u_x/∂y)); taking the rotation out
/// first keeps a grain turned by tens of degrees a turn, not a strain. Image axes, y down: a positive rotation turns
/// x towards +y, clockwise on screen.
public struct Deformation: Sendable, Equatable {
    /// Strains, as fractions: 0.01 is 1 % longer.
    public var exx: Double, eyy: Double, exy: Double
    /// Radians, positive clockwise on screen.
    public var rotation: Double

    public init(exx: Double, eyy: Double, exy: Double, rotation: Double) {
        self.exx = exx; self.eyy = eyy; self.exy = exy; self.rotation = rotation
    }

    public static let none = Deformation(exx: 0, eyy: 0, exy: 0, rotation: 0)

    /// The deformation the gradient `f` describes.
    public init(gradient f: Matrix2) {
        let rotation = Double.atan2(y: f.yx - f.xy, x: f.xx + f.yy)
        let stretch = Matrix2.rotation(-rotation) * f
        self.init(
            exx: stretch.xx - 1, eyy: stretch.yy - 1, exy: (stretch.xy + stretch.yx) / 2, rotation: rotation)
    }

    /// The dilatation: how much larger an area is, to first order (exx + eyy).
    public var dilatation: Double { exx + eyy }

    public var rotationDegrees: Double { rotation * 180 / Double.pi }

    public static func - (p: Deformation, q: Deformation) -> Deformation {
        Deformation(exx: p.exx - q.exx, eyy: p.eyy - q.eyy, exy: p.exy - q.exy, rotation: p.rotation - q.rotation)
    }
}
