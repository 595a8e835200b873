import Foundation
import SonicCore
import Synchronization

/// Finds every atom column on a thread of its own, reads the lattice from them and the overview from both; the event
/// loop picks up the result when ready.
final class ColumnSearch: Sendable {
    /// The columns and their lattice (no columns for an image without a lattice), and the image at a glance.
    struct Found: Sendable {
        let lattice: LatticeColumns
        let overview: ImageOverview
    }

    private let found = Mutex<Found?>(nil)

    init(_ finder: ColumnFinder, pixelSize: PixelSize?) {
        let thread = Thread { [self] in
            let columns = LatticeColumns(finding: finder, pixelSize: pixelSize)
            let overview = ImageOverview(finder: finder, columns: columns)
            found.withLock { $0 = Found(lattice: columns, overview: overview) }
        }
        thread.name = "columns"
        thread.start()
    }

    /// What was found, once it is.
    var result: Found? { found.withLock { $0 } }
}
