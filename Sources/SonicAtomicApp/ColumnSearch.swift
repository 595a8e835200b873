import Foundation
import SonicCore
import Synchronization

/// Finds every atom column on a thread of its own, and reads the lattice from them; the event loop picks up the
/// result when ready.
final class ColumnSearch: Sendable {
    private let found = Mutex<LatticeColumns?>(nil)

    init(_ finder: ColumnFinder, pixelSize: PixelSize?) {
        let thread = Thread { [self] in
            let columns = LatticeColumns(finding: finder, pixelSize: pixelSize)
            found.withLock { $0 = columns }
        }
        thread.name = "columns"
        thread.start()
    }

    /// The columns and their lattice, once found (no columns for an image without a lattice).
    var result: LatticeColumns? { found.withLock { $0 } }
}
