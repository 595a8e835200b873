import RealModule

/// A displacement field u(X) over a reference crystal, in pixels, with its gradient ∂u/∂X known exactly: a column
/// whose perfect site is X sits at X + u(X), and the crystal there is deformed by F = I + ∂u/∂X.
public struct DisplacementField: Sendable {
    public let displacement: @Sendable (PixelVector) -> PixelVector
    /// [[∂u_x/∂x, ∂u_x/∂y], [∂u_y/∂x, ∂u_y/∂y]].
    public let gradient: @Sendable (PixelVector) -> Matrix2

    public init(
        displacement: @escaping @Sendable (PixelVector) -> PixelVector,
        gradient: @escaping @Sendable (PixelVector) -> Matrix2
    ) {
        self.displacement = displacement
        self.gradient = gradient
    }

    /// How the crystal at `point` is deformed.
    public func deformation(at point: PixelVector) -> Deformation {
        Deformation(gradient: .identity + gradient(point))
    }

    public static let none = DisplacementField(
        displacement: { _ in .zero }, gradient: { _ in Matrix2(xx: 0, xy: 0, yx: 0, yy: 0) })

    /// The same strain and rotation everywhere, about `centre`: u = (F − I)·(X − centre).
    public static func uniform(_ gradient: Matrix2, about centre: PixelVector) -> DisplacementField {
        DisplacementField(displacement: { gradient * ($0 - centre) }, gradient: { _ in gradient })
    }

    /// A coherent interface: the line through `point` with unit normal `normal`; beyond it (where (X − point)·normal
    /// is positive) the crystal is stretched by `step` along the normal, on this side not at all.
    public static func interface(through point: PixelVector, normal: PixelVector, step: Double) -> DisplacementField {
        let gradient = Matrix2(
            xx: step * normal.x * normal.x, xy: step * normal.x * normal.y, yx: step * normal.y * normal.x,
            yy: step * normal.y * normal.y)
        @Sendable func beyond(_ p: PixelVector) -> Double { (p - point).x * normal.x + (p - point).y * normal.y }
        return DisplacementField(
            displacement: { p in max(0, beyond(p)) * step * normal },
            gradient: { p in beyond(p) > 0 ? gradient : Matrix2(xx: 0, xy: 0, yx: 0, yy: 0) })
    }

    /// An edge dislocation at `core` with Burgers vector `burgers` (its length b, its direction the glide direction),
    /// in an isotropic crystal of Poisson's ratio `poisson`: the textbook field (Hirth & Lothe),
    /// u_x' = b/2π (θ + x'y' / (2(1 − ν) r²)), u_y' = −b/2π ((1 − 2ν)/(4(1 − ν)) ln r² + (x'² − y'²)/(4(1 − ν) r²)),
    /// in axes x' along the Burgers vector. Going once round the core clockwise on screen (θ rising, y down), u
    /// grows by the Burgers vector: the cut where it jumps runs from the core against the Burgers vector.
    public static func edgeDislocation(at core: PixelVector, burgers: PixelVector, poisson nu: Double = 0.3)
        -> DisplacementField
    {
        let b = burgers.length
        let turn = Matrix2.rotation(Double.atan2(y: burgers.y, x: burgers.x))
        let back = Matrix2.rotation(-Double.atan2(y: burgers.y, x: burgers.x))
        let c = 1 / (2 * (1 - nu)), d = (1 - 2 * nu) / (4 * (1 - nu)), e = 1 / (4 * (1 - nu))
        let k = b / (2 * Double.pi)
        return DisplacementField(
            displacement: { p in
                let q = back * (p - core)
                let r2 = max(q.x * q.x + q.y * q.y, 1e-12)
                let ux = k * (Double.atan2(y: q.y, x: q.x) + c * q.x * q.y / r2)
                let uy = -k * (d * Double.log(r2) + e * (q.x * q.x - q.y * q.y) / r2)
                return turn * PixelVector(x: ux, y: uy)
            },
            gradient: { p in
                let q = back * (p - core)
                let x = q.x, y = q.y
                let r2 = max(x * x + y * y, 1e-12), r4 = r2 * r2
                let local = Matrix2(
                    xx: k * (-y / r2 + c * y * (y * y - x * x) / r4),
                    xy: k * (x / r2 + c * x * (x * x - y * y) / r4),
                    yx: -k * (d * 2 * x / r2 + e * 4 * x * y * y / r4),
                    yy: -k * (d * 2 * y / r2 - e * 4 * x * x * y / r4))
                return turn * local * back
            })
    }

    /// A crystal bent about an axis out of the image, as a beam is: the lattice turns by `curvature` radians per
    /// pixel along x (from none at `centre`), and is stretched along x on one side of `centre` and compressed on the
    /// other as a bent beam's fibres are: u_x = −κ(x − cx)(y − cy), u_y = κ(x − cx)²/2.
    public static func bent(curvature k: Double, about centre: PixelVector) -> DisplacementField {
        DisplacementField(
            displacement: { p in
                let d = p - centre
                return PixelVector(x: -k * d.x * d.y, y: k * d.x * d.x / 2)
            },
            gradient: { p in
                let d = p - centre
                return Matrix2(xx: -k * d.y, xy: -k * d.x, yx: k * d.x, yy: 0)
            })
    }

    /// A scan's distortion: each scan line (y) shifted along x by a slow sinusoidal drift of `amplitude` pixels and
    /// `period` lines, and by a shear of `shear` (pixels along x per line).
    public static func scanDistortion(amplitude: Double, period: Double, phase: Double, shear: Double)
        -> DisplacementField
    {
        let w = 2 * Double.pi / period
        return DisplacementField(
            displacement: { p in PixelVector(x: amplitude * Double.sin(w * p.y + phase) + shear * p.y, y: 0) },
            gradient: { p in Matrix2(xx: 0, xy: amplitude * w * Double.cos(w * p.y + phase) + shear, yx: 0, yy: 0) })
    }
}
