import Foundation
import SonicCore
import Synchronization

/// Finds every atom column on a thread of its own, reads the lattice from them and the overview from both; the event
/// loop picks up the result when ready. One search runs at a time: stepping through a stack's frames, the search of a
/// frame stepped past before its turn came is not begun.
final class ColumnSearch: Sendable {
    /// The columns and their lattice (no columns for an image without a lattice), and the image at a glance.
    struct Found: Sendable {
        let lattice: LatticeColumns
        let overview: ImageOverview
    }

    private static let queue = DispatchQueue(label: "columns")
    private let found = Mutex<Found?>(nil)
    /// The overview with the stack's sentence added, once worked out, until taken.
    private let completed = Mutex<ImageOverview?>(nil)
    private let abandoned = Atomic<Bool>(false)
    /// How far the search has got, for "where am I" while it runs.
    let progress = WorkProgress()

    /// `stack`: the changes across a stack's frames, which the overview's summary then ends with. They take every
    /// frame to work out, so the columns are handed over first and the overview with the sentence after.
    init(_ finder: ColumnFinder, pixelSize: PixelSize?, reciprocalPerPixel: Double?, stack: StackSentence? = nil) {
        Self.queue.async { [self] in
            guard !abandoned.load(ordering: .acquiring) else { return }
            let overview = WorkProgress.$current.withValue(progress) {
                let columns = LatticeColumns(finding: finder, pixelSize: pixelSize)
                let overview = ImageOverview(finder: finder, columns: columns, reciprocalPerPixel: reciprocalPerPixel)
                found.withLock { $0 = Found(lattice: columns, overview: overview) }
                return overview
            }
            guard let stack, !abandoned.load(ordering: .acquiring), let sentence = stack.sentence else { return }
            completed.withLock { $0 = overview.adding(summary: sentence) }
        }
    }

    /// Another image plays: this search is not begun if it has not been, and its result is no longer wanted.
    func abandon() { abandoned.store(true, ordering: .releasing) }

    /// What was found, once it is.
    var result: Found? { found.withLock { $0 } }

    /// The overview that ends with the stack's sentence, once, when it has been worked out.
    func takeCompletedOverview() -> ImageOverview? { completed.withLock { $0.take() } }
}

/// What changes across a stack's frames, said after the summary of each frame's overview: worked out once, on the
/// search's thread, when the first frame's columns have been handed over.
final class StackSentence: Sendable {
    private let stack: FrameStack
    private let pixelSize: PixelSize?
    private let said = Mutex<String??>(nil)

    init(_ stack: FrameStack, pixelSize: PixelSize?) {
        self.stack = stack
        self.pixelSize = pixelSize
    }

    /// The sentence; nil where nothing is seen to change, or the frames cannot be compared.
    var sentence: String? {
        if let known = said.withLock({ $0 }) { return known }
        let changes = StackChanges(frames: (0..<stack.count).compactMap { try? stack.frame($0) })
        let sentence = changes.map { Phrases.stackChanges($0, pixelSize: pixelSize) }
        said.withLock { $0 = sentence }
        return sentence
    }
}
