import RealModule

/// Places in an image said as a blind reader finds them on a page: its ninths (upper left … lower right), simple
/// shares of its width and height (a third, three fifths), its sides and corners.
public enum Places {
    /// The ninths of the image, row by row from the top.
    static let regions = [
        "upper left", "top", "upper right", "left", "centre", "right", "lower left", "bottom", "lower right"
    ]

    /// Which ninth of a `width` × `height` image `point` lies in.
    public static func region(of point: ImagePoint, width: Int, height: Int) -> String {
        func third(_ value: Double, _ size: Int) -> Int { min(2, max(0, Int(3 * (value + 0.5) / Double(size)))) }
        return regions[3 * third(point.y, height) + third(point.x, width)]
    }

    /// Simple shares of a length, and how they are said.
    static let shares: [(value: Double, words: String)] = [
        (0.2, "a fifth"), (0.25, "a quarter"), (1.0 / 3, "a third"), (0.4, "two fifths"), (0.5, "half"),
        (0.6, "three fifths"), (2.0 / 3, "two thirds"), (0.75, "three quarters"), (0.8, "four fifths")
    ]

    /// The simple share nearest `value`, in words: "a third", "three fifths".
    static func share(_ value: Double) -> String {
        shares.min { abs($0.value - value) < abs($1.value - value) }!.words
    }

    static let wholeImage = "the whole image"

    /// Where the crystal lies, in words: "the whole image", "the left three fifths", "all but the lower right corner",
    /// "the upper left corner", "all but a patch at the centre", or "mostly the upper left".
    static func extent(of crystal: CrystalRegion) -> String {
        extent(fraction: crystal.fraction, width: crystal.width, height: crystal.height, contains: crystal.contains)
    }

    /// Where a part of a `width` × `height` image lies, in words, as for the crystal: `fraction` of the image, at the
    /// points it `contains`.
    static func extent(fraction: Double, width: Int, height: Int, contains: (ImagePoint) -> Bool) -> String {
        guard fraction < 0.95 else { return wholeImage }
        // A grid of samples over the image: each one's place as shares of the width and height, and whether it is
        // crystal.
        let side = 48
        var samples: [(x: Double, y: Double, inside: Bool)] = []
        for j in 0..<side {
            for i in 0..<side {
                let x = (Double(i) + 0.5) / Double(side), y = (Double(j) + 0.5) / Double(side)
                let point = ImagePoint(x: x * Double(width) - 0.5, y: y * Double(height) - 0.5)
                samples.append((x, y, contains(point)))
            }
        }
        // A band along one side, as wide as the crystal's share: the side it matches best.
        let bands: [(name: String, holds: (Double, Double) -> Bool)] = [
            ("left", { x, _ in x < fraction }), ("right", { x, _ in x > 1 - fraction }),
            ("top", { _, y in y < fraction }), ("bottom", { _, y in y > 1 - fraction })
        ]
        func agreement(_ holds: (Double, Double) -> Bool) -> Double {
            Double(samples.filter { holds($0.x, $0.y) == $0.inside }.count) / Double(samples.count)
        }
        if let band = bands.max(by: { agreement($0.holds) < agreement($1.holds) }), agreement(band.holds) >= 0.95 {
            return "the \(band.name) \(share(fraction).replacingOccurrences(of: "a ", with: ""))"
        }
        // A band across the image or down it, touching neither end (its edges where all but a few percent of the
        // part lie, so a slanting edge still makes a band).
        let inside = samples.filter(\.inside)
        func edges(_ values: [Double]) -> (lo: Double, hi: Double)? {
            guard values.count >= 10 else { return nil }
            let sorted = values.sorted()
            return (sorted[sorted.count / 50], sorted[sorted.count - 1 - sorted.count / 50])
        }
        if let (lo, hi) = edges(inside.map(\.y)), lo > 0.05, hi < 0.95,
            agreement({ _, y in y >= lo && y <= hi }) >= 0.92
        {
            return "a band across the \(bandPart((lo + hi) / 2, before: "upper", after: "lower"))"
        }
        if let (lo, hi) = edges(inside.map(\.x)), lo > 0.05, hi < 0.95,
            agreement({ x, _ in x >= lo && x <= hi }) >= 0.92
        {
            return "a band down the \(bandPart((lo + hi) / 2, before: "left", after: "right"))"
        }
        // A corner: the part that is (or is not) crystal touches two sides that meet there, and no other.
        func corner(_ part: [(x: Double, y: Double, inside: Bool)]) -> String? {
            guard !part.isEmpty else { return nil }
            let edge = 1.0 / Double(side)
            let left = part.contains { $0.x < edge }, right = part.contains { $0.x > 1 - edge }
            let top = part.contains { $0.y < edge }, bottom = part.contains { $0.y > 1 - edge }
            guard left != right, top != bottom else { return nil }
            return "\(top ? "upper" : "lower") \(left ? "left" : "right") corner"
        }
        let outside = samples.filter { !$0.inside }
        if let corner = corner(outside) { return "all but the \(corner)" }
        if let corner = corner(inside) { return "the \(corner)" }
        func middle(_ part: [(x: Double, y: Double, inside: Bool)]) -> String {
            let x = part.map(\.x).reduce(0, +) / Double(part.count), y = part.map(\.y).reduce(0, +) / Double(part.count)
            return region(of: ImagePoint(x: x * 3 - 0.5, y: y * 3 - 0.5), width: 3, height: 3)
        }
        let touchesNoSide = !outside.contains { $0.x < 0.05 || $0.x > 0.95 || $0.y < 0.05 || $0.y > 0.95 }
        if touchesNoSide { return "all but a patch at the \(middle(outside))" }
        return "mostly the \(middle(inside))"
    }

    /// Where a band's middle lies along the image, a share of its length: "middle", or the part before or after it.
    private static func bandPart(_ middle: Double, before: String, after: String) -> String {
        middle < 0.4 ? "\(before) part" : middle > 0.6 ? "\(after) part" : "middle"
    }

    /// Which way a wall runs, and where.
    enum Course: Equatable {
        /// Across the image at a share of its height ("a third"), or down it at a share of its width.
        case across(share: String)
        case down(share: String)
        /// From one ninth to another ("upper left", "lower right").
        case diagonal(from: String, to: String)

        /// "across the image at a third of its height", "down the image at half its width", "from the upper left to
        /// the lower right".
        var words: String {
            switch self {
            case .across(let share): "across the image \(Course.at(share, of: "height"))"
            case .down(let share): "down the image \(Course.at(share, of: "width"))"
            case .diagonal(let from, let to): "from the \(from) to the \(to)"
            }
        }

        /// "at a third of its height", "at half its height".
        static func at(_ share: String, of length: String) -> String {
            share == "half" ? "at half its \(length)" : "at \(share) of its \(length)"
        }
    }

    /// How a wall through `points` runs: across the image when it is within 30° of level, down it within 30° of
    /// upright, else from one ninth to another.
    static func course(of points: [ImagePoint], width: Int, height: Int) -> Course {
        guard let first = points.first, let last = points.last else { return .diagonal(from: "centre", to: "centre") }
        let angle = abs(Double.atan2(y: last.y - first.y, x: last.x - first.x) * 180 / Double.pi)
        let acrossness = min(angle, 180 - angle)
        let meanX = points.map(\.x).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.y).reduce(0, +) / Double(points.count)
        if acrossness <= 30 { return .across(share: share((meanY + 0.5) / Double(height))) }
        if acrossness >= 60 { return .down(share: share((meanX + 0.5) / Double(width))) }
        let ends = [first, last].sorted { $0.y < $1.y }
        return .diagonal(
            from: region(of: ends[0], width: width, height: height),
            to: region(of: ends[1], width: width, height: height))
    }
}
