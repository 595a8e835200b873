import SonicCore

/// How the strain is measured: each column's cell against the reference's, or geometric phase analysis.
enum StrainMethod: String, CaseIterable, Sendable {
    case columns, gpa
}

/// The strain and rotation of an image against a reference lattice, as `strain` reports them: the reference, each
/// column's, and, for the maps, the value at every pixel.
struct StrainField {
    /// The four numbers of a deformation, in the order they are reported.
    enum Component: CaseIterable {
        case exx, eyy, exy, rotation

        func value(_ d: Deformation) -> Double {
            switch self {
            case .exx: d.exx
            case .eyy: d.eyy
            case .exy: d.exy
            case .rotation: d.rotationDegrees
            }
        }
    }

    struct Reference {
        /// Where the reference lattice was read: the region given, or the bounds of the columns found undisturbed, or
        /// for GPA the image less its edges.
        let region: ImageRectangle
        let given: Bool
        /// How many columns its cell was averaged over (the columns method only).
        let columnCount: Int?
        /// Its lattice vectors, in pixels.
        let a: PixelVector, b: PixelVector
        /// GPA's mask round each reflection, cycles per pixel, and the smoothing it amounts to, pixels.
        let maskRadius: Double?
        let smoothingLength: Double?
    }

    /// A component's spread: over the columns, or for GPA over the pixels clear of the image's edges.
    struct Spread {
        let median: Double, rms: Double
        let lowest: Double, highest: Double
        let lowestAt: ImagePoint, highestAt: ImagePoint
    }

    let method: StrainMethod
    let width: Int, height: Int
    let reference: Reference
    /// The columns found, each with its deformation where one is known; nil when GPA found no columns to sample at.
    let columns: [(point: ImagePoint, deformation: Deformation?)]?
    let spreads: [Spread?]
    /// Each component at every pixel, row by row (strains as fractions, the rotation in degrees): the GPA maps, or
    /// each column's value over the pixels nearer it than any other column, NaN off the crystal.
    let maps: () -> [[Float]]

    /// At most this many pixels of a GPA map go into its median.
    static let medianSamples = 1_000_000

    /// From the columns' cells: `analysis` read with the reference region where one was given.
    init(analysis: LatticeAnalysis, reference: ReferenceLattice, spacing: Double, width: Int, height: Int) {
        method = .columns
        self.width = width
        self.height = height
        let (a, b) = (reference.cell.columnA, reference.cell.columnB)
        self.reference = Reference(
            region: reference.bounds, given: reference.given, columnCount: reference.columnCount, a: a, b: b,
            maskRadius: nil, smoothingLength: nil)
        let columns = analysis.columns.map {
            (point: ImagePoint(x: $0.column.x, y: $0.column.y), deformation: $0.deformation)
        }
        self.columns = columns
        let measured = columns.compactMap { c in c.deformation.map { (c.point, $0) } }
        spreads = Component.allCases.map { component in
            Self.spread(measured.map { ($0.0, component.value($0.1)) })
        }
        let crystal = analysis.crystal
        maps = { Self.painted(measured, crystal: crystal, reach: spacing, width: width, height: height) }
    }

    /// From geometric phase analysis, its maps sampled at `columns` where there are any.
    init(gpa: GeometricPhase, given: Bool, columns found: [ImagePoint]) {
        method = .gpa
        width = gpa.width
        height = gpa.height
        // Said as the columns' lattice is: a pointing right, b down.
        var (a, b) = abs(gpa.a.x) >= abs(gpa.b.x) ? (gpa.a, gpa.b) : (gpa.b, gpa.a)
        if a.x < 0 { a = PixelVector(x: -a.x, y: -a.y) }
        if b.y < 0 { b = PixelVector(x: -b.x, y: -b.y) }
        reference = Reference(
            region: gpa.reference, given: given, columnCount: nil, a: a, b: b, maskRadius: gpa.maskRadius,
            smoothingLength: gpa.smoothingLength)
        columns = found.isEmpty ? nil : found.map { (point: $0, deformation: gpa.deformation(at: $0)) }
        let images = [gpa.exx, gpa.eyy, gpa.exy, gpa.rotation]
        let degrees = Float(180 / Double.pi)
        let margin = Int(gpa.edgeMargin.rounded(.up))
        spreads = images.enumerated().map { k, map in
            Self.spread(map, margin: margin, scale: k == 3 ? Double(degrees) : 1)
        }
        maps = {
            images.enumerated().map { k, map in k == 3 ? map.samples.map { $0 * degrees } : map.samples }
        }
    }

    /// The spread of values at points; nil for none.
    static func spread(_ values: [(ImagePoint, Double)]) -> Spread? {
        guard let low = values.min(by: { $0.1 < $1.1 }), let high = values.max(by: { $0.1 < $1.1 }) else { return nil }
        let sorted = values.map(\.1).sorted()
        let rms = (sorted.reduce(0) { $0 + $1 * $1 } / Double(sorted.count)).squareRoot()
        return Spread(
            median: median(sorted), rms: rms, lowest: low.1, highest: high.1, lowestAt: low.0, highestAt: high.0)
    }

    /// The spread of a map's values `margin` pixels or more from its edges (the whole map where that leaves none),
    /// times `scale`; its median from at most `medianSamples` of them, evenly spaced.
    static func spread(_ map: GrayImage, margin: Int, scale: Double) -> Spread? {
        let inside = 2 * margin < min(map.width, map.height) ? margin : 0
        let xs = inside..<(map.width - inside), ys = inside..<(map.height - inside)
        var low = (value: Float.infinity, x: 0, y: 0), high = (value: -Float.infinity, x: 0, y: 0)
        var squares = 0.0, count = 0
        for y in ys {
            for x in xs {
                let v = map.samples[y * map.width + x]
                guard v.isFinite else { continue }
                if v < low.value { low = (v, x, y) }
                if v > high.value { high = (v, x, y) }
                squares += Double(v) * Double(v)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        let stride = max(1, xs.count * ys.count / medianSamples)
        var sample: [Double] = []
        sample.reserveCapacity(xs.count * ys.count / stride + 1)
        var k = 0
        for y in ys {
            for x in xs {
                if k % stride == 0 {
                    let v = map.samples[y * map.width + x]
                    if v.isFinite { sample.append(Double(v)) }
                }
                k += 1
            }
        }
        sample.sort()
        return Spread(
            median: median(sample) * scale, rms: (squares / Double(count)).squareRoot() * scale,
            lowest: Double(low.value) * scale, highest: Double(high.value) * scale,
            lowestAt: ImagePoint(x: Double(low.x), y: Double(low.y)),
            highestAt: ImagePoint(x: Double(high.x), y: Double(high.y)))
    }

    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let half = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
    }

    /// Each column's four values over the pixels nearer it than any other column and within `reach` of it; NaN
    /// elsewhere and off the crystal.
    static func painted(
        _ columns: [(ImagePoint, Deformation)], crystal: CrystalRegion?, reach: Double, width: Int, height: Int
    ) -> [[Float]] {
        let count = width * height
        var nearest = [Float](repeating: .infinity, count: count)
        var owner = [Int32](repeating: -1, count: count)
        let r = max(1, reach)
        for (k, (p, _)) in columns.enumerated() {
            let x0 = max(0, Int((p.x - r).rounded(.up))), x1 = min(width - 1, Int((p.x + r).rounded(.down)))
            let y0 = max(0, Int((p.y - r).rounded(.up))), y1 = min(height - 1, Int((p.y + r).rounded(.down)))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                let dy = Double(y) - p.y
                for x in x0...x1 {
                    let dx = Double(x) - p.x
                    let d = Float(dx * dx + dy * dy)
                    let i = y * width + x
                    if d < nearest[i] && Double(d) <= r * r {
                        nearest[i] = d
                        owner[i] = Int32(k)
                    }
                }
            }
        }
        let values = Component.allCases.map { component in columns.map { Float(component.value($0.1)) } }
        var maps = [[Float]](repeating: [Float](repeating: .nan, count: count), count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                guard owner[i] >= 0, crystal?.contains(ImagePoint(x: Double(x), y: Double(y))) ?? true else {
                    continue
                }
                for c in maps.indices { maps[c][i] = values[c][Int(owner[i])] }
            }
        }
        return maps
    }
}
