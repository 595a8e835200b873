/// The part of an image the crystal covers, grain by grain: the cells of the columns read on a lattice.
///
/// Each column of a grain's reference sublattice owns its cell: the parallelogram of its own lattice vectors centred
/// on it, so the cells follow a bent or strained crystal. A cell's neighbour along ±a or ±b whose site lies outside
/// the image or less than half a spacing inside it, where a column is cut off too much to be found for sure, counts
/// as crystal too. A hole in the crystal smaller than two cells with crystal all round it (a vacancy, a column the
/// search missed) is crystal, of the grain round it. Held as samples a quarter spacing apart.
public struct CrystalRegion: Sendable {
    public let width: Int, height: Int
    /// The share of the image the crystal covers, 0–1.
    public let fraction: Double
    /// The crystal's outline: the boundary of its largest part, simplified to within a column spacing (the scale the
    /// crystal's edge is known to).
    public let outline: ImagePolygon
    /// Each grain's share of the image.
    public let grainFractions: [Double]

    private let spacing: Double
    private let samplesX: Int, samplesY: Int
    private let stepX: Double, stepY: Double
    /// The grain at each sample, −1 off the crystal.
    private let grains: [Int8]

    /// The region covered by the cells of `owners`: each a column's place, its lattice vectors and its grain.
    init(
        owners: [(position: PixelVector, cell: Matrix2, grain: Int)], grainCount: Int, width: Int, height: Int,
        spacing: Double
    ) {
        self.width = width
        self.height = height
        self.spacing = spacing
        let step = max(1, spacing / 4)
        samplesX = max(1, Int((Double(width) / step).rounded()))
        samplesY = max(1, Int((Double(height) / step).rounded()))
        stepX = Double(width) / Double(samplesX)
        stepY = Double(height) / Double(samplesY)
        var grains = [Int8](repeating: -1, count: samplesX * samplesY)
        let margin = spacing / 2
        func seen(_ p: PixelVector) -> Bool {
            p.x >= margin && p.y >= margin && p.x <= Double(width - 1) - margin && p.y <= Double(height - 1) - margin
        }
        let ownerPoints = PointGrid(owners.map(\.position), reach: spacing)
        var cells = owners
        // Cells beyond the edge of what can be seen, next to cells of the crystal, are crystal where most of their
        // neighbours that can be seen are.
        func owned(_ p: PixelVector) -> Bool { ownerPoints.nearest(to: p, within: 0.3 * spacing) != nil }
        var added = PointGrid([], reach: spacing)
        var extra: [PixelVector] = []
        for owner in owners {
            for dn in -1...1 {
                for dm in -1...1 where dn != 0 || dm != 0 {
                    let site = owner.position + owner.cell * PixelVector(x: Double(dn), y: Double(dm))
                    guard !seen(site), !owned(site), added.nearest(to: site, within: 0.3 * spacing) == nil else {
                        continue
                    }
                    var seenAround = 0, ownedAround = 0
                    for en in -1...1 {
                        for em in -1...1 where en != 0 || em != 0 {
                            let next = site + owner.cell * PixelVector(x: Double(en), y: Double(em))
                            guard seen(next) || owned(next) else { continue }
                            seenAround += 1
                            if owned(next) { ownedAround += 1 }
                        }
                    }
                    guard 2 * ownedAround > seenAround else { continue }
                    cells.append((site, owner.cell, owner.grain))
                    extra.append(site)
                    added = PointGrid(extra, reach: spacing)
                }
            }
        }
        for cell in cells {
            guard let inverse = cell.cell.inverse else { continue }
            let corners = [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)].map {
                cell.position + cell.cell * PixelVector(x: $0.0, y: $0.1)
            }
            let i0 = max(0, Int(((corners.map(\.x).min()! + 0.5) / stepX).rounded(.down)))
            let i1 = min(samplesX - 1, Int(((corners.map(\.x).max()! + 0.5) / stepX).rounded(.up)))
            let j0 = max(0, Int(((corners.map(\.y).min()! + 0.5) / stepY).rounded(.down)))
            let j1 = min(samplesY - 1, Int(((corners.map(\.y).max()! + 0.5) / stepY).rounded(.up)))
            guard i0 <= i1 && j0 <= j1 else { continue }
            for j in j0...j1 {
                for i in i0...i1 {
                    let p = PixelVector(x: -0.5 + (Double(i) + 0.5) * stepX, y: -0.5 + (Double(j) + 0.5) * stepY)
                    let f = inverse * (p - cell.position)
                    if abs(f.x) <= 0.5 && abs(f.y) <= 0.5 && grains[j * samplesX + i] < 0 {
                        grains[j * samplesX + i] = Int8(clamping: cell.grain)
                    }
                }
            }
        }
        let cellArea = owners.first.map { abs($0.cell.determinant) } ?? spacing * spacing
        Self.fillHoles(&grains, width: samplesX, height: samplesY, smallerThan: 2 * cellArea / (stepX * stepY))
        self.grains = grains
        let total = Double(samplesX * samplesY)
        fraction = Double(grains.filter { $0 >= 0 }.count) / total
        grainFractions = (0..<grainCount).map { g in Double(grains.filter { $0 == Int8(clamping: g) }.count) / total }
        // The contour cuts the image's corners by half a sample: onto the edge with them.
        let stepX = stepX, stepY = stepY
        func onEdge(_ value: Double, step: Double, size: Int) -> Double {
            value < -0.5 + 0.6 * step ? -0.5 : value > Double(size) - 0.5 - 0.6 * step ? Double(size) - 0.5 : value
        }
        let loops = Contours.loops(grains.map { $0 >= 0 }, width: samplesX, height: samplesY).map { loop in
            ImagePolygon(
                loop.map {
                    ImagePoint(
                        x: onEdge(-0.5 + $0.x * stepX, step: stepX, size: width),
                        y: onEdge(-0.5 + $0.y * stepY, step: stepY, size: height))
                })
        }
        let largest = loops.max { $0.area < $1.area }
        outline = ImagePolygon(Contours.simplified(largest?.points ?? [], tolerance: spacing))
    }

    /// Whether `point` lies in the crystal.
    public func contains(_ point: ImagePoint) -> Bool { grain(at: point) != nil }

    /// The grain `point` lies in (0, 1, …); nil off the crystal. Up to a spacing beyond the image's edge, the crystal
    /// is taken to go on as it is at the edge.
    public func grain(at point: ImagePoint) -> Int? {
        guard point.x.isFinite && point.y.isFinite,
            point.x > -0.5 - spacing && point.y > -0.5 - spacing && point.x < Double(width) - 0.5 + spacing
                && point.y < Double(height) - 0.5 + spacing
        else { return nil }
        let i = min(max(Int(((point.x + 0.5) / stepX).rounded(.down)), 0), samplesX - 1)
        let j = min(max(Int(((point.y + 0.5) / stepY).rounded(.down)), 0), samplesY - 1)
        let g = grains[j * samplesX + i]
        return g >= 0 ? Int(g) : nil
    }

    /// Holes (samples joined at their sides) smaller than `smallerThan` samples, not touching the edge, become the
    /// grain most of their rim is.
    private static func fillHoles(_ grains: inout [Int8], width: Int, height: Int, smallerThan limit: Double) {
        var seen = [Bool](repeating: false, count: grains.count)
        for start in grains.indices where grains[start] < 0 && !seen[start] {
            var members = [start]
            seen[start] = true
            var touchesEdge = false
            var rim: [Int8: Int] = [:]
            var k = 0
            while k < members.count {
                let cell = members[k]
                k += 1
                let i = cell % width, j = cell / width
                if i == 0 || j == 0 || i == width - 1 || j == height - 1 { touchesEdge = true }
                for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let ni = i + di, nj = j + dj
                    guard ni >= 0 && ni < width && nj >= 0 && nj < height else { continue }
                    let next = nj * width + ni
                    if grains[next] >= 0 {
                        rim[grains[next], default: 0] += 1
                    } else if !seen[next] {
                        seen[next] = true
                        members.append(next)
                    }
                }
            }
            guard !touchesEdge, Double(members.count) < limit, let grain = rim.max(by: { $0.value < $1.value })?.key
            else { continue }
            for cell in members { grains[cell] = grain }
        }
    }
}
