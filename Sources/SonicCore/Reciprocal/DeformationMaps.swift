import Dispatch
import RealModule

/// The maps of geometric phase analysis, pixel by pixel from two phase fields (`GeometricPhase`).
struct DeformationMaps {
    var phase1: GrayImage, phase2: GrayImage
    var displacementX: GrayImage, displacementY: GrayImage
    var exx: GrayImage, eyy: GrayImage, exy: GrayImage, rotation: GrayImage

    /// Rows are shared among the cores in this many bands.
    static let bands = 16

    /// `reciprocal`'s rows are the refined g1 and g2; `direct`'s columns the reference lattice's a and b.
    init(_ first: PhaseField, _ second: PhaseField, reciprocal: Matrix2, direct: Matrix2, width: Int, height: Int) {
        let count = width * height
        let buffers = (0..<8).map { _ in UnsafeMutableBufferPointer<Float>.allocate(capacity: count) }
        defer { for buffer in buffers { buffer.deallocate() } }
        nonisolated(unsafe) let out = buffers
        let bands = min(height, Self.bands)
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            for i in (band * count / bands)..<((band + 1) * count / bands) {
                let p1 = Float.atan2(y: first.imaginary[i], x: first.real[i])
                let p2 = Float.atan2(y: second.imaginary[i], x: second.real[i])
                let u = -1 / (2 * Double.pi) * (direct * PixelVector(x: Double(p1), y: Double(p2)))
                out[0][i] = p1
                out[1][i] = p2
                out[2][i] = Float(u.x)
                out[3][i] = Float(u.y)
            }
        }
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            for y in (band * height / bands)..<((band + 1) * height / bands) {
                for x in 0..<width {
                    // The local reciprocal vectors g + ∇P/2π, their dual the local lattice.
                    let d1 = Self.gradient(out[0], x, y, width: width, height: height)
                    let d2 = Self.gradient(out[1], x, y, width: width, height: height)
                    let local = Matrix2(
                        xx: reciprocal.xx + d1.x / (2 * Double.pi), xy: reciprocal.xy + d1.y / (2 * Double.pi),
                        yx: reciprocal.yx + d2.x / (2 * Double.pi), yy: reciprocal.yy + d2.y / (2 * Double.pi))
                    let deformation =
                        local.inverse.map { Deformation(gradient: $0 * reciprocal) }
                        ?? Deformation(exx: .nan, eyy: .nan, exy: .nan, rotation: .nan)
                    let i = y * width + x
                    out[4][i] = Float(deformation.exx)
                    out[5][i] = Float(deformation.eyy)
                    out[6][i] = Float(deformation.exy)
                    out[7][i] = Float(deformation.rotation)
                }
            }
        }
        func map(_ k: Int) -> GrayImage {
            GrayImage(width: width, height: height, sampleType: .float32, samples: Array(buffers[k]))
        }
        phase1 = map(0)
        phase2 = map(1)
        displacementX = map(2)
        displacementY = map(3)
        exx = map(4)
        eyy = map(5)
        exy = map(6)
        rotation = map(7)
    }

    /// The phase's gradient at (x, y), radians per pixel: the differences of the phases either side, wrapped into
    /// (−π, π] (one-sided at the edges).
    private static func gradient(
        _ phase: UnsafeMutableBufferPointer<Float>, _ x: Int, _ y: Int, width: Int, height: Int
    )
        -> PixelVector
    {
        func difference(_ i: Int, _ j: Int) -> Double {
            let d = Double(phase[i]) - Double(phase[j])
            return d > Double.pi ? d - 2 * Double.pi : d < -Double.pi ? d + 2 * Double.pi : d
        }
        let left = max(0, x - 1), right = min(width - 1, x + 1)
        let up = max(0, y - 1), down = min(height - 1, y + 1)
        let gx = right > left ? difference(y * width + right, y * width + left) / Double(right - left) : 0
        let gy = down > up ? difference(down * width + x, up * width + x) / Double(down - up) : 0
        return PixelVector(x: gx, y: gy)
    }
}
