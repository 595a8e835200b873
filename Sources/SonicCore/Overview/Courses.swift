/// Lines through the image drawn from points along them — a wall between domains, a boundary between grains: the
/// points grouped, each group's course, and their order.
enum Courses {
    /// Where a wall comes in reading down and across the image: by its middle.
    static func order(of wall: [ImagePoint]) -> Double {
        let middle = ImageOverview.middle(of: wall)
        return middle.x + middle.y
    }

    /// The unit direction in which the points spread most (the covariance's leading eigenvector).
    static func principalAxis(_ points: [PixelVector]) -> PixelVector {
        let n = Double(max(1, points.count))
        let mean = (1 / n) * points.reduce(PixelVector.zero, +)
        var xx = 0.0, xy = 0.0, yy = 0.0
        for p in points {
            let d = p - mean
            xx += d.x * d.x; xy += d.x * d.y; yy += d.y * d.y
        }
        let angle = 0.5 * Double.atan2(y: 2 * xy, x: xx - yy)
        return PixelVector(x: Double.cos(angle), y: Double.sin(angle))
    }

    /// The points in groups, each point within `reach` of another of its group.
    static func connected(_ points: [ImagePoint], within reach: Double) -> [[ImagePoint]] {
        var grid = SiteGrid(cellSize: reach / 2)
        let spots = points.map { ColumnGaussian(x: $0.x, y: $0.y, amplitude: 1, sigma: 1) }
        for k in spots.indices { grid.insert(k, x: spots[k].x, y: spots[k].y) }
        var group = [Int](repeating: -1, count: points.count)
        var groups: [[ImagePoint]] = []
        for start in points.indices where group[start] < 0 {
            group[start] = groups.count
            var members = [start], k = 0
            while k < members.count {
                let p = points[members[k]]
                k += 1
                for q in grid.indices(nearX: p.x, y: p.y, within: reach, in: spots) where group[q] < 0 {
                    group[q] = groups.count
                    members.append(q)
                }
            }
            groups.append(members.map { points[$0] })
        }
        return groups
    }

    /// A wall's course through its points: their means in bins of `bin` pixels along the direction they run in,
    /// and on at either end, that way, to the edge of the crystal.
    static func course(_ points: [ImagePoint], bin: Double, inCrystal: (PixelVector) -> Bool) -> [ImagePoint] {
        let vectors = points.map { PixelVector(x: $0.x, y: $0.y) }
        var axis = principalAxis(vectors)
        // Left to right, or top to bottom where the wall runs more down than across.
        if abs(axis.x) >= abs(axis.y) ? axis.x < 0 : axis.y < 0 { axis = -1 * axis }
        let positions = vectors.map { LatticeAnalysis.dot($0, axis) }
        let start = positions.min()!, end = positions.max()!
        let count = max(1, Int(((end - start) / bin).rounded(.up)))
        var sums = [PixelVector](repeating: .zero, count: count), counts = [Int](repeating: 0, count: count)
        for (p, t) in zip(vectors, positions) {
            let k = min(count - 1, Int((t - start) / bin))
            sums[k] = sums[k] + p
            counts[k] += 1
        }
        var course = sums.indices.filter { counts[$0] > 0 }.map { (1 / Double(counts[$0])) * sums[$0] }
        // On to the crystal's edge, each way along the axis from the mean of the end's bin.
        func edge(from point: PixelVector, towards direction: PixelVector) -> PixelVector {
            var reached = point
            while inCrystal(reached + direction) { reached = reached + direction }
            return reached
        }
        course.insert(edge(from: course[0], towards: -1 * axis), at: 0)
        course.append(edge(from: course[course.count - 1], towards: axis))
        return course.map { ImagePoint(x: $0.x, y: $0.y) }
    }
}
