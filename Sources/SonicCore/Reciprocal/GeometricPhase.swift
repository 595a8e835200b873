import RealModule

/// Geometric phase analysis (Hÿtch, Snoeck & Kilaas 1998): the strain and rotation at every pixel, from the phases of
/// two Bragg-filtered images.
///
/// For each of two non-collinear reflections g, the image's transform is multiplied by a Gaussian mask round g and
/// transformed back; the phase of what comes back, less 2π g·r, is P_g(r) = −2π g·u(r), where u is the displacement
/// of the lattice. The g vectors are refined so the phase is flat in a reference region: its mean gradient there
/// (each pixel weighed by the filtered image's power) taken into g. The local reciprocal vectors are then
/// g + ∇P_g/2π; the local lattice vectors are their dual, and the deformation gradient F takes the reference lattice
/// to the local one: F = G_local⁻¹·G, the rows of G being g1 and g2. The strain and rotation are `Deformation`'s
/// (rotation atan2(F_yx − F_xy, F_xx + F_yy), strain R(−θ)·F − I symmetrised; image axes, y down, a positive rotation
/// turning x towards +y), so they compare directly with the columns' (`LatticeAnalysis`).
///
/// Against the columns' strain (`LatticeAnalysis`), measured at the columns of the strain samples (512², 20 px cells,
/// the default mask: maps smoothed over 13 px), a smoothing length from the edges and a cell from an interface, each
/// against the truth less one constant: on smooth fields the columns, each cell fitted to its eight neighbours, are
/// the more precise (exx 0.0001 rms against GPA's 0.0002–0.0005 at low noise, 0.0011 against 0.0017 at high noise;
/// rotation 0.004° against 0.006–0.013°), and they resolve a step column by column, right up to an interface, where
/// GPA spreads it over a smoothing length. GPA needs no column found and gives a value at every pixel, so it reads
/// where columns are not found or not told apart, and round a dislocation's core it is the nearer of the two (exx
/// 0.003 rms over the whole crystal against the columns' 0.007, at both noise levels), though within a smoothing
/// length of the core both are far off. A narrower mask (`maskShare`) smooths more and is less noisy: a fifth of the
/// distance to the nearest reflection gives exx 0.0010–0.0013 rms at high noise.
public struct GeometricPhase: Sendable {
    /// The image's size, in pixels.
    public let width: Int, height: Int
    /// The two reflections, in cycles per pixel, refined so the phase is flat in `reference`.
    public let g1: PixelVector, g2: PixelVector
    /// The reference lattice's vectors, the dual of g1 and g2 (a·g1 = b·g2 = 1), in pixels.
    public let a: PixelVector, b: PixelVector
    /// The Gaussian mask's standard deviation round each reflection, in cycles per pixel.
    public let maskRadius: Double
    /// Where the reflections were refined: the phase is flat there, and the strain and rotation are measured against
    /// the lattice there.
    public let reference: ImageRectangle
    /// The phases P_g1 and P_g2, radians in (−π, π], zero on average over the reference region.
    public let phase1: GrayImage, phase2: GrayImage
    /// The displacement u = −(P_g1·a + P_g2·b)/2π, in pixels: known up to a lattice vector, as the phases wrap.
    public let displacementX: GrayImage, displacementY: GrayImage
    /// The strain (fractions) and rotation (radians, positive clockwise on screen) against the reference lattice.
    public let exx: GrayImage, eyy: GrayImage, exy: GrayImage, rotation: GrayImage

    /// The mask's standard deviation, as a share of the distance from the reflections to the nearest other point of
    /// their lattice: a quarter keeps a neighbouring reflection's leak below e⁻⁸ (3·10⁻⁴) of its strength, and
    /// smooths the maps over about two thirds of the lattice spacing.
    public static let defaultMaskShare = 0.25
    /// The reflections are filtered again round the refined g when it moved by more than this share of the mask's
    /// radius: a mask off its peak weighs one side of a smeared reflection more.
    static let refilterShift = 0.05
    /// At most this many filterings round refined reflections.
    static let refinements = 3
    /// The mask is cut off this many of its standard deviations from its centre, where it is below 10⁻⁵.
    static let maskReach = 5.0
    /// How far, in smoothing lengths, the image's edges disturb the maps: the mask's Gaussian, two standard deviations
    /// from an edge, has 2 % of its weight beyond it.
    static let edgeReach = 2.0

    /// The real-space smoothing of the maps: the standard deviation, in pixels, of the Gaussian the mask amounts to.
    public var smoothingLength: Double { 1 / (2 * Double.pi * maskRadius) }

    /// How far from the image's edges the maps are disturbed by them, in pixels; the default reference region lies
    /// this far inside.
    public var edgeMargin: Double { Self.edgeReach * smoothingLength }

    /// GPA with the two strongest independent reflections of the diffractogram's main grain, the mask `maskShare` of
    /// the distance to the grain's nearest other reflection, or `maskRadius` cycles per pixel where given. Nil when the
    /// image shows no grain.
    public init?(
        image: GrayImage, diffractogram: Diffractogram? = nil, maskShare: Double = defaultMaskShare,
        maskRadius: Double? = nil, reference: ImageRectangle? = nil
    ) {
        let diffractogram = diffractogram ?? Diffractogram(image: image)
        guard let grain = diffractogram.grains.first else { return nil }
        let strongest = grain.reflections.map { diffractogram.reflections[$0].g }
        guard let first = strongest.first,
            let second = strongest.dropFirst().first(where: {
                abs(LatticeAnalysis.cross(first, $0)) > ReciprocalGrain.collinear * first.length * $0.length
            })
        else { return nil }
        let nearest = [grain.g1, grain.g2, grain.g1 + grain.g2, grain.g1 - grain.g2].map(\.length).min()!
        self.init(
            image: image, g1: first, g2: second, maskRadius: maskRadius ?? maskShare * nearest, reference: reference)
    }

    /// GPA with reflections `g1` and `g2` (cycles per pixel, at least 10° from parallel), a Gaussian mask of standard
    /// deviation `maskRadius` cycles per pixel round each (by default `defaultMaskShare` of the shortest vector of the
    /// lattice they span), refined over `reference` (by default the whole image less `edgeMargin` all round). Nil when
    /// the two are too near parallel or the reference region holds no pixel.
    public init?(
        image: GrayImage, g1: PixelVector, g2: PixelVector, maskRadius: Double? = nil, reference: ImageRectangle? = nil
    ) {
        guard abs(LatticeAnalysis.cross(g1, g2)) > ReciprocalGrain.collinear * g1.length * g2.length else { return nil }
        width = image.width
        height = image.height
        let shortest = ReciprocalGrain.reduced(g1, g2).0.length
        let radius = maskRadius ?? Self.defaultMaskShare * shortest
        self.maskRadius = radius
        let smoothing = 1 / (2 * Double.pi * radius)
        let margin = Self.edgeReach * smoothing
        let inside = ImageRectangle(
            x0: margin, y0: margin, x1: Double(image.width - 1) - margin, y1: Double(image.height - 1) - margin)
        let region =
            reference
            ?? (inside.x0 < inside.x1 && inside.y0 < inside.y1
                ? inside : ImageRectangle(x0: 0, y0: 0, x1: Double(image.width - 1), y1: Double(image.height - 1)))
        self.reference = region
        let filter = BraggFilter(image, smoothingLength: smoothing)
        let windows = filter.windows(around: [g1, g2], reach: BraggFilter.windowReach * radius)
        guard let first = filter.phaseField(g1, window: windows[0], maskRadius: radius, reference: region),
            let second = filter.phaseField(g2, window: windows[1], maskRadius: radius, reference: region)
        else { return nil }
        self.g1 = first.g
        self.g2 = second.g
        let reciprocal = Matrix2(xx: first.g.x, xy: first.g.y, yx: second.g.x, yy: second.g.y)
        guard let direct = reciprocal.inverse else { return nil }
        a = direct.columnA
        b = direct.columnB
        let maps = DeformationMaps(first, second, reciprocal: reciprocal, direct: direct, width: width, height: height)
        phase1 = maps.phase1
        phase2 = maps.phase2
        displacementX = maps.displacementX
        displacementY = maps.displacementY
        exx = maps.exx
        eyy = maps.eyy
        exy = maps.exy
        rotation = maps.rotation
    }

    /// The strain and rotation at `point`, interpolated between pixels; nil outside the image.
    public func deformation(at point: ImagePoint) -> Deformation? {
        guard let e = Self.sample(exx, at: point), let f = Self.sample(eyy, at: point),
            let s = Self.sample(exy, at: point), let r = Self.sample(rotation, at: point)
        else { return nil }
        return Deformation(exx: e, eyy: f, exy: s, rotation: r)
    }

    /// The displacement at `point` (up to a lattice vector), from the phases interpolated between pixels the short way
    /// round; nil outside the image.
    public func displacement(at point: ImagePoint) -> PixelVector? {
        guard let p1 = Self.sample(phase1, at: point, turning: true),
            let p2 = Self.sample(phase2, at: point, turning: true)
        else { return nil }
        return -1 / (2 * Double.pi) * (Matrix2(columns: a, b) * PixelVector(x: p1, y: p2))
    }

    /// A map's value at `point`, bilinear between the four pixels round it; nil outside the pixels' centres. With
    /// `turning`, the map holds angles, each taken within half a turn of the first pixel's before they are mixed.
    static func sample(_ map: GrayImage, at point: ImagePoint, turning: Bool = false) -> Double? {
        guard point.x >= 0, point.y >= 0, point.x <= Double(map.width - 1), point.y <= Double(map.height - 1) else {
            return nil
        }
        let x0 = min(Int(point.x), max(0, map.width - 2)), y0 = min(Int(point.y), max(0, map.height - 2))
        let x1 = min(x0 + 1, map.width - 1), y1 = min(y0 + 1, map.height - 1)
        let fx = point.x - Double(x0), fy = point.y - Double(y0)
        let anchor = Double(map[x0, y0])
        func value(_ x: Int, _ y: Int) -> Double {
            let v = Double(map[x, y])
            return turning ? anchor + (v - anchor).remainder(dividingBy: 2 * Double.pi) : v
        }
        let top = value(x0, y0) * (1 - fx) + value(x1, y0) * fx
        let bottom = value(x0, y1) * (1 - fx) + value(x1, y1) * fx
        return top * (1 - fy) + bottom * fy
    }
}
