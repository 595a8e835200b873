import SonicCore
import Synchronization

/// A sweep of a spectrum image shared out among workers: each takes the next of its pieces (tiles,
/// chunks) until none is left, one has failed or the wait was stopped, adds what it reads into sums
/// of its own (`Sums`), and hands them in at the end, where they are added together. Progress counts
/// the pieces.
final class SharedSweep: Sendable {
    /// One worker's sums: a map for each window, and the summed spectrum when it is asked for (empty
    /// otherwise). Used on the worker's thread alone.
    final class Sums {
        let maps: [UnsafeMutableBufferPointer<Double>]
        let summed: UnsafeMutableBufferPointer<Double>

        fileprivate init(windows: Int, pixels: Int, channels: Int) {
            maps = (0..<windows).map { _ in
                let map = UnsafeMutableBufferPointer<Double>.allocate(capacity: pixels)
                map.initialize(repeating: 0)
                return map
            }
            summed = .allocate(capacity: channels)
            summed.initialize(repeating: 0)
        }

        deinit {
            for map in maps { map.deallocate() }
            summed.deallocate()
        }
    }

    private let pieces: Int
    private let windows: Int
    private let pixels: Int
    private let channels: Int
    private let progress: WorkProgress?
    private let claimed = Atomic(0)
    private let failure = Mutex<ImageFileError?>(nil)
    private let total: Mutex<SpectrumSweep>

    /// `pieces` to go through for `windows` maps of `pixels` each, and the summed spectrum of `channels`
    /// when `summing`.
    init(pieces: Int, windows: Int, pixels: Int, channels: Int, summing: Bool) {
        self.pieces = pieces
        self.windows = windows
        self.pixels = pixels
        self.channels = summing ? channels : 0
        total = Mutex(
            SpectrumSweep(
                maps: (0..<windows).map { _ in [Double](repeating: 0, count: pixels) },
                summed: summing ? [Double](repeating: 0, count: channels) : nil))
        progress = WorkProgress.current
        progress?.begin("reading the spectra", steps: pieces)
    }

    /// A worker's own sums, all zero.
    func sums() -> Sums { Sums(windows: windows, pixels: pixels, channels: channels) }

    /// The next piece for a worker to read, or nil when there is none left or a worker has failed;
    /// throws when the wait was stopped.
    func next() throws(ImageFileError) -> Int? {
        guard failure.withLock({ $0 == nil }) else { return nil }
        let index = claimed.add(1, ordering: .relaxed).oldValue
        guard index < pieces else { return nil }
        if progress?.isStopped == true { throw WorkProgress.stopped }
        return index
    }

    /// A piece has been read.
    func done() { progress?.advance() }

    /// A worker failed: the others stop, and the sweep throws the first failure.
    func fail(_ error: ImageFileError) { failure.withLock { $0 = $0 ?? error } }

    /// Adds a worker's sums to the total, once it has read its last piece.
    func handIn(_ sums: Sums) {
        total.withLock { total in
            for (index, map) in sums.maps.enumerated() {
                for pixel in 0..<pixels { total.maps[index][pixel] += map[pixel] }
            }
            for channel in 0..<channels { total.summed![channel] += sums.summed[channel] }
        }
    }

    /// The maps and summed spectrum once every worker has handed in its sums, or the first failure.
    func result() throws(ImageFileError) -> SpectrumSweep {
        if let error = failure.withLock({ $0 }) { throw error }
        return total.withLock { $0 }
    }
}
