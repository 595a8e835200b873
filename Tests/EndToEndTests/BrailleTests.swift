import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The braille display, through a real brltty and its Virtual driver, the display the test's own: everything said
    /// shown on a 40-cell line in its written form, panned and routed with the display's keys; the tactile picture on
    /// a 30 × 10 multi-line display following the real pen; brltty killed and restarted mid-session survived; and no
    /// brltty at all played as before.
    @Suite struct BrailleTests {
        /// A copy of the atomic lattice in `folder`, with two tags saved beside it at known places.
        static func taggedLattice(in folder: String) throws -> (image: String, tags: [(x: Double, y: Double)]) {
            let image = folder + "/lattice.png"
            try FileManager.default.copyItem(atPath: Fixtures.repository + "/images/atomic-lattice.png", toPath: image)
            let tags = [(x: 100.0, y: 120.0), (x: 250.5, y: 60.25)]
            let entries = tags.enumerated().map { k, tag in
                "{ \"id\" : \(k + 1), \"snapped\" : false, \"x\" : \(tag.x), \"y\" : \(tag.y) }"
            }
            try """
            { "format" : "sonic-atomic tags", "version" : 1, "image" : "lattice.png", "width" : 384, "height" : 384,
              "tags" : [ \(entries.joined(separator: ", ")) ] }
            """.write(toFile: image + ".tags.json", atomically: true, encoding: .utf8)
            return (image, tags)
        }

        @Test(.enabled(if: Fixtures.hasBrltty, "needs brltty: \(Fixtures.brlttyMissing ?? "")"))
        func announcementsShowOnA40CellLineAndItsPanAndRoutingKeysAreAnswered() throws {
            try withServers("braille-line") { display, sound, folder in
                let braille = try BrailleTestDisplay(columns: 40, rows: 1, logFolder: folder)
                defer { braille.stop() }
                let (image, tags) = try Self.taggedLattice(in: folder)
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder,
                    environment: braille.clientEnvironment)
                defer { session.stop() }
                let viewport = try session.waitUntilShown()

                // The greeting, written compactly, a display's width at a time.
                let greeting = try braille.waitForText("the greeting") { $0.hasPrefix("SonicAtomic. lattice.png") }
                #expect(greeting.count <= 40, "\(greeting)")
                #expect(!greeting.contains(","), "\(greeting)")
                // The pan key shows what follows, up to the mode.
                var seen = braille.texts().count
                try braille.send("FWinRt")
                let next = try braille.waitForText("the greeting's second part", after: seen) { _ in true }
                #expect(next.contains("384px") || next.contains("Mode 1"), "\(next)")

                // Where the pen is, as the user asks: the pixel's place, value first and the level in percent.
                let pixel = (x: 200, y: 150)
                let nib = viewport.screen(Double(pixel.x), Double(pixel.y))
                try display.down(nib.x, nib.y, pressure: 0.5)
                usleep(300_000)
                seen = braille.texts().count
                try display.key("space")
                let place = try braille.waitForText("where the pen is", after: seen) { $0.hasPrefix("x ") }
                try display.up()
                #expect(place.hasPrefix("x \(pixel.x) y \(pixel.y) "), "\(place)")
                #expect(place.contains("%") && !place.contains("percent"), "\(place)")

                // The tags listed; the routing key over tag 2 guides the pen there.
                seen = braille.texts().count
                try display.key("l")
                var list = try braille.waitForText("the tag list", after: seen) { $0.hasPrefix("2 tags") }
                var pans = 0
                while !list.contains("Tag 2") && pans < 5 {
                    seen = braille.texts().count
                    try braille.send("FWinRt")
                    list = try braille.waitForText("the tag list panned", after: seen) { _ in true }
                    pans += 1
                }
                let cell = try #require(
                    list.range(of: "Tag 2").map { list.distance(from: list.startIndex, to: $0.lowerBound) })
                seen = braille.texts().count
                // Within "Tag 2", whether the Virtual driver counts its routing keys from 0 or from 1.
                try braille.send("Route \(cell + 1)")
                let answer = try braille.waitForText("the routing key's answer", after: seen) { $0.hasPrefix("Tag 2") }
                #expect(answer == "Tag 2", "\(answer)")
                let guide = try #require(try session.records(ofType: "guide").last, "no guidance started")
                #expect(abs((guide["ix"] as? Double ?? 0) - tags[1].x) < 1e-6)
                #expect(abs((guide["iy"] as? Double ?? 0) - tags[1].y) < 1e-6)

                // What was shown is logged, as shown.
                let shown = try session.records(ofType: "braille").compactMap { $0["text"] as? String }
                #expect(shown.contains(greeting) && shown.contains(place) && shown.contains(answer))
                #expect(try session.quitWithKey() == 0)
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        /// 320 × 240 `shapes.png` on 60 × 40 dots: 6 pixels a dot, the picture 53⅓ dots wide from dot 3⅓ across.
        static func dot(ofPixel x: Double, _ y: Double) -> (x: Int, y: Int) {
            (Int((x + 0.5) / 6 + 10.0 / 3), Int((y + 0.5) / 6))
        }

        /// The centre of the ring of raised dots round a lowered one — the pen's mark — among `cells` of a 30 × 10
        /// display, where the image around it is dark.
        static func penMark(_ cells: [UInt8], near guess: (x: Int, y: Int)) -> (x: Int, y: Int)? {
            func raised(_ x: Int, _ y: Int) -> Bool {
                guard x >= 0, y >= 0, x < 60, y < 40 else { return false }
                let cell = cells[(y / 4) * 30 + x / 2]
                let bit: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
                return cell & bit[x % 2][y % 4] != 0
            }
            for y in (guess.y - 3)...(guess.y + 3) {
                for x in (guess.x - 3)...(guess.x + 3) where !raised(x, y) {
                    let ring = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
                    if ring.allSatisfy({ raised(x + $0.0, y + $0.1) }) { return (x, y) }
                }
            }
            return nil
        }

        @Test(.enabled(if: Fixtures.hasBrltty, "needs brltty: \(Fixtures.brlttyMissing ?? "")"))
        func aMultiLineDisplayShowsTheImageAsATactilePictureThatFollowsThePen() throws {
            try withServers("braille-picture") { display, sound, folder in
                let braille = try BrailleTestDisplay(columns: 30, rows: 10, logFolder: folder)
                defer { braille.stop() }
                // The shapes, with tags saved on the disc's and the square's centres.
                let image = folder + "/shapes.png"
                try FileManager.default.copyItem(atPath: Fixtures.repository + "/images/shapes.png", toPath: image)
                try """
                { "format" : "sonic-atomic tags", "version" : 1, "image" : "shapes.png", "width" : 320, "height" : 240,
                  "tags" : [ { "id" : 1, "snapped" : false, "x" : 70, "y" : 120 },
                             { "id" : 2, "snapped" : false, "x" : 160, "y" : 120 } ] }
                """.write(toFile: image + ".tags.json", atomically: true, encoding: .utf8)
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder, environment: braille.clientEnvironment
                )
                defer { session.stop() }
                let viewport = try session.waitUntilShown()
                // Before the program writes, brltty shows its own text ("no screen"): the picture comes after.
                try waitFor("the picture to be drawn", timeout: 10) {
                    (try? session.records(ofType: "braille"))?.contains { $0["picture"] is String } == true
                }
                let ownText = braille.cellLines().first
                var first: [UInt8] = []
                try waitFor("the picture on the display", timeout: 5) {
                    first = braille.cellLines().last ?? []
                    return first.count == 300 && first != ownText
                }
                func isRaised(_ cells: [UInt8], _ dot: (x: Int, y: Int)) -> Bool {
                    let bit: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
                    return cells[(dot.y / 4) * 30 + dot.x / 2] & bit[dot.x % 2][dot.y % 4] != 0
                }
                // The white disc (centre (70, 120), radius 40), the gray square (centre (160, 120)) and the light
                // triangle stand up; the black between and around them stays down.
                #expect(isRaised(first, Self.dot(ofPixel: 70, 120)))
                #expect(isRaised(first, Self.dot(ofPixel: 70, 95)))
                #expect(isRaised(first, Self.dot(ofPixel: 250, 154)))
                for black in [(10.0, 10.0), (300, 20), (160, 220), (115, 120), (70, 200)] {
                    #expect(!isRaised(first, Self.dot(ofPixel: black.0, black.1)), "pixel \(black)")
                }

                // The real pen, over the black: its mark follows it.
                for place in [(x: 20.0, y: 30.0), (x: 290.0, y: 215.0)] {
                    let seen = braille.cellLines().count
                    let nib = viewport.screen(place.x, place.y)
                    try display.down(nib.x, nib.y, pressure: 0.3)
                    let expected = Self.dot(ofPixel: place.x, place.y)
                    var mark: (x: Int, y: Int)?
                    try waitFor("the pen's mark near dot \(expected)", timeout: 5) {
                        mark = braille.cellLines().dropFirst(seen).last.flatMap { Self.penMark($0, near: expected) }
                        return mark != nil
                    }
                    try display.up()
                    #expect(abs(mark!.x - expected.x) <= 1 && abs(mark!.y - expected.y) <= 1, "\(mark!) \(expected)")
                }

                // The overview's features, the three shapes, are marked: at the bright disc's centre a cross of
                // dots in a cleared square.
                let disc = Self.dot(ofPixel: 70, 120)
                try waitFor("the disc's mark", timeout: 5) {
                    guard let cells = braille.cellLines().last, cells.count == 300 else { return false }
                    return isRaised(cells, disc) && isRaised(cells, (disc.x + 1, disc.y + 1))
                        && !isRaised(cells, (disc.x + 1, disc.y)) && !isRaised(cells, (disc.x, disc.y - 1))
                        && isRaised(cells, Self.dot(ofPixel: 70, 95))
                }

                // The display-mode key switches to text, which opens on the overview's details, a line each, and
                // the tags as a table, one tag a row, aligned: paged through with the pan key.
                func rows(_ text: String) -> [String] {
                    let cells = Array(text.padding(toLength: 300, withPad: " ", startingAt: 0))
                    return (0..<10).map { String(cells[($0 * 30)..<($0 * 30 + 30)]) }
                }
                // The overview's summary, as D says it.
                func answer(to key: String) throws -> String {
                    let count = try session.spokenTexts().count
                    try display.key(key)
                    try waitFor("the answer to \(key)", timeout: 10) {
                        ((try? session.spokenTexts().count) ?? 0) > count
                    }
                    return try session.spokenTexts().last ?? ""
                }
                let summary = try answer(to: "d")
                var seenTexts = braille.texts().count
                try braille.send("DISPMD")
                var page = try braille.waitForText("text in place of the picture", after: seenTexts) { _ in true }
                var sheet = rows(page)
                var pans = 0
                while !sheet.contains(where: { $0.hasPrefix("Tag 2") }) && pans < 8 {
                    seenTexts = braille.texts().count
                    try braille.send("FWinRt")
                    page = try braille.waitForText("the next page of the text", after: seenTexts) { _ in true }
                    sheet += rows(page)
                    pans += 1
                }
                let lines = sheet.map { String($0.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
                #expect(lines.first.map { BrailleText.compact(summary).hasPrefix($0) } == true, "\(summary) \(lines)")
                let tagsRow = try #require(lines.firstIndex(of: "2 tags"), "\(lines)")
                #expect(lines[tagsRow + 1].hasPrefix("Tag 1 x  70 y 120 "), "\(lines)")
                #expect(lines[tagsRow + 2].hasPrefix("Tag 2 x 160 y 120 "), "\(lines)")

                // Back to the picture; a display resized is drawn again at its size.
                let pictures = try session.records(ofType: "braille").filter { $0["picture"] is String }.count
                try braille.send("DISPMD")
                try waitFor("the picture again", timeout: 5) {
                    ((try? session.records(ofType: "braille")) ?? []).filter { $0["picture"] is String }.count
                        > pictures
                }
                try braille.send("cells 20 5")
                try waitFor("the picture on 20 × 5 cells", timeout: 5) {
                    braille.cellLines().last.map { $0.count == 100 && $0.contains { $0 != 0 } } ?? false
                }
                #expect(try session.records(ofType: "braille").contains { $0["picture"] is String })
                #expect(try session.quitWithKey() == 0)
                // The resize cost nothing: brltty was not lost.
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        /// A screen reader's own BrlAPI client, as Orca's is (the same Python BrlAPI, at the root of brltty's ttys, as
        /// Orca enters), writing its text every half second, as a screen reader writes with each change on its
        /// desktop, and a GTK window "Notes" to take the focus. brltty shows it only while no client of a window
        /// below the root holds the display.
        static let screenReaderClient = """
            import brlapi, gi
            gi.require_version("Gtk", "3.0")
            from gi.repository import GLib, Gtk
            reader = brlapi.Connection()
            reader.enterTtyModeWithPath()
            reader.writeText("Orca: Notes")
            GLib.timeout_add(500, lambda: reader.writeText("Orca: Notes") or True)
            w = Gtk.Window(title="Notes"); w.add(Gtk.Label(label="Notes")); w.show_all(); Gtk.main()
            """

        @Test(.enabled(if: Fixtures.hasBrltty, "needs brltty: \(Fixtures.brlttyMissing ?? "")"))
        func anotherWindowInFrontHasTheDisplayForTheScreenReaderUntilTheFocusComesBack() throws {
            try withServers("braille-focus") { display, sound, folder in
                let braille = try BrailleTestDisplay(columns: 40, rows: 1, logFolder: folder)
                defer { braille.stop() }
                let reader = try Subprocess(
                    Fixtures.systemPython, ["-c", Self.screenReaderClient],
                    environment: display.environment.merging(braille.clientEnvironment) { $1 }, folder: folder,
                    label: "screen-reader")
                defer { reader.stop() }
                try braille.waitForText("the screen reader's text", timeout: 20) { $0 == "Orca: Notes" }
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder,
                    environment: braille.clientEnvironment)
                defer { session.stop() }
                try session.waitUntilShown()
                try display.focusWindow(named: "^SonicAtomic")
                try braille.waitForText("the greeting") { $0.hasPrefix("SonicAtomic. shapes.png") }

                // The other window in front: the display is the screen reader's, with its text.
                var seen = braille.texts().count
                try display.focusWindow(named: "^Notes$")
                try braille.waitForText("the screen reader's text again", after: seen) { $0 == "Orca: Notes" }
                // Nothing the program says meanwhile takes it back.
                let shownAway = braille.texts().count
                usleep(1_500_000)
                let meanwhile = Array(braille.texts().dropFirst(shownAway))
                let onlyTheReaders = meanwhile.allSatisfy { $0 == "Orca: Notes" }
                #expect(onlyTheReaders, "\(meanwhile)")

                // The program's window in front again: its text is back, and it answers there.
                seen = braille.texts().count
                try display.focusWindow(named: "^SonicAtomic")
                try braille.waitForText("the program's text again", after: seen) { $0 != "Orca: Notes" }
                seen = braille.texts().count
                try display.key("space")
                try braille.waitForText("an answer on the display", after: seen) {
                    $0.hasPrefix("The pen is not on the tablet") || $0.hasPrefix("x ") || $0.hasPrefix("Outside")
                }
                #expect(reader.isRunning, "\(reader.stderr)")
                #expect(try session.quitWithKey() == 0)
                // brltty was never lost: the display was handed over, not dropped.
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")
            }
        }

        @Test(.enabled(if: Fixtures.hasBrltty, "needs brltty: \(Fixtures.brlttyMissing ?? "")"))
        func brlttyKilledAndRestartedMidSessionIsSurvived() throws {
            try withServers("braille-back") { display, sound, folder in
                let braille = try BrailleTestDisplay(columns: 40, rows: 1, logFolder: folder)
                defer { braille.stop() }
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder,
                    environment: braille.clientEnvironment)
                defer { session.stop() }
                try session.waitUntilShown()
                try braille.waitForText("the greeting") { $0.hasPrefix("SonicAtomic. shapes.png") }

                braille.kill()
                try waitFor("the loss on stderr", timeout: 5) { session.process.stderr.contains("brltty") }
                #expect(session.process.isRunning)
                // The session goes on: the voice answers while brltty is away.
                let mark = sound.recordedSampleCount()
                try display.key("space")
                try sound.waitForUtterance(after: mark)

                let seen = braille.texts().count
                try braille.start()
                try braille.waitForText("the return, said", after: seen, timeout: 10) {
                    $0.hasPrefix("Braille display is back")
                }
                let after = braille.texts().count
                try display.key("space")
                try braille.waitForText("an answer after the return", after: after) {
                    $0.hasPrefix("The pen is not on the tablet") || $0.hasPrefix("x ")
                }
                let lines = session.process.stderr.split(separator: "\n").map(String.init)
                #expect(lines.count == 2, "\(lines)")
                #expect(lines.first?.hasSuffix("braille shows again once brltty is back") == true, "\(lines)")
                #expect(lines.last == "sonic-atomic: brltty answers again: braille shows again", "\(lines)")
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func withoutBrlttyThePlayIsAsBeforeAndSaysNothingOfIt() throws {
            try withServers("braille-none") { display, sound, folder in
                // A port nothing listens on.
                let port = try BrailleTestDisplay.freePort()
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound, folder: folder,
                    environment: ["BRLAPI_HOST": "127.0.0.1:\(port)", "BRLAPI_AUTH": "none"])
                defer { session.stop() }
                try session.waitUntilShown()
                let end = try session.waitForGreeting()
                #expect(
                    SignalAnalysis.looksLikeSpeech(try sound.recording()[..<end], sampleRate: SoundServer.sampleRate))
                #expect(try session.spokenTexts().first?.hasPrefix("SonicAtomic. shapes.png") == true)
                #expect(try session.records(ofType: "braille").isEmpty)
                #expect(try session.quitWithKey() == 0)
                #expect(session.process.stderr.isEmpty, "\(session.process.stderr)")

                // Asked for with --braille on: one line says it cannot be reached, and the session plays.
                let asked = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound,
                    folder: folder + "/on", arguments: ["--braille", "on"],
                    environment: ["BRLAPI_HOST": "127.0.0.1:\(port)", "BRLAPI_AUTH": "none"])
                defer { asked.stop() }
                try asked.waitUntilShown()
                try asked.waitForGreeting()
                #expect(try asked.quitWithKey() == 0)
                let lines = asked.process.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("sonic-atomic: cannot reach brltty ("), "\(lines)")
            }
        }
    }
}
