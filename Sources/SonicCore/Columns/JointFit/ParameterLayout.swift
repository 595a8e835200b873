/// Where each of the joint fit's parameters sits in a parameter vector (a step, a gradient, a row of JᵀJ): every
/// column's own parameters in a slot of their own — centre x, centre y, amplitude — one column after another, then
/// the parameters all columns share: the background nodes, then the width.
struct ParameterLayout {
    /// A column's own parameters, in the order they sit in its slot.
    enum Own: Int { case x, y, amplitude }
    static let perColumn = 3

    let columnCount: Int
    let nodeCount: Int

    func slotStart(of column: Int) -> Int { Self.perColumn * column }
    func slot(of column: Int) -> Range<Int> { slotStart(of: column)..<slotStart(of: column + 1) }
    func x(_ column: Int) -> Int { Self.perColumn * column + Own.x.rawValue }
    func y(_ column: Int) -> Int { Self.perColumn * column + Own.y.rawValue }
    func amplitude(_ column: Int) -> Int { Self.perColumn * column + Own.amplitude.rawValue }

    /// How many parameters belong to single columns; the shared ones follow them.
    var columnParameterCount: Int { Self.perColumn * columnCount }
    var firstNode: Int { columnParameterCount }
    func node(_ index: Int) -> Int { firstNode + index }
    var nodes: Range<Int> { firstNode..<width }
    var width: Int { columnParameterCount + nodeCount }
    var count: Int { columnParameterCount + sharedCount }
    /// The shared parameters, counted from the first of them: the nodes, then the width.
    var sharedCount: Int { nodeCount + 1 }
    var sharedWidth: Int { nodeCount }
}
