import Testing

@testable import SonicCore

/// The order tags are placed in around the snaps worked out beside the event loop.
@Suite struct TagQueueTests {
    let tap = ImagePoint(x: 33, y: 48), column = ImagePoint(x: 30.2, y: 49.9)

    @Test func tagsAskedForDuringASnapWaitTheirTurn() throws {
        var queue = TagQueue()
        let request = queue.awaitSnap(at: tap, radius: 12)
        #expect(request.point == tap && request.radius == 12)
        #expect(queue.tag(at: ImagePoint(x: 50.2, y: 49.9), snapped: true) == nil, "queued behind the tap")
        #expect(queue.markOrigin() == .waitingTag)
        #expect(
            queue.unplaced == [
                UnplacedTag(point: tap), UnplacedTag(point: ImagePoint(x: 50.2, y: 49.9), makesOrigin: true)
            ])
        #expect(queue.book.tags.isEmpty && queue.waitingCount == 2)
        let placed = queue.snapped(request, to: column)
        #expect(
            placed.map(\.tag) == [
                Tag(id: 1, x: 30.2, y: 49.9, snapped: true), Tag(id: 2, x: 50.2, y: 49.9, snapped: true)
            ])
        #expect(placed.map(\.becameOrigin) == [false, true] && queue.book.cellMarks == [2])
        #expect(queue.unplaced.isEmpty && queue.snapped(request, to: column).isEmpty, "each snap is answered once")
    }

    @Test func snapsFinishingOutOfOrderStillPlaceInOrder() {
        var queue = TagQueue()
        let first = queue.awaitSnap(at: tap, radius: 12)
        let second = queue.awaitSnap(at: ImagePoint(x: 70, y: 50), radius: 12)
        #expect(queue.snapped(second, to: ImagePoint(x: 70.2, y: 49.9)).isEmpty, "the first tap still waits")
        #expect(queue.snapped(first, to: column).map(\.tag.id) == [1, 2])
        #expect(queue.book.tags.map(\.x) == [30.2, 70.2])
    }

    @Test func aTapWithNoColumnNearIsTaggedWhereItLanded() {
        var queue = TagQueue()
        let request = queue.awaitSnap(at: tap, radius: 12)
        let placed = queue.snapped(request, to: nil)
        #expect(placed == [TagQueue.Placed(tag: Tag(id: 1, x: 33, y: 48, snapped: false), missedColumn: true)])
    }

    @Test func undoingOrClearingDropsAWaitingTap() {
        var queue = TagQueue(book: TagBook(tags: [Tag(id: 1, x: 10, y: 10, snapped: true)]))
        let undone = queue.awaitSnap(at: tap, radius: 12)
        #expect(queue.removeLast() == .waitingTag)
        #expect(queue.snapped(undone, to: column).isEmpty && queue.book.tags.count == 1)
        let cleared = queue.awaitSnap(at: tap, radius: 12)
        #expect(queue.clear() == [Tag(id: 1, x: 10, y: 10, snapped: true)])
        #expect(queue.snapped(cleared, to: column).isEmpty && queue.book.tags.isEmpty && queue.unplaced.isEmpty)
        #expect(queue.removeLast() == .nothing && queue.markOrigin() == .nothing)
    }

    @Test func theThirdTagCompletesTheCell() throws {
        var queue = TagQueue()
        let tags = [
            ImagePoint(x: 10, y: 10), ImagePoint(x: 30, y: 10), ImagePoint(x: 10, y: 30), ImagePoint(x: 30, y: 30)
        ]
        .compactMap { queue.tag(at: $0, snapped: true) }
        #expect(tags.map { $0.completedCell != nil } == [false, false, true, false])
        #expect(tags[2].completedCell == queue.book.cell)
        #expect(queue.removeLast() == .tag(Tag(id: 4, x: 30, y: 30, snapped: true)))
        #expect(queue.markOrigin() == .tag(Tag(id: 3, x: 10, y: 30, snapped: true)) && queue.book.cellMarks == [3])
    }

    @Test func everyChangeAndOnlyAChangeIsANewRevision() {
        var queue = TagQueue()
        var revision = queue.revision
        func changed() -> Bool {
            defer { revision = queue.revision }
            return queue.revision != revision
        }
        _ = queue.removeLast()
        _ = queue.markOrigin()
        #expect(!changed())
        let request = queue.awaitSnap(at: tap, radius: 12)
        #expect(changed())
        _ = queue.tag(at: column, snapped: true)
        #expect(changed())
        _ = queue.markOrigin()
        #expect(changed())
        _ = queue.snapped(request, to: column)
        #expect(changed())
        _ = queue.removeLast()
        #expect(changed())
        _ = queue.clear()
        #expect(changed())
    }
}
