import Testing

@testable import SonicCore

/// The written forms of announcements on a braille display.
@Suite struct BrailleTextTests {
    @Test func valuesComeFirstAndUnitsAreShort() {
        let tag = Phrases.tagPlaced(
            3, at: Phrases.point(ImagePoint(x: 97.8, y: 92.9), level: 1, precise: true), missedColumn: false)
        #expect(BrailleText.compact(tag) == "Tag 3 x 97.8 y 92.9 100%")
        #expect(
            BrailleText.compact("Unit cell: a 390.5 picometres, b 391.2 picometres, gamma 89.7 degrees.")
                == "Cell a 390.5pm b 391.2pm γ 89.7°")
        #expect(
            BrailleText.compact("Unit cell: a 24.0 pixels, b 24.0 pixels, gamma 90.0 degrees.")
                == "Cell a 24.0px b 24.0px γ 90.0°")
        #expect(BrailleText.compact("x 512, y 300, intensity 82 percent, cell 2, 3") == "x 512 y 300 82% cell 2 3")
        #expect(BrailleText.compact("Frame 3 of 12, 1.5 seconds.") == "Frame 3 of 12 1.5s")
        #expect(BrailleText.compact("Frame 1 of 2, 1 second.") == "Frame 1 of 2 1s")
        #expect(BrailleText.compact("Mode 1, intensity pitch.") == "Mode 1 intensity pitch")
        #expect(
            BrailleText.compact("Window 4.36 to 4.66 kilo electron volts, titanium K alpha.")
                == "Window 4.36 to 4.66keV titanium K alpha")
    }

    @Test func wordsThatAreNotUnitsStay() {
        // "percent" only after a number; "seconds" in a word is not a unit.
        #expect(BrailleText.compact("The percentage of secondsworth.") == "The percentage of secondsworth")
        #expect(BrailleText.compact("Goodbye.") == "Goodbye")
        #expect(BrailleText.compact("") == "")
    }
}

/// The text line: panning, the history, the status line, routing keys and a message arriving while reading.
@Suite struct BrailleLineTests {
    static let line40 = BrailleSize(columns: 40, rows: 1)

    static func line(_ texts: [String], messageSeconds: Double = 10) -> BrailleLine {
        var line = BrailleLine(messageSeconds: messageSeconds, showsStatus: true)
        for (k, text) in texts.enumerated() { line.add(BrailleMessage(text), at: Double(k)) }
        return line
    }

    @Test func longTextBreaksAtSpacesAndAWordLongerThanTheLineIsCut() {
        #expect(BrailleLine.lines("one two three", width: 8) == ["one two", "three"])
        #expect(BrailleLine.lines("abcdefghij k", width: 4) == ["abcd", "efgh", "ij k"])
        #expect(BrailleLine.lines("", width: 4) == [""])
        #expect(BrailleLine.lines("a  b", width: 1) == ["a", "b"])
    }

    @Test func panKeysWalkALongMessageThenTheNeighbouringMessages() {
        let long = (1...12).map { "word\($0)" }.joined(separator: " ") // 76 characters
        var line = Self.line(["first", long])
        let size = Self.line40
        #expect(line.rows(size, status: "S", at: 2) == ["word1 word2 word3 word4 word5 word6"])
        #expect(line.press(.panRight, size: size, at: 2) == nil)
        #expect(line.rows(size, status: "S", at: 2) == ["word7 word8 word9 word10 word11 word12"])
        // At the end of the newest, panning right stays.
        _ = line.press(.panRight, size: size, at: 2)
        #expect(line.rows(size, status: "S", at: 2) == ["word7 word8 word9 word10 word11 word12"])
        _ = line.press(.panLeft, size: size, at: 2)
        _ = line.press(.panLeft, size: size, at: 2)
        #expect(line.rows(size, status: "S", at: 2) == ["first"])
        _ = line.press(.panRight, size: size, at: 2)
        #expect(line.rows(size, status: "S", at: 2) == ["word1 word2 word3 word4 word5 word6"])
    }

    @Test func lineKeysWalkTheHistoryAndBelowTheNewestIsTheStatusLine() {
        var line = Self.line(["one", "two", "three"])
        let size = Self.line40
        _ = line.press(.lineUp, size: size, at: 3)
        #expect(line.rows(size, status: "M1", at: 3) == ["two"])
        _ = line.press(.top, size: size, at: 3)
        #expect(line.rows(size, status: "M1", at: 3) == ["one"])
        _ = line.press(.lineUp, size: size, at: 3)
        #expect(line.rows(size, status: "M1", at: 3) == ["one"])
        _ = line.press(.lineDown, size: size, at: 3)
        _ = line.press(.lineDown, size: size, at: 3)
        #expect(line.rows(size, status: "M1", at: 3) == ["three"])
        _ = line.press(.lineDown, size: size, at: 3)
        #expect(line.rows(size, status: "M1 x 3", at: 3) == ["M1 x 3"])
        _ = line.press(.lineUp, size: size, at: 3)
        #expect(line.rows(size, status: "M1", at: 3) == ["three"])
    }

    @Test func theStatusLineTakesOverWhenNothingNewIsSaid() {
        var line = Self.line(["one"], messageSeconds: 5)
        let size = Self.line40
        #expect(line.rows(size, status: "M1", at: 4.9) == ["one"])
        #expect(line.rows(size, status: "M1", at: 5.1) == ["M1"])
        // A key holds the message as long again.
        _ = line.press(.lineUp, size: size, at: 5.2)
        #expect(line.rows(size, status: "M1", at: 10) == ["one"])
        #expect(BrailleLine(messageSeconds: 5, showsStatus: true).rows(size, status: "M2", at: 0) == ["M2"])
        var kept = Self.line(["one"], messageSeconds: 0)
        #expect(kept.rows(size, status: "M1", at: 1000) == ["one"])
        kept.showsStatus = false
        #expect(Self.line(["one"], messageSeconds: 5).showsStatusLine(at: 100))
    }

    @Test func aMessageArrivingWhileTheUserReadsKeepsTheirPlaceAndIsMarked() {
        var line = Self.line(["one", "two"])
        let size = Self.line40
        _ = line.press(.lineUp, size: size, at: 2)
        line.add(BrailleMessage("three"), at: 3)
        #expect(line.unread)
        let rows = line.rows(size, status: "M1", at: 3)
        #expect(rows.count == 1 && rows[0].hasPrefix("one") && rows[0].last == BrailleLine.unreadMark)
        #expect(rows[0].count == 40)
        _ = line.press(.newest, size: size, at: 3)
        #expect(!line.unread)
        #expect(line.rows(size, status: "M1", at: 3) == ["three"])
        // Not reading: the newest shows at once.
        line.add(BrailleMessage("four"), at: 4)
        #expect(line.rows(size, status: "M1", at: 4) == ["four"])
        #expect(!line.unread)
    }

    @Test func aMessageThatFollowsTheNewestIsWrittenOnAfterIt() {
        var line = Self.line(["Hello."])
        line.add(
            BrailleMessage("Tag 1", targets: [BrailleTarget(characters: 0..<5, action: .guideToTag(1))]),
            continuing: true, at: 1)
        #expect(line.history.count == 1)
        #expect(line.history[0].text == "Hello. Tag 1")
        #expect(line.history[0].targets == [BrailleTarget(characters: 7..<12, action: .guideToTag(1))])
    }

    @Test func aRoutingKeyActsOnTheTargetUnderItsCell() {
        var line = BrailleLine(messageSeconds: 10, showsStatus: true)
        let text = "2 tags. Tag 1 x 10 y 20 50%. Tag 2 x 30 y 40 60%."
        let targets = [
            BrailleTarget(characters: 8..<28, action: .guideToTag(1)),
            BrailleTarget(characters: 29..<49, action: .guideToTag(2))
        ]
        line.add(BrailleMessage(text, targets: targets), at: 0)
        let size = BrailleSize(columns: 20, rows: 1)
        #expect(line.press(.route(3), size: size, at: 1) == nil)
        #expect(line.press(.route(9), size: size, at: 1) == .guideToTag(1))
        _ = line.press(.panRight, size: size, at: 1)
        #expect(line.rows(size, status: "", at: 1) == ["20 50%. Tag 2 x 30 y"])
        #expect(line.press(.route(3), size: size, at: 1) == .guideToTag(1))
        #expect(line.press(.route(8), size: size, at: 1) == .guideToTag(2))
        #expect(line.press(.route(19), size: size, at: 1) == .guideToTag(2))
        #expect(line.press(.route(-1), size: size, at: 1) == nil)
        #expect(line.press(.route(500), size: size, at: 1) == nil)
    }

    /// On a multi-line display a list of tags is a table, one tag a line with its columns aligned, routed by line;
    /// on a single line it is the text.
    @Test func aListOfTagsIsATableOnAMultiLineDisplay() {
        let text = "2 tags. Tag 1 x 100.0 y 120.0 33%. Tag 2 x 250.5 y 60.3 41%. Cell a 24.0px b 24.0px γ 90.0°"
        let targets = [
            BrailleTarget(characters: 8..<35, action: .guideToTag(1)),
            BrailleTarget(characters: 35..<characters(text), action: .guideToTag(2))
        ]
        let table = BrailleTable.tags(text, targets: targets)
        #expect(
            table == [
                BrailleTableRow("2 tags"), BrailleTableRow("Tag 1 x 100.0 y 120.0 33%", action: .guideToTag(1)),
                BrailleTableRow("Tag 2 x 250.5 y  60.3 41%", action: .guideToTag(2)),
                BrailleTableRow("Cell a 24.0px b 24.0px γ 90.0°")
            ])
        var line = BrailleLine(messageSeconds: 10, showsStatus: true)
        line.add(BrailleMessage(text, targets: targets, table: table), at: 0)
        let size = BrailleSize(columns: 30, rows: 3)
        #expect(
            line.rows(size, status: "", at: 0) == ["2 tags", "Tag 1 x 100.0 y 120.0 33%", "Tag 2 x 250.5 y  60.3 41%"])
        #expect(line.press(.route(3), size: size, at: 0) == nil)
        #expect(line.press(.route(35), size: size, at: 0) == .guideToTag(1))
        #expect(line.press(.route(62), size: size, at: 0) == .guideToTag(2))
        #expect(line.press(.route(29), size: size, at: 0) == nil)
        _ = line.press(.panRight, size: size, at: 0)
        #expect(line.rows(size, status: "", at: 0) == ["Cell a 24.0px b 24.0px γ 90.0°"])
        #expect(BrailleLine.lines(text, width: 40).first == "2 tags. Tag 1 x 100.0 y 120.0 33%. Tag 2")
        #expect(BrailleTable.tags("Tag 1 x 3", targets: [targets[0]]) == nil)
    }

    private func characters(_ text: String) -> Int { text.count }

    /// The text lines a multi-line display is switched to: each of the overview's details a line, routed to the
    /// feature it names, then the tags as a table; one tag, or none, is a line of its own.
    @Test func theTextLinesShowTheDetailsALineEachAndTheTagsAsATable() {
        let details = [
            BrailleMessage("Square lattice a 24.0px"),
            BrailleMessage(
                "Bright column 1 of 2 upper left",
                targets: [BrailleTarget(characters: 0..<15, action: .guideToFeature(0))])
        ]
        let tags = "2 tags. Tag 1 x 100.0 y 120.0 33%. Tag 2 x 250.5 y 60.3 41%"
        let tagTargets = [
            BrailleTarget(characters: 8..<35, action: .guideToTag(1)),
            BrailleTarget(characters: 35..<characters(tags), action: .guideToTag(2))
        ]
        let sheet = BrailleTable.sheet(details: details, tags: BrailleMessage(tags, targets: tagTargets))
        #expect(
            sheet.table == [
                BrailleTableRow("Square lattice a 24.0px"),
                BrailleTableRow("Bright column 1 of 2 upper left", action: .guideToFeature(0)),
                BrailleTableRow("2 tags"), BrailleTableRow("Tag 1 x 100.0 y 120.0 33%", action: .guideToTag(1)),
                BrailleTableRow("Tag 2 x 250.5 y  60.3 41%", action: .guideToTag(2))
            ])
        // On one line, the same words in a row, each target where its words are.
        #expect(sheet.text == "Square lattice a 24.0px Bright column 1 of 2 upper left " + tags)
        let tag2 = sheet.targets.first { $0.action == .guideToTag(2) }?.characters.lowerBound ?? 0
        #expect(String(Array(sheet.text)[tag2..<(tag2 + 5)]) == "Tag 2")

        var line = BrailleLine(messageSeconds: 10, showsStatus: true)
        line.add(sheet, at: 0)
        let size = BrailleSize(columns: 26, rows: 5)
        #expect(
            line.rows(size, status: "", at: 0) == [
                "Square lattice a 24.0px", "Bright column 1 of 2 upper", "left", "2 tags",
                "Tag 1 x 100.0 y 120.0 33%"
            ])
        #expect(line.press(.route(26 + 3), size: size, at: 0) == .guideToFeature(0))
        _ = line.press(.panRight, size: size, at: 0)
        #expect(line.rows(size, status: "", at: 0) == ["Tag 2 x 250.5 y  60.3 41%"])

        let one = BrailleTable.sheet(
            details: [], tags: BrailleMessage("1 tag. Tag 1 x 3 y 4 5%", targets: [tagTargets[0]]))
        #expect(one.table == [BrailleTableRow("1 tag. Tag 1 x 3 y 4 5%", action: .guideToTag(1))])
    }

    @Test func aMultiLineDisplayShowsAPageOfRows() {
        let long = (1...12).map { "word\($0)" }.joined(separator: " ")
        var line = Self.line([long])
        let size = BrailleSize(columns: 20, rows: 3)
        #expect(line.rows(size, status: "", at: 0) == ["word1 word2 word3", "word4 word5 word6", "word7 word8 word9"])
        _ = line.press(.panRight, size: size, at: 0)
        #expect(line.rows(size, status: "", at: 0) == ["word10 word11 word12"])
        // The second row's fifth cell.
        #expect(line.press(.route(24), size: size, at: 0) == nil)
    }

    /// Whatever keys, sizes and messages arrive, in any order, nothing fails and no row is wider than the display.
    @Test func anySequenceOfKeysSizesAndMessagesIsAnswered() {
        var random = SeededRandom(seed: 41)
        var line = BrailleLine(messageSeconds: 3, showsStatus: true)
        let words = [
            "Tag", "1", "x", "97.8", "γ", "°", "", " ", "averyveryverylongwordthatdoesnotfitanywhere", "\u{28FF}"
        ]
        var time = 0.0
        for _ in 0..<20_000 {
            time += random.unitInterval()
            let size = BrailleSize(
                columns: Int(random.next() % 50) - 5, rows: Int(random.next() % 6) - 1)
            switch random.next() % 4 {
            case 0:
                let text = (0..<Int(random.next() % 30)).map { _ in words[Int(random.next() % UInt64(words.count))] }
                    .joined(separator: " ")
                let lower = Int(random.next() % 40) - 5
                let targets = [
                    BrailleTarget(characters: lower..<(lower + Int(random.next() % 20)), action: .guideToTag(1))
                ]
                line.add(BrailleMessage(text, targets: targets), continuing: random.next() % 3 == 0, at: time)
            default:
                let keys: [BrailleKey] = [
                    .panLeft, .panRight, .lineUp, .lineDown, .top, .newest, .switchView,
                    .route(Int(random.next() % 300) - 50)
                ]
                _ = line.press(keys[Int(random.next() % UInt64(keys.count))], size: size, at: time)
            }
            let rows = line.rows(size, status: "M1 x 3 y 4 50%", at: time)
            #expect(rows.count <= max(0, size.rows))
            #expect(rows.allSatisfy { $0.count <= size.columns })
        }
        #expect(line.history.count <= BrailleLine.kept)
    }

    @Test func damagedSizesAreNoDisplay() {
        #expect(BrailleSize(columns: -3, rows: 1).cells == 0)
        #expect(BrailleSize(columns: 40, rows: 0).cells == 0)
        #expect(BrailleSize(columns: Int(UInt32.max), rows: Int(UInt32.max)).cells == 0)
        #expect(BrailleSize(columns: 40, rows: 1).cells == 40)
    }
}

/// The image as a tactile picture of 8-dot cells.
@Suite struct TactilePictureTests {
    @Test func dotsTakeUnicodeBraillesLayout() {
        #expect(TactilePicture.bit(x: 0, y: 0) == 0x01)
        #expect(TactilePicture.bit(x: 0, y: 3) == 0x40)
        #expect(TactilePicture.bit(x: 1, y: 0) == 0x08)
        #expect(TactilePicture.bit(x: 1, y: 3) == 0x80)
    }

    /// A 60 × 40 image on a 30 × 10 display: one pixel a dot. A bright square at pixels 10–19 across and 8–15 down
    /// raises exactly its dots: cells 5–9 of rows 2 and 3.
    @Test func aBrightSquareRaisesItsDotsAndNothingElse() {
        let size = BrailleSize(columns: 30, rows: 10)
        let picture = TactilePicture(
            width: 60, height: 40,
            level: { p in
                let x = Int(p.x.rounded())
                let y = Int(p.y.rounded())
                return (10..<20).contains(x) && (8..<16).contains(y) ? 1 : 0.1
            }, pen: nil, size: size)
        for row in 0..<10 {
            for column in 0..<30 {
                let expected: UInt8 = (2...3).contains(row) && (5...9).contains(column) ? 0xFF : 0
                #expect(picture.cells[row * 30 + column] == expected, "cell \(column), row \(row)")
            }
        }
        #expect(picture.text.split(separator: "\n").count == 10)
        #expect(picture.text.split(separator: "\n")[2].hasPrefix("\u{2800}\u{2800}\u{2800}\u{2800}\u{2800}\u{28FF}"))
    }

    @Test func anImageWithoutContrastRaisesNothingButThePen() {
        let size = BrailleSize(columns: 30, rows: 10)
        var random = SeededRandom(seed: 7)
        let noise = (0..<(60 * 40)).map { _ in 0.5 + 0.01 * random.gaussian() }
        let flat = TactilePicture(
            width: 60, height: 40,
            level: { p in noise[Int(p.y.rounded()) * 60 + Int(p.x.rounded())] }, pen: nil, size: size)
        #expect(flat.cells.allSatisfy { $0 == 0 })
        // The pen at pixel (31, 21): a ring of 8 dots round dot (31, 21), which stays down.
        let withPen = TactilePicture(
            width: 60, height: 40, level: { _ in 0.5 }, pen: ImagePoint(x: 31, y: 21), size: size)
        var raised: [(Int, Int)] = []
        for y in 0..<40 {
            for x in 0..<60 where withPen.cells[(y / 4) * 30 + x / 2] & TactilePicture.bit(x: x % 2, y: y % 4) != 0 {
                raised.append((x, y))
            }
        }
        #expect(raised.count == 8)
        #expect(raised.allSatisfy { max(abs($0.0 - 31), abs($0.1 - 21)) == 1 })
    }

    /// A feature is a cross of five dots in a cleared square, unlike the pen's ring (whose middle stays down) and the
    /// image's own shapes: a bright blob under the mark is cleared round it.
    @Test func aFeatureIsMarkedWithACrossThePenWithARing() {
        let size = BrailleSize(columns: 30, rows: 10)
        let picture = TactilePicture(
            width: 60, height: 40,
            level: { p in abs(p.x - 10) < 4 && abs(p.y - 10) < 4 ? 1 : 0 }, pen: ImagePoint(x: 40, y: 20),
            marks: [ImagePoint(x: 10, y: 10)], size: size)
        func raised(_ x: Int, _ y: Int) -> Bool {
            picture.cells[(y / 4) * 30 + x / 2] & TactilePicture.bit(x: x % 2, y: y % 4) != 0
        }
        var mark: [(Int, Int)] = []
        var ring: [(Int, Int)] = []
        for y in 0..<40 {
            for x in 0..<60 where raised(x, y) {
                if max(abs(x - 10), abs(y - 10)) <= 2 { mark.append((x - 10, y - 10)) }
                if max(abs(x - 40), abs(y - 20)) <= 2 { ring.append((x - 40, y - 20)) }
            }
        }
        #expect(mark.count == 5 && mark.allSatisfy { abs($0.0) == abs($0.1) })
        #expect(ring.count == 8 && !ring.contains { $0 == (0, 0) })
        // The blob's dots beyond the cleared square stay up.
        #expect(raised(13, 10) && raised(10, 13))
    }

    /// A zoomed view shows only its part, at the dots' finer scale: the bright square's quarter in view fills it.
    @Test func aRegionOfTheImageFillsTheDots() {
        let size = BrailleSize(columns: 30, rows: 10)
        let level = { (p: ImagePoint) -> Double? in
            let x = Int(p.x.rounded())
            let y = Int(p.y.rounded())
            guard (0..<240).contains(x), (0..<160).contains(y) else { return nil }
            return (100..<140).contains(x) && (60..<100).contains(y) ? 1 : 0
        }
        // Pixels 90–149 across and 60–99 down: the square is pixels 100–139, dots 10–49 of 60, rows 0–39 of 40.
        let picture = TactilePicture(
            region: ImageRegion(x: 89.5, y: 59.5, width: 60, height: 40), level: level, pen: ImagePoint(x: 10, y: 10),
            size: size)
        for row in 0..<10 {
            for column in 0..<30 {
                #expect(
                    picture.cells[row * 30 + column] == ((5...24).contains(column) ? 0xFF : 0), "\(column), \(row)")
            }
        }
    }

    /// A wide image keeps its shape: centred, with blank rows above and below.
    @Test func theImageKeepsItsShape() {
        let size = BrailleSize(columns: 30, rows: 10)
        let picture = TactilePicture(width: 120, height: 20, level: { _ in 1 }, pen: nil, size: size)
        // Every level equal: no contrast, nothing raised; a bright half shows where the image lies.
        #expect(picture.cells.allSatisfy { $0 == 0 })
        let half = TactilePicture(
            width: 120, height: 20, level: { $0.x < 60 ? 1 : 0 }, pen: nil, size: size)
        // 120 × 20 pixels over 60 × 40 dots: 2 pixels a dot, 10 dots down, from dot row 15 to 24.
        for row in 0..<10 {
            let raisedInRow = (0..<30).contains { half.cells[row * 30 + $0] != 0 }
            #expect(raisedInRow == (3...6).contains(row), "row \(row)")
        }
        #expect(TactilePicture(width: 0, height: 0, level: { _ in 1 }, pen: nil, size: size).cells.count == 300)
        #expect(
            TactilePicture(width: 10, height: 10, level: { _ in 1 }, pen: nil, size: BrailleSize(columns: 0, rows: 0))
                .cells.isEmpty)
    }
}
