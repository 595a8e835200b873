import Dispatch
import SonicCore
import Synchronization

/// Snaps taps to atom columns on a thread of its own, one after another in the order tapped, so
/// the event loop — and the tone under the pen — never waits for a fit.
final class SnapQueue: Sendable {
    typealias Snap = (request: SnapRequest, column: ImagePoint?)

    /// What finds the columns of the image played now.
    private let snapper: Mutex<any ColumnSnapping>
    private let queue = DispatchQueue(label: "snap")
    private let finished = Mutex<[Snap]>([])
    private let unfinished = Atomic<Int>(0)

    init(_ snapper: any ColumnSnapping) { self.snapper = Mutex(snapper) }

    /// Another image plays (a stack's frame): taps from now on snap to its columns.
    func use(_ snapper: any ColumnSnapping) { self.snapper.withLock { $0 = snapper } }

    func submit(_ request: SnapRequest) {
        unfinished.add(1, ordering: .sequentiallyConsistent)
        queue.async { [self] in
            let column = request.column(by: snapper.withLock { $0 })
            finished.withLock { $0.append((request, column)) }
            unfinished.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Whether a snap is still being worked on.
    var isBusy: Bool { unfinished.load(ordering: .sequentiallyConsistent) > 0 }

    /// The snaps done since the last call, in the order they were asked for.
    func takeFinished() -> [Snap] {
        finished.withLock { snaps in
            defer { snaps.removeAll() }
            return snaps
        }
    }

    /// Waits for every snap asked for, then takes them.
    func drain() -> [Snap] {
        queue.sync {}
        return takeFinished()
    }
}
