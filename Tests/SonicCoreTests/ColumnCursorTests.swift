import Testing

@testable import SonicCore

/// The column cursor's steps from atom column to atom column.
@Suite struct ColumnCursorTests {
    /// A 5 × 5 square lattice, 20 pixels apart, from (10, 10).
    let lattice = (0..<5).flatMap { i in (0..<5).map { j in ImagePoint(x: 10 + Double(i) * 20, y: 10 + Double(j) * 20) }
    }

    @Test func waitsForTheColumnsAndSaysWhenThereAreNone() {
        var cursor = ColumnCursor()
        #expect(cursor.step(.left, from: ImagePoint(x: 0, y: 0), at: 0) == .searching)
        cursor.setColumns([])
        #expect(cursor.step(.left, from: ImagePoint(x: 0, y: 0), at: 0) == .noColumns)
        #expect(cursor.position == nil && cursor.toneEnd == nil)
    }

    @Test func stepsToTheNearestColumnWithinFortyFiveDegrees() {
        var cursor = ColumnCursor()
        cursor.setColumns(lattice)
        // The first step goes to the column nearest the start, whichever way.
        #expect(cursor.step(.up, from: ImagePoint(x: 52, y: 47), at: 1) == .moved(to: ImagePoint(x: 50, y: 50)))
        #expect(cursor.step(.right, from: ImagePoint(x: 0, y: 0), at: 1.1) == .moved(to: ImagePoint(x: 70, y: 50)))
        #expect(cursor.step(.down, from: ImagePoint(x: 0, y: 0), at: 1.2) == .moved(to: ImagePoint(x: 70, y: 70)))
        #expect(cursor.step(.down, from: ImagePoint(x: 0, y: 0), at: 1.3) == .moved(to: ImagePoint(x: 70, y: 90)))
        #expect(cursor.step(.down, from: ImagePoint(x: 0, y: 0), at: 1.4) == .noneFurther)
        #expect(cursor.position == ImagePoint(x: 70, y: 90))
    }

    @Test func theToneSoundsHalfASecondAfterTheLastStep() {
        var cursor = ColumnCursor()
        cursor.setColumns(lattice)
        _ = cursor.step(.left, from: ImagePoint(x: 50, y: 50), at: 2)
        _ = cursor.step(.left, from: ImagePoint(x: 50, y: 50), at: 2.3)
        #expect(cursor.toneEnd == 2.3 + ColumnCursor.toneTime)
        #expect(cursor.toneEnds(by: 2.7) == false)
        #expect(cursor.toneEnds(by: 2.8) == true && cursor.toneEnd == nil)
        #expect(cursor.toneEnds(by: 3) == false)
    }
}
