/// Outlines of the true parts of a grid of samples (marching squares), and their simplification.
enum Contours {
    /// Every closed boundary between true and false samples of the `width` × `height` grid, with false all around
    /// it. Sample (i, j) sits at (i + 0.5, j + 0.5); a boundary passes halfway between two samples, so one around
    /// the whole grid runs along 0 and `width`, 0 and `height`. Where two true samples touch only at a corner they
    /// are kept apart.
    static func loops(_ inside: [Bool], width: Int, height: Int) -> [[ImagePoint]] {
        func value(_ i: Int, _ j: Int) -> Bool { i >= 0 && i < width && j >= 0 && j < height && inside[j * width + i] }
        // An edge between neighbouring samples, by the sample at its top or left end and its direction.
        let rowLength = width + 2
        func across(_ i: Int, _ j: Int) -> Int { 2 * ((j + 1) * rowLength + i + 1) }
        func down(_ i: Int, _ j: Int) -> Int { across(i, j) + 1 }
        func point(_ edge: Int) -> ImagePoint {
            let cell = edge / 2, i = cell % rowLength - 1, j = cell / rowLength - 1
            return edge % 2 == 0
                ? ImagePoint(x: Double(i) + 1, y: Double(j) + 0.5) : ImagePoint(x: Double(i) + 0.5, y: Double(j) + 1)
        }
        var links: [Int: [Int]] = [:]
        func link(_ p: Int, _ q: Int) {
            links[p, default: []].append(q)
            links[q, default: []].append(p)
        }
        for j in -1..<height {
            for i in -1..<width {
                let topLeft = value(i, j), topRight = value(i + 1, j)
                let bottomLeft = value(i, j + 1), bottomRight = value(i + 1, j + 1)
                let top = across(i, j), bottom = across(i, j + 1), left = down(i, j), right = down(i + 1, j)
                var crossed: [Int] = []
                if topLeft != topRight { crossed.append(top) }
                if topRight != bottomRight { crossed.append(right) }
                if bottomLeft != bottomRight { crossed.append(bottom) }
                if topLeft != bottomLeft { crossed.append(left) }
                if crossed.count == 2 {
                    link(crossed[0], crossed[1])
                } else if crossed.count == 4 {
                    // Two true corners facing each other across the square: each cut off on its own.
                    if topLeft {
                        link(top, left); link(bottom, right)
                    } else {
                        link(top, right); link(bottom, left)
                    }
                }
            }
        }
        var visited = Set<Int>()
        var loops: [[ImagePoint]] = []
        for start in links.keys.sorted() where !visited.contains(start) {
            var loop: [ImagePoint] = []
            var previous = -1, current = start
            while !visited.contains(current) {
                visited.insert(current)
                loop.append(point(current))
                let next = links[current]!.first { $0 != previous && !visited.contains($0) }
                guard let next else { break }
                previous = current
                current = next
            }
            loops.append(loop)
        }
        return loops
    }

    /// A closed outline with the corners left out that lie within `tolerance` of the line through their neighbours
    /// kept (Douglas–Peucker).
    static func simplified(_ loop: [ImagePoint], tolerance: Double) -> [ImagePoint] {
        guard loop.count > 3 else { return loop }
        func distance(_ p: ImagePoint, _ a: ImagePoint) -> Double {
            ((p.x - a.x) * (p.x - a.x) + (p.y - a.y) * (p.y - a.y)).squareRoot()
        }
        let far = loop.indices.max { distance(loop[$0], loop[0]) < distance(loop[$1], loop[0]) }!
        func chain(_ points: ArraySlice<ImagePoint>) -> [ImagePoint] {
            guard points.count > 2, let a = points.first, let b = points.last else { return Array(points) }
            let length = distance(a, b)
            func offLine(_ p: ImagePoint) -> Double {
                length > 0 ? abs((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)) / length : distance(p, a)
            }
            let inner = points.index(after: points.startIndex)..<points.index(before: points.endIndex)
            let worst = inner.max { offLine(points[$0]) < offLine(points[$1]) }!
            guard offLine(points[worst]) > tolerance else { return [a, b] }
            return chain(points[points.startIndex...worst]).dropLast() + chain(points[worst..<points.endIndex])
        }
        let there = chain(loop[0...far])
        let back = chain(ArraySlice(Array(loop[far...]) + [loop[0]]))
        return Array(there.dropLast() + back.dropLast())
    }
}
