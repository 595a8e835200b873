/// The joint fit's smooth background: bilinear between nodes on a regular grid over the region, so each pixel is a
/// weighted sum of the four nodes around it. Along each axis a node's weight is a hat, 1 at the node falling to 0
/// at its neighbours; the background is linear in the node values, and applying it (or its transpose) is separable.
struct BilinearBackground {
    /// The nodes along one axis of the region.
    struct Axis {
        /// How many nodes: the region's ends and evenly spaced nodes between them.
        let nodeCount: Int
        /// Per pixel: the node at or before it, and the weight of the node after it (that node's own is 1 − weight).
        let nodeBefore: [Int], weightAfter: [Double]
        /// The overlap Σ hₘ·hₘ' of every pair of node hats over the pixels (nodeCount² entries, row-major).
        let overlap: [Double]
        /// Each node's Σ hₘ over the pixels.
        let hatSums: [Double]

        init(length: Int, nodeSpacing: Double) {
            let cells = max(1, Int((Double(length - 1) / nodeSpacing).rounded()))
            let step = Double(max(1, length - 1)) / Double(cells)
            var nodeBefore = [Int](repeating: 0, count: length), weightAfter = [Double](repeating: 0, count: length)
            var overlap = [Double](repeating: 0, count: (cells + 1) * (cells + 1))
            var hatSums = [Double](repeating: 0, count: cells + 1)
            for i in 0..<length {
                let position = Double(i) / step
                let m = min(cells - 1, Int(position))
                nodeBefore[i] = m
                weightAfter[i] = position - Double(m)
                let w = weightAfter[i]
                overlap[m * (cells + 1) + m] += (1 - w) * (1 - w)
                overlap[m * (cells + 1) + m + 1] += (1 - w) * w
                overlap[(m + 1) * (cells + 1) + m] += (1 - w) * w
                overlap[(m + 1) * (cells + 1) + m + 1] += w * w
                hatSums[m] += 1 - w
                hatSums[m + 1] += w
            }
            nodeCount = cells + 1
            self.nodeBefore = nodeBefore; self.weightAfter = weightAfter; self.overlap = overlap
            self.hatSums = hatSums
        }
    }

    let width: Int, height: Int
    let x: Axis, y: Axis
    /// Each node's Σ of its squared weight over the region: its diagonal entry of JᵀJ. Nodes are numbered row by
    /// row: node (m, n), m across and n down, is n · x.nodeCount + m.
    let squaredWeightSums: [Double]
    /// Each node's Σ of its weight over the region, in the same order.
    let weightSums: [Double]
    var nodeCount: Int { squaredWeightSums.count }

    init(width: Int, height: Int, nodeSpacing: Double) {
        self.width = width; self.height = height
        x = Axis(length: width, nodeSpacing: nodeSpacing)
        y = Axis(length: height, nodeSpacing: nodeSpacing)
        var sums = [Double](repeating: 0, count: x.nodeCount * y.nodeCount), squaredSums = sums
        for n in 0..<y.nodeCount {
            for m in 0..<x.nodeCount {
                squaredSums[n * x.nodeCount + m] = x.overlap[m * x.nodeCount + m] * y.overlap[n * y.nodeCount + n]
                sums[n * x.nodeCount + m] = x.hatSums[m] * y.hatSums[n]
            }
        }
        squaredWeightSums = squaredSums
        weightSums = sums
    }

    /// Adds scale × the background with these node values to an image of the region.
    func add(_ nodes: [Double], scale: Double, into image: inout [Double]) {
        let nodesAcross = x.nodeCount
        // Row by row: first the background along the row at each node column, then across.
        var alongRow = [Double](repeating: 0, count: nodesAcross)
        image.withUnsafeMutableBufferPointer { image in
            for row in 0..<height {
                let n = y.nodeBefore[row], v = y.weightAfter[row]
                for m in 0..<nodesAcross {
                    alongRow[m] = scale * (nodes[n * nodesAcross + m] * (1 - v) + nodes[(n + 1) * nodesAcross + m] * v)
                }
                for column in 0..<width {
                    let m = x.nodeBefore[column], u = x.weightAfter[column]
                    image[row * width + column] += alongRow[m] * (1 - u) + alongRow[m + 1] * u
                }
            }
        }
    }

    /// Adds each node's weighted sum of the image (the transpose of `add`) to sums[offset + node].
    func accumulate(_ image: [Double], into sums: inout [Double], at offset: Int) {
        guard width > 0 else { return }
        let nodesAcross = x.nodeCount
        var alongRow = [Double](repeating: 0, count: nodesAcross)
        image.withUnsafeBufferPointer { image in
            alongRow.withUnsafeMutableBufferPointer { alongRow in
                x.nodeBefore.withUnsafeBufferPointer { nodeBefore in
                    x.weightAfter.withUnsafeBufferPointer { weightAfter in
                        for row in 0..<height {
                            for m in 0..<nodesAcross { alongRow[m] = 0 }
                            let start = row * width
                            // Summed in registers along each run of pixels between two nodes: adding to memory pixel
                            // by pixel made every add wait for the one before.
                            var m = nodeBefore[0], before = 0.0, after = 0.0
                            for column in 0..<width {
                                if nodeBefore[column] != m {
                                    alongRow[m] += before; alongRow[m + 1] += after
                                    m = nodeBefore[column]; before = 0; after = 0
                                }
                                let u = weightAfter[column], value = image[start + column]
                                before += value * (1 - u); after += value * u
                            }
                            alongRow[m] += before; alongRow[m + 1] += after
                            let n = y.nodeBefore[row], v = y.weightAfter[row]
                            for m in 0..<nodesAcross {
                                sums[offset + n * nodesAcross + m] += alongRow[m] * (1 - v)
                                sums[offset + (n + 1) * nodesAcross + m] += alongRow[m] * v
                            }
                        }
                    }
                }
            }
        }
    }
}
