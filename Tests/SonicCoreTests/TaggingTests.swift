import Foundation
import Testing

@testable import SonicCore

@Suite struct UnitCellTests {
    @Test func vectorsLengthsAndAngle() throws {
        let cell = try #require(
            UnitCell(origin: ImagePoint(x: 10, y: 10), a: ImagePoint(x: 34, y: 10), b: ImagePoint(x: 10, y: 40)))
        #expect(cell.lengthA == 24 && cell.lengthB == 30 && abs(cell.gamma - 90) < 1e-12)
        let hexagonal = try #require(
            UnitCell(
                origin: ImagePoint(x: 0, y: 0), a: ImagePoint(x: 20, y: 0),
                b: ImagePoint(x: 10, y: 10 * 3.0.squareRoot())))
        #expect(abs(hexagonal.gamma - 60) < 1e-9 && abs(hexagonal.lengthB - 20) < 1e-9)
        #expect(cell.corners.last == ImagePoint(x: 10, y: 40))
        let f = cell.fractional(ImagePoint(x: 10 + 2 * 24 + 0.5 * 0, y: 10 + 3 * 30))
        #expect(abs(f.u - 2) < 1e-12 && abs(f.v - 3) < 1e-12)
    }

    @Test func degenerateCornersMakeNoCell() {
        let o = ImagePoint(x: 5, y: 5)
        #expect(UnitCell(origin: o, a: o, b: ImagePoint(x: 9, y: 9)) == nil)
        #expect(UnitCell(origin: o, a: ImagePoint(x: 15, y: 5), b: ImagePoint(x: 25, y: 5.5)) == nil)
    }

    @Test func refinementOverManyColumnsBeatsThreeTags() throws {
        // A true lattice a = (23.7, 2.9), b = (−3.1, 24.4); columns off by up to ±0.25 px each.
        var random = SeededRandom(seed: 8)
        let a = ImagePoint(x: 23.7, y: 2.9), b = ImagePoint(x: -3.1, y: 24.4), o = ImagePoint(x: 100.3, y: 120.8)
        var columns: [ImagePoint] = []
        for n in -4...4 {
            for m in -4...4 {
                columns.append(
                    ImagePoint(
                        x: o.x + Double(n) * a.x + Double(m) * b.x + 0.25 * (2 * random.unitInterval() - 1),
                        y: o.y + Double(n) * a.y + Double(m) * b.y + 0.25 * (2 * random.unitInterval() - 1)))
                // A second sublattice at the cell centres must be left out.
                columns.append(
                    ImagePoint(
                        x: o.x + (Double(n) + 0.5) * a.x + (Double(m) + 0.5) * b.x,
                        y: o.y + (Double(n) + 0.5) * a.y + (Double(m) + 0.5) * b.y))
            }
        }
        // Tags that are each 0.25 px off.
        let tagged = try #require(
            UnitCell(
                origin: ImagePoint(x: o.x + 0.25, y: o.y - 0.25),
                a: ImagePoint(x: o.x + a.x - 0.25, y: o.y + a.y + 0.25),
                b: ImagePoint(x: o.x + b.x + 0.25, y: o.y + b.y + 0.25)))
        let truth = try #require(
            UnitCell(origin: o, a: ImagePoint(x: o.x + a.x, y: o.y + a.y), b: ImagePoint(x: o.x + b.x, y: o.y + b.y)))
        let refined = tagged.refined(with: columns)
        #expect(abs(refined.lengthA / truth.lengthA - 1) < 0.001 && abs(refined.lengthB / truth.lengthB - 1) < 0.001)
        #expect(abs(refined.gamma - truth.gamma) < 0.1)
        #expect(abs(tagged.lengthA / truth.lengthA - 1) > 0.005) // the three tags alone were worse
    }

    @Test func spokenInPixelsOrPicometres() throws {
        let cell = try #require(
            UnitCell(origin: ImagePoint(x: 0, y: 0), a: ImagePoint(x: 24.12, y: 0), b: ImagePoint(x: 0.5, y: 24.3)))
        #expect(
            Phrases.unitCell(cell, pixelSize: nil) == "Unit cell: a 24.1 pixels, b 24.3 pixels, gamma 88.8 degrees.")
        #expect(
            Phrases.unitCell(cell, pixelSize: PixelSize("9.33pm"))
                == "Unit cell: a 225.0 picometres, b 226.8 picometres, gamma 88.8 degrees.")
    }

    @Test func pixelSizesReadAnyCommonUnit() {
        #expect(PixelSize("9.33pm")?.picometres == 9.33)
        #expect(abs(PixelSize("0.933 nm")!.picometres - 933) < 1e-9)
        #expect(abs(PixelSize("0.0933Å")!.picometres - 9.33) < 1e-9 && PixelSize("0.1A")?.picometres == 10)
        #expect(
            PixelSize("9.33") == nil && PixelSize("-1pm") == nil && PixelSize("pm") == nil && PixelSize("0nm") == nil)
    }
}

@Suite struct TagBookTests {
    @Test func theFirstThreeTagsAreTheCellUnlessAnOriginIsMarked() {
        var book = TagBook()
        book.add(x: 0, y: 0, snapped: true)
        book.add(x: 20, y: 0, snapped: true)
        #expect(book.cell == nil)
        book.add(x: 0, y: 20, snapped: true)
        #expect(book.cell?.lengthA == 20)
        book.add(x: 40, y: 40, snapped: false)
        #expect(book.markLastAsOrigin()?.id == 4)
        #expect(book.cell == nil) // waiting for the new origin's neighbours
        book.add(x: 65, y: 40, snapped: true)
        book.add(x: 40, y: 70, snapped: true)
        #expect(book.cellMarks == [4, 5, 6] && book.cell?.lengthA == 25 && book.cell?.lengthB == 30)
        #expect(book.removeLast()?.id == 6 && book.cell == nil && book.cellMarks == [4, 5])
        book.clear()
        #expect(book.tags.isEmpty && book.cellMarks == nil && book.add(x: 1, y: 1, snapped: false).id == 1)
    }

    @Test func marksOfMissingTagsAreDropped() {
        let book = TagBook(tags: [Tag(id: 1, x: 0, y: 0), Tag(id: 2, x: 9, y: 0)], cellMarks: [2, 7, 1])
        #expect(book.cellMarks == [2, 1])
    }
}

@Suite struct TaggingControllerTests {
    /// Columns every 20 px on a square lattice starting at (10, 10); snaps within the radius.
    struct Grid: ColumnSnapping {
        var spacing: Double? { 20 }
        func columnCentre(nearX x: Double, y: Double, radius: Double) -> ImagePoint? {
            let cx = ((x - 10) / 20).rounded() * 20 + 10.2, cy = ((y - 10) / 20).rounded() * 20 + 9.9
            return hypot(cx - x, cy - y) <= radius ? ImagePoint(x: cx, y: cy) : nil
        }
    }

    /// Intensity rises left to right: pixel column x holds 600·x; the stretch runs 0 … 59400.
    func make(tags: TagBook = TagBook()) -> (SessionController, SynthControls) {
        let player = TestPlayer(
            GrayImage(width: 100, height: 100, bitDepth: 16, samples: (0..<10_000).map { UInt16($0 % 100 * 600) }))
        let controller = SessionController(
            sound: player.sound, opened: OpenedImage(fileName: "grid.png"), tags: tags, columnSpacing: Grid().spacing)
        _ = controller.handle(key: "4", at: 0)
        return (controller, player.controls)
    }

    /// The pen's tip down and up at (x, y): what the controller asks for, snaps not yet done.
    func penTap(_ c: SessionController, x: Double, y: Double, at t: Double) -> [ControllerOutput] {
        var tip = PenButtons()
        tip.insert(1)
        _ = c.handle(
            PenEvent(
                time: t, rootX: x + 0.5, rootY: y + 0.5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true
            ))
        return c.handle(
            PenEvent(
                time: t + 0.05, rootX: x + 0.5, rootY: y + 0.5, pressure: 0, tiltX: 0, tiltY: 0,
                buttons: PenButtons(), inWindow: true))
    }

    func tap(_ c: SessionController, x: Double, y: Double, at t: Double) -> [ControllerOutput] {
        // The snap, done as the program does it, away from the controller.
        penTap(c, x: x, y: y, at: t).flatMap { output -> [ControllerOutput] in
            guard case .snap(let request) = output else { return [output] }
            return c.snapped(request, to: request.column(by: Grid()))
        }
    }

    func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    @Test func tapsSnapToColumnsAndTheThirdTagGivesTheCell() {
        let (c, _) = make()
        #expect(speech(tap(c, x: 33, y: 48, at: 1)) == ["Tag 1 at x 30.2, y 49.9, intensity 30 percent."])
        // 12 px from any column: beyond 0.6 × 20.
        let far = tap(c, x: 40, y: 60, at: 2)
        #expect(speech(far) == ["Tag 2 at x 40, y 60, intensity 40 percent, not snapped: no atom column nearby."])
        #expect(far.contains(.save(c.tagSnapshot)))
        _ = c.handle(key: "BackSpace", at: 3)
        _ = tap(c, x: 49, y: 52, at: 4)
        let third = tap(c, x: 31, y: 71, at: 5)
        #expect(
            speech(third) == [
                "Tag 3 at x 30.2, y 69.9, intensity 30 percent. Unit cell: a 20.0 pixels, b 20.0 pixels, gamma 90.0 degrees."
            ])
        #expect(c.overlay.cell.count == 4 && c.overlay.marks.count == 3)
    }

    /// The snap requests a tap gives, not yet answered.
    func tapAwaitingSnap(_ c: SessionController, x: Double, y: Double, at t: Double) -> [SnapRequest] {
        let lifted = penTap(c, x: x, y: y, at: t)
        #expect(speech(lifted).isEmpty, "nothing is said until the snap is done")
        return lifted.compactMap { if case .snap(let request) = $0 { request } else { nil } }
    }

    @Test func aTapAsksForASnapAndIsTaggedWhenTheSnapIsDone() throws {
        let (c, _) = make()
        let requests = tapAwaitingSnap(c, x: 33, y: 48, at: 1)
        // Within 0.6 spacings of the tap; nothing tagged until the snap is done.
        #expect(requests.map(\.point) == [ImagePoint(x: 33, y: 48)] && requests.map(\.radius) == [12])
        #expect(c.book.tags.isEmpty)
        let done = c.snapped(requests[0], to: ImagePoint(x: 30.2, y: 49.9))
        #expect(
            speech(done) == ["Tag 1 at x 30.2, y 49.9, intensity 30 percent."] && done.contains(.save(c.tagSnapshot)))
        #expect(c.snapped(requests[0], to: nil).isEmpty, "each snap is answered once")
        let second = try #require(tapAwaitingSnap(c, x: 40, y: 60, at: 2).first)
        #expect(
            speech(c.snapped(second, to: nil)) == [
                "Tag 2 at x 40, y 60, intensity 40 percent, not snapped: no atom column nearby."
            ])
    }

    @Test func tagsAskedForWhileASnapRunsWaitTheirTurnAndCanBeUndone() throws {
        let (c, _) = make()
        _ = tap(c, x: 30, y: 50, at: 1)
        // Backspace before the snap is done undoes that tap, not tag 1.
        let undone = try #require(tapAwaitingSnap(c, x: 50, y: 50, at: 2).first)
        #expect(speech(c.handle(key: "BackSpace", at: 2.1)) == ["Removed the tag being placed."])
        #expect(c.snapped(undone, to: ImagePoint(x: 50.2, y: 49.9)).isEmpty)
        #expect(c.book.tags.map(\.id) == [1] && c.book.tags[0].x == 30.2)

        // A tap, then Enter on the column cursor, then O: tagged in that order, the second one the origin.
        let waiting = try #require(tapAwaitingSnap(c, x: 50, y: 50, at: 3).first)
        _ = c.setColumns(
            (0..<5).flatMap { i in (0..<5).map { j in ImagePoint(x: 10.2 + Double(i) * 20, y: 9.9 + Double(j) * 20) } })
        _ = c.handle(key: "Right", at: 3.1)
        let cursor = try #require(c.cursor)
        #expect(c.handle(key: "Enter", at: 3.2) == [.save(c.tagSnapshot)] && c.book.tags.count == 1)
        #expect(speech(c.handle(key: "O", at: 3.3)) == ["The tag being placed will be the unit cell's origin."])
        #expect(speech(c.handle(key: "L", at: 3.4)).first?.hasSuffix("2 tags still being placed.") == true)
        let placed = c.snapped(waiting, to: ImagePoint(x: 50.2, y: 49.9))
        #expect(c.book.tags.map(\.point) == [ImagePoint(x: 30.2, y: 49.9), ImagePoint(x: 50.2, y: 49.9), cursor])
        #expect(c.book.cellMarks == [3])
        #expect(speech(placed).count == 1, "one announcement, so no part cuts off another")
        #expect(speech(placed).first?.hasPrefix("Tag 2 at x 50.2, y 49.9") == true)
        #expect(
            speech(placed).first?.hasSuffix("Tag 3 is the unit cell's origin. Tag its two neighbours next.") == true)

        // Clearing takes the waiting taps too.
        let cleared = try #require(tapAwaitingSnap(c, x: 30, y: 70, at: 4).first)
        #expect(speech(c.handle(key: "C", at: 4.1)) == ["Clear all 4 tags? Press C again to confirm."])
        _ = c.handle(key: "C", at: 4.2)
        #expect(c.snapped(cleared, to: ImagePoint(x: 30.2, y: 69.9)).isEmpty && c.book.tags.isEmpty)
    }

    @Test func tagsBeingPlacedAreSavedWithEveryChange() throws {
        let (c, _) = make()
        let tapped = penTap(c, x: 33, y: 48, at: 1)
        #expect(tapped.contains(.save(c.tagSnapshot)), "a tap being snapped is saved at once")
        let request = try #require(tapped.compactMap { if case .snap(let r) = $0 { r } else { nil } }.first)
        _ = c.setColumns([ImagePoint(x: 50.2, y: 49.9)])
        _ = c.handle(key: "Right", at: 1.1)
        #expect(c.handle(key: "Enter", at: 1.2).contains(.save(c.tagSnapshot)))
        #expect(c.handle(key: "O", at: 1.3).contains(.save(c.tagSnapshot)))
        #expect(
            c.unplacedTags == [
                UnplacedTag(point: ImagePoint(x: 33, y: 48)),
                UnplacedTag(point: ImagePoint(x: 50.2, y: 49.9), makesOrigin: true)
            ])
        #expect(c.handle(key: "BackSpace", at: 1.4).contains(.save(c.tagSnapshot)))
        #expect(c.unplacedTags == [UnplacedTag(point: ImagePoint(x: 33, y: 48))])
        #expect(
            c.snapped(request, to: ImagePoint(x: 30.2, y: 49.9)).contains(.save(c.tagSnapshot))
                && c.unplacedTags.isEmpty)
    }

    @Test func aFailedSaveIsAnnouncedAndCanBeHeardAgain() {
        let (c, _) = make()
        #expect(speech(c.saveFailed()) == ["Warning: the tags could not be saved."])
        #expect(speech(c.handle(key: "R", at: 1)) == ["Warning: the tags could not be saved."])
    }

    @Test func tagsSavedUnplacedAreSnappedInTheirOrder() {
        var book = TagBook(tags: [Tag(id: 1, x: 10.2, y: 9.9, snapped: true)])
        let placed = book.place(
            [
                UnplacedTag(point: ImagePoint(x: 33, y: 48)),
                UnplacedTag(point: ImagePoint(x: 40, y: 60), makesOrigin: true)
            ],
            snapRadius: 0.6, by: Grid())
        #expect(placed == [Tag(id: 2, x: 30.2, y: 49.9, snapped: true), Tag(id: 3, x: 40, y: 60, snapped: false)])
        #expect(book.tags.count == 3 && book.cellMarks == [3])
    }

    @Test func listClearAndMarkOrigin() {
        let (c, _) = make()
        #expect(speech(c.handle(key: "L", at: 0)) == ["No tags."])
        _ = tap(c, x: 30, y: 50, at: 1)
        _ = tap(c, x: 50, y: 50, at: 2)
        #expect(
            speech(c.handle(key: "L", at: 3)) == [
                "2 tags. Tag 1 at x 30.2, y 49.9, intensity 30 percent. Tag 2 at x 50.2, y 49.9, intensity 51 percent."
            ])
        #expect(speech(c.handle(key: "O", at: 4)) == ["Tag 2 is the unit cell's origin. Tag its two neighbours next."])
        // C asks first; a second C within five seconds clears; a late one asks again.
        #expect(speech(c.handle(key: "C", at: 5)) == ["Clear all 2 tags? Press C again to confirm."])
        _ = c.poll(at: 11)
        #expect(speech(c.handle(key: "C", at: 11)) == ["Clear all 2 tags? Press C again to confirm."])
        let cleared = c.handle(key: "C", at: 12)
        #expect(speech(cleared) == ["Cleared 2 tags."] && c.book.tags.isEmpty)
        #expect(cleared.filter { if case .tagRemoved = $0 { true } else { false } }.count == 2)
        #expect(speech(c.handle(key: "C", at: 13)) == ["No tags to clear."])
    }

    @Test func savedTagsAreAnnouncedAtStart() {
        let book = TagBook(tags: [
            Tag(id: 1, x: 10, y: 10, snapped: true), Tag(id: 2, x: 30, y: 10, snapped: true),
            Tag(id: 3, x: 10, y: 30, snapped: true)
        ])
        let (c, _) = make(tags: book)
        #expect(
            speech(c.start()).first?.hasSuffix(
                "3 saved tags loaded. Unit cell: a 20.0 pixels, b 20.0 pixels, gamma 90.0 degrees.") == true)
    }

    @Test func arrowsStepFromColumnToColumnAndEnterTags() {
        let (c, _) = make()
        #expect(speech(c.handle(key: "Right", at: 0)) == ["Still finding the atom columns."])
        _ = c.setColumns(
            (0..<5).flatMap { i in (0..<5).map { j in ImagePoint(x: 10.2 + Double(i) * 20, y: 9.9 + Double(j) * 20) } })
        // No pen yet: the column nearest the centre first, then one step right, the tone following.
        let first = c.handle(key: "Right", at: 1)
        #expect(speech(first) == ["Column at x 50.2, y 49.9, intensity 51 percent."])
        #expect(first.contains(.cursor(ImagePoint(x: 50.2, y: 49.9))))
        #expect(speech(c.handle(key: "Right", at: 1.1)) == ["Column at x 70.2, y 49.9, intensity 71 percent."])
        #expect(speech(c.handle(key: "Up", at: 1.2)) == ["Column at x 70.2, y 29.9, intensity 71 percent."])
        #expect(speech(c.handle(key: "Up", at: 1.3)) == ["Column at x 70.2, y 9.9, intensity 71 percent."])
        #expect(speech(c.handle(key: "Up", at: 1.4)) == ["No column further up."])
        #expect(c.poll(at: 1.5).isEmpty)
        #expect(c.poll(at: 1.9) == [.cursor(nil)]) // the tone stops half a second after the last step
        let tagged = c.handle(key: "Enter", at: 2)
        #expect(speech(tagged) == ["Tag 1 at x 70.2, y 9.9, intensity 71 percent."])
        #expect(c.book.tags.first?.snapped == true)
    }

    /// The pen at image point (x, y), touching or hovering.
    func pen(_ c: SessionController, _ x: Double, _ y: Double, touching: Bool, at t: Double) -> [ControllerOutput] {
        var buttons = PenButtons()
        if touching { buttons.insert(1) }
        return c.handle(
            PenEvent(
                time: t, rootX: x + 0.5, rootY: y + 0.5, pressure: touching ? 0.5 : 0, tiltX: 0, tiltY: 0,
                buttons: buttons, inWindow: true))
    }

    @Test func theTouchingPenTicksOnceAtEachCellBoundaryItCrosses() throws {
        let (c, controls) = make()
        _ = tap(c, x: 30, y: 50, at: 1)
        _ = tap(c, x: 50, y: 50, at: 2)
        let third = tap(c, x: 30, y: 70, at: 3)
        let cell = try #require(c.unitCell)
        #expect(third.contains(.cell(cell, ticks: true)))
        // Where am I names the cell too: counted from the origin's (x 30.2, y 49.9), 20 pixels a side.
        _ = pen(c, 75, 20, touching: false, at: 3.5)
        #expect(
            speech(c.handle(key: "Space", at: 3.6)) == [
                "x 75, y 20, intensity 76 percent, cell 2 along a, minus 2 along b"
            ])
        // A stroke from x 35 to 95 along y 60 crosses the boundaries at x 50.2, 70.2 and 90.2.
        var t = 4.0
        func stroke(_ xs: some Sequence<Double>, y: Double = 60, touching: Bool = true) {
            for x in xs {
                t += 0.01
                _ = pen(c, x, y, touching: touching, at: t)
            }
        }
        stroke(stride(from: 35.0, through: 95, by: 0.5))
        #expect(controls.tickCount == 3)
        // Resting on a boundary, trembling either side of it, ticks once at most.
        stroke([49.9, 50.3, 50.1, 50.4, 50.0, 50.3])
        #expect(controls.tickCount == 4)
        // Hovering ticks nothing; nor does touching down in another cell.
        stroke(stride(from: 50.0, through: 80, by: 0.5), touching: false)
        stroke([80, 80.5])
        #expect(controls.tickCount == 4)
        // Crossing the b boundaries (y 69.9 and 89.9) counts the same.
        _ = pen(c, 60, 55, touching: false, at: t + 0.01)
        for (k, y) in stride(from: 55.0, through: 95, by: 0.5).enumerated() {
            _ = pen(c, 60, y, touching: true, at: t + 0.02 + Double(k) * 0.01)
        }
        #expect(controls.tickCount == 6)
    }

    @Test func keyTTurnsTheTicksOffAndOn() throws {
        let (c, controls) = make()
        #expect(speech(c.handle(key: "T", at: 0.5)) == ["Cell boundary ticks off."])
        #expect(speech(c.handle(key: "T", at: 0.6)) == ["Cell boundary ticks on, once the unit cell is tagged."])
        for (k, point) in [(30.0, 50.0), (50, 50), (30, 70)].enumerated() {
            _ = tap(c, x: point.0, y: point.1, at: Double(k + 1))
        }
        let cell = try #require(c.unitCell)
        let off = c.handle(key: "T", at: 4)
        #expect(speech(off) == ["Cell boundary ticks off."] && off.contains(.cell(cell, ticks: false)))
        for (k, x) in stride(from: 35.0, through: 95, by: 1).enumerated() {
            _ = pen(c, x, 60, touching: true, at: 5 + Double(k) * 0.01)
        }
        #expect(controls.tickCount == 0)
        let on = c.handle(key: "T", at: 6)
        #expect(speech(on) == ["Cell boundary ticks on."] && on.contains(.cell(cell, ticks: true)))
        for (k, x) in stride(from: 95.0, through: 35, by: -1).enumerated() {
            _ = pen(c, x, 60, touching: true, at: 7 + Double(k) * 0.01)
        }
        #expect(controls.tickCount == 3)
        // The refined cell, once the columns are found, is announced to the log too.
        let columns = (0..<5).flatMap { i in
            (0..<5).map { j in ImagePoint(x: 10.25 + Double(i) * 20, y: 9.95 + Double(j) * 20) }
        }
        let refined = c.setColumns(columns)
        #expect(refined == [.cell(c.unitCell, ticks: true)] && c.unitCell != cell)
    }
}
