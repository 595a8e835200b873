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
    private let disc: SuppressionDisc

    init(geometry: ColumnGeometry, noise: Double) {
        self.geometry = geometry
        threshold = ColumnGeometry.candidateThreshold * noise * geometry.bandPass.noiseGain
        disc = SuppressionDisc(radius: geometry.suppressionRadius)
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
            for y in ys {
                let row = (y - fy.lowerBound) * fw - fx.lowerBound
                for x in xs where f[row + x] > threshold {
                    guard disc.isMaximum(f, index: row + x, x: x, y: y, width: fw, xs: fx, ys: fy) else { continue }
                    let start = SuppressionDisc.vertex(f, index: row + x, x: x, y: y, width: fw, xs: fx, ys: fy)
                    result.append(ColumnCandidate(x: x, y: y, startX: start.x, startY: start.y, response: f[row + x]))
                }
            }
        }
        return result
    }
}
