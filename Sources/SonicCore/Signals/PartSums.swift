/// Sums kept apart for each part of a job run on several cores, added up at the end: each part adds into a
/// table of its own, so the parts need no lock.
final class PartSums: @unchecked Sendable {
    let parts: Int
    /// How many sums each table holds.
    let size: Int
    private let tables: UnsafeMutableBufferPointer<Double>

    init(parts: Int, size: Int) {
        self.parts = parts
        self.size = size
        tables = .allocate(capacity: max(1, parts * size))
        tables.initialize(repeating: 0)
    }

    deinit { tables.deallocate() }

    /// Part `part`'s table, for that part alone to add into.
    func table(_ part: Int) -> UnsafeMutablePointer<Double> { tables.baseAddress! + part * size }

    /// Every part's table added up.
    func added() -> [Double] {
        var all = [Double](repeating: 0, count: size)
        for part in 0..<parts {
            for index in 0..<size { all[index] += tables[part * size + index] }
        }
        return all
    }
}
