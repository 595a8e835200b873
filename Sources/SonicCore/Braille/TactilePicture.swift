/// The image as a tactile picture on a multi-line braille display: each cell 2 × 4 dots (dots 1–8 as bits 0–7, in
/// the layout of Unicode braille), the image (or the part of it in view) scaled to fill the dots with its shape kept,
/// and a dot raised where the
/// image is bright. The threshold lies midway between the dark and the bright (the 10th and 99th percentiles of the
/// dots' levels: a few hot pixels do not set it, a small bright feature does), so atom columns stand up as dots and
/// the gaps between them stay down; an image with no contrast at this scale raises nothing rather than noise. Each
/// feature marked (a bright column, a vacancy, a particle) is a cross of five dots in a cleared square, and the pen's
/// place a ring of dots around a lowered one in a cleared square: neither is any shape of the image, and the finger
/// tells the two apart.
public struct TactilePicture: Sendable, Equatable {
    /// The dots of each cell, row by row.
    public let cells: [UInt8]
    public let size: BrailleSize

    /// Level differences below this between the dark and the bright dots are no contrast.
    static let leastContrast = 0.05
    /// Each dot's level is the mean of this many samples across and down its part of the image.
    static let samplesPerDot = 3

    /// The bit of dot (x, y) of a cell, x 0–1 across and y 0–3 down.
    static func bit(x: Int, y: Int) -> UInt8 {
        let left: [UInt8] = [0x01, 0x02, 0x04, 0x40]
        let right: [UInt8] = [0x08, 0x10, 0x20, 0x80]
        return (x == 0 ? left : right)[y]
    }

    /// The picture of a whole image `width` × `height` pixels whose level (0–1) at a point `level` gives (nil outside
    /// the image), with the pen at `pen` (image coordinates; nil: not over the image).
    public init(
        width: Int, height: Int, level: (ImagePoint) -> Double?, pen: ImagePoint?, marks: [ImagePoint] = [],
        size: BrailleSize
    ) {
        self.init(
            region: ImageRegion(x: -0.5, y: -0.5, width: Double(width), height: Double(height)), level: level, pen: pen,
            marks: marks, size: size)
    }

    /// The picture of `region` of an image, with features at `marks` (image coordinates).
    public init(
        region: ImageRegion, level: (ImagePoint) -> Double?, pen: ImagePoint?, marks: [ImagePoint] = [],
        size: BrailleSize
    ) {
        self.size = size
        let dotsAcross = size.columns * 2
        let dotsDown = size.rows * 4
        let width = region.width
        let height = region.height
        guard size.cells > 0, width > 0, height > 0, width.isFinite, height.isFinite else {
            cells = [UInt8](repeating: 0, count: size.cells)
            return
        }
        // Pixels a dot covers, the same across and down; the picture centred on the dots.
        let scale = max(width / Double(dotsAcross), height / Double(dotsDown))
        let left = (Double(dotsAcross) - width / scale) / 2
        let top = (Double(dotsDown) - height / scale) / 2
        var levels = [Double?](repeating: nil, count: dotsAcross * dotsDown)
        for dy in 0..<dotsDown {
            for dx in 0..<dotsAcross {
                let x0 = (Double(dx) - left) * scale + region.x
                let y0 = (Double(dy) - top) * scale + region.y
                var sum = 0.0
                var count = 0
                for sy in 0..<Self.samplesPerDot {
                    for sx in 0..<Self.samplesPerDot {
                        let point = ImagePoint(
                            x: x0 + (Double(sx) + 0.5) * scale / Double(Self.samplesPerDot),
                            y: y0 + (Double(sy) + 0.5) * scale / Double(Self.samplesPerDot))
                        guard point.x >= region.x, point.y >= region.y, point.x < region.x + width,
                            point.y < region.y + height, let value = level(point), value.isFinite
                        else { continue }
                        sum += value
                        count += 1
                    }
                }
                if count > 0 { levels[dy * dotsAcross + dx] = sum / Double(count) }
            }
        }
        let known = levels.compactMap { $0 }.sorted()
        var raised = [Bool](repeating: false, count: levels.count)
        if !known.isEmpty {
            let dark = known[known.count / 10]
            let bright = known[min(known.count - 1, known.count * 99 / 100)]
            if bright - dark >= Self.leastContrast {
                let threshold = (dark + bright) / 2
                for index in levels.indices { raised[index] = (levels[index] ?? -1) > threshold }
            }
        }
        /// Draws `shape` (raised or not at an offset −2…2 across and down) centred on the dot under `point`.
        func stamp(_ point: ImagePoint, _ shape: (Int, Int) -> Bool) {
            let px = Int(((point.x - region.x) / scale + left).rounded(.down))
            let py = Int(((point.y - region.y) / scale + top).rounded(.down))
            guard point.x >= region.x, point.y >= region.y, px >= 0, py >= 0, px < dotsAcross, py < dotsDown else {
                return
            }
            for dy in -2...2 {
                for dx in -2...2 {
                    let x = px + dx
                    let y = py + dy
                    guard x >= 0, y >= 0, x < dotsAcross, y < dotsDown else { continue }
                    raised[y * dotsAcross + x] = shape(dx, dy)
                }
            }
        }
        for mark in marks { stamp(mark) { dx, dy in abs(dx) == abs(dy) && abs(dx) <= 1 } }
        if let pen { stamp(pen) { dx, dy in max(abs(dx), abs(dy)) == 1 } }
        var cells = [UInt8](repeating: 0, count: size.cells)
        for y in 0..<dotsDown {
            for x in 0..<dotsAcross where raised[y * dotsAcross + x] {
                cells[(y / 4) * size.columns + x / 2] |= Self.bit(x: x % 2, y: y % 4)
            }
        }
        self.cells = cells
    }

    /// The picture as Unicode braille, a line a row: for the session log.
    public var text: String {
        (0..<size.rows).map { row in
            String(
                String.UnicodeScalarView(
                    cells[(row * size.columns)..<((row + 1) * size.columns)].map {
                        Unicode.Scalar(0x2800 + UInt32($0))!
                    }))
        }.joined(separator: "\n")
    }
}

/// A part of an image, in image coordinates: from (`x`, `y`) — (−0.5, −0.5) is the top-left pixel's corner — across
/// `width` and down `height` pixels.
public struct ImageRegion: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
