/// A local maximum of the band-passed image: where a column probably is, to the pixel.
struct ColumnCandidate: Sendable, Equatable {
    var x: Int, y: Int
    /// Sub-pixel position from a parabola through the band-passed values, a starting point for the fit.
    var startX: Double, startY: Double
    var response: Double
}

/// Finds candidate columns: pixels where the band-passed image is above the noise threshold and is the largest
/// value within the suppression radius (ties go to the earlier pixel in row-major order).
struct ColumnDetector: Sendable {
    let geometry: ColumnGeometry
    let threshold: Double
    /// Disc offsets, each marked whether it comes before the centre in row-major order.
    private let offsets: [(dx: Int, dy: Int, before: Bool)]

    init(geometry: ColumnGeometry, noise: Double) {
        self.geometry = geometry
        threshold = ColumnGeometry.candidateThreshold * noise * geometry.bandPass.noiseGain
        let r = geometry.suppressionRadius
        let reach = Int(r.rounded(.down))
        var offsets: [(dx: Int, dy: Int, before: Bool)] = []
        for dy in -reach...reach {
            for dx in -reach...reach where (dx != 0 || dy != 0) && Double(dx * dx + dy * dy) <= r * r {
                offsets.append((dx, dy, dy < 0 || (dy == 0 && dx < 0)))
            }
        }
        // Nearest first: most rejections come from the immediate neighbours.
        offsets.sort { $0.dx * $0.dx + $0.dy * $0.dy < $1.dx * $1.dx + $1.dy * $1.dy }
        self.offsets = offsets
    }

    /// Candidates whose pixel lies in `xs`×`ys`, in row-major order.
    func candidates(in image: GrayImage, xs: Range<Int>, ys: Range<Int>) -> [ColumnCandidate] {
        guard !xs.isEmpty && !ys.isEmpty else { return [] }
        let margin = Int(geometry.suppressionRadius.rounded(.up)) + 1
        let support = geometry.bandPass.support
        let fx = max(0, xs.lowerBound - margin)..<min(image.width, xs.upperBound + margin)
        let fy = max(0, ys.lowerBound - margin)..<min(image.height, ys.upperBound + margin)
        let rx = max(0, fx.lowerBound - support)..<min(image.width, fx.upperBound + support)
        let ry = max(0, fy.lowerBound - support)..<min(image.height, fy.upperBound + support)
        let filtered = geometry.bandPass.filter(image, xs: rx, ys: ry, outColumns: fx, outRows: fy)
        let fw = fx.count
        var result: [ColumnCandidate] = []
        filtered.withUnsafeBufferPointer { f in
            offsets.withUnsafeBufferPointer { disc in
                for y in ys {
                    let row = (y - fy.lowerBound) * fw - fx.lowerBound
                    for x in xs {
                        let v = f[row + x]
                        guard v > threshold else { continue }
                        var isMaximum = true
                        for o in disc {
                            let qx = x + o.dx, qy = y + o.dy
                            guard fx.contains(qx) && fy.contains(qy) else { continue }
                            let q = f[row + o.dy * fw + qx]
                            if q > v || (o.before && q == v) { isMaximum = false; break }
                        }
                        guard isMaximum else { continue }
                        var sx = Double(x), sy = Double(y)
                        if fx.contains(x - 1) && fx.contains(x + 1) {
                            sx += SpacingEstimator.parabolaVertex(f[row + x - 1], v, f[row + x + 1])
                        }
                        if fy.contains(y - 1) && fy.contains(y + 1) {
                            sy += SpacingEstimator.parabolaVertex(f[row - fw + x], v, f[row + fw + x])
                        }
                        result.append(ColumnCandidate(x: x, y: y, startX: sx, startY: sy, response: v))
                    }
                }
            }
        }
        return result
    }
}
