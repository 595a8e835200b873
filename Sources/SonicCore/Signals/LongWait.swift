/// Work in the background that the user waits on — an energy window's map, a stack's frame: after
/// `ProgressLines.quietFor` seconds (most waits end sooner) "where am I" tells how far it has got,
/// and when it ends the voice says so. The loop asks `underWay` each turn, and `ended` when the result comes
/// (by then the work is no longer busy, see `LatestWork`).
public final class LongWait {
    /// What is said while the work has not said what it does ("reading a frame").
    private let what: String
    /// How far the work has got, as it tells (see `WorkProgress`).
    public let progress = WorkProgress()
    private var since: Double?

    public init(_ what: String) { self.what = what }

    /// What the work is doing and its share done, once it has been waited on long enough; nil
    /// otherwise.
    public func underWay(busy: Bool, at now: Double) -> (what: String, fraction: Double?)? {
        guard busy else { return nil }
        let since = self.since ?? now
        self.since = since
        guard now - since >= ProgressLines.quietFor else { return nil }
        return progress.now.map { ($0.what, $0.fraction) } ?? (what, nil)
    }

    /// The work's result came: whether it was waited on long enough to say that it is ready.
    public func ended(at now: Double) -> Bool {
        defer { since = nil }
        return since.map { now - $0 >= ProgressLines.quietFor } ?? false
    }
}
