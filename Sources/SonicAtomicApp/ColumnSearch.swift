import Foundation
import SonicCore
import Synchronization

/// Finds every atom column on a thread of its own; the event loop picks up the result when ready.
final class ColumnSearch: Sendable {
    private let found = Mutex<[ImagePoint]?>(nil)

    init(_ finder: ColumnFinder) {
        let thread = Thread { [self] in
            let columns = finder.spacing == nil ? [] : finder.findAll().map { ImagePoint(x: $0.x, y: $0.y) }
            found.withLock { $0 = columns }
        }
        thread.name = "columns"
        thread.start()
    }

    /// The columns, once found (empty for an image without a lattice).
    var result: [ImagePoint]? { found.withLock { $0 } }
}
