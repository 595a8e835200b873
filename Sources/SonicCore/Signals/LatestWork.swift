import Dispatch
import Synchronization

/// Work the event loop asks for again and again but needs only the latest of — the spectrum under the moving pen, the
/// map of the energy window last asked for — done on a thread of its own, so the loop, and the sound of every mode,
/// never wait for the file. A request made while another is worked on replaces any still waiting, and only the
/// latest result is kept. A result is kept and the work, when nothing more waits, ends at once: whoever sees the
/// result never sees the work still under way.
public final class LatestWork<Request: Sendable, Result: Sendable>: Sendable {
    private struct State {
        var waiting: Request?
        var working = false
        var finished: Result?

        /// The request to work on next; none ends the work.
        mutating func takeWaiting() -> Request? {
            defer { waiting = nil }
            if waiting == nil { working = false }
            return waiting
        }
    }

    private let work: @Sendable (Request) -> Result
    private let queue: DispatchQueue
    private let state = Mutex(State())

    public init(label: String, _ work: @escaping @Sendable (Request) -> Result) {
        queue = DispatchQueue(label: label)
        self.work = work
    }

    public func submit(_ request: Request) {
        let start = state.withLock { state in
            state.waiting = request
            defer { state.working = true }
            return !state.working
        }
        if start { queue.async { [self] in workWaiting() } }
    }

    /// Whether a request is still being worked on.
    public var isBusy: Bool { state.withLock { $0.working } }

    /// The latest result since the last call, if any.
    public func takeFinished() -> Result? {
        state.withLock { state in
            defer { state.finished = nil }
            return state.finished
        }
    }

    /// Works on requests until none waits.
    private func workWaiting() {
        var request = state.withLock { $0.takeWaiting() }
        while let next = request {
            let result = work(next)
            request = state.withLock { state in
                state.finished = result
                return state.takeWaiting()
            }
        }
    }
}
