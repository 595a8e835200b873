import Foundation
import Testing

@testable import SonicCore

@Suite struct SessionRecordTests {
    @Test func penRecordHasTheDocumentedFieldsInOrder() throws {
        var buttons = PenButtons()
        buttons.insert(1); buttons.insert(3)
        let record = PenRecord(
            t: 12.25, rootX: 100, rootY: 200.5, imageX: -0.5, imageY: 3.25, inImage: true,
            sample: 4242, level: 0.125, pressure: 0.5, tiltX: 10, tiltY: -20, buttons: buttons,
            mode: "intensity-pitch", frequency: 440, amplitude: 0.5)
        let line = SessionRecord.pen(record).jsonLine
        #expect(
            line
                == #"{"type":"pen","t":12.25,"x":100,"y":200.5,"ix":-0.5,"iy":3.25,"inImage":true,"sample":4242,"level":0.125,"pressure":0.5,"tiltX":10,"tiltY":-20,"buttons":[1,3],"mode":"intensity-pitch","frequency":440,"amplitude":0.5}"#
        )
        // And it is JSON that a standard parser reads back.
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        #expect(object["ix"] as? Double == -0.5)
    }

    @Test func startAndViewportRecords() throws {
        let start = SessionRecord.start(
            StartRecord(
                t: 1.5, image: "/data/a \"b\".dm4", imageNumber: 2, width: 3, height: 4,
                bitDepth: 32, sampleType: "float32", profile: "default", sampleRate: 48000,
                voice: "en", rate: 175))
        #expect(
            start.jsonLine
                == #"{"type":"start","t":1.5,"image":"/data/a \"b\".dm4","imageNumber":2,"width":3,"height":4,"bitDepth":32,"sampleType":"float32","profile":"default","sampleRate":48000,"voice":"en","rate":175}"#
        )
        let records: [SessionRecord] = [
            .mode(t: 3, .tiltFilter), .speech(t: 4, text: "Tag 1 at x 2"),
            .tag(t: 5, Tag(id: 1, x: 2.5, y: -0.25)), .untag(t: 6, id: 1),
            .cursor(t: 7, ImagePoint(x: 1, y: 2)), .cursor(t: 8, nil)
        ]
        #expect(
            records.map(\.jsonLine) == [
                #"{"type":"mode","t":3,"mode":"tilt-filter"}"#, #"{"type":"speech","t":4,"text":"Tag 1 at x 2"}"#,
                #"{"type":"tag","t":5,"id":1,"ix":2.5,"iy":-0.25,"snapped":false}"#, #"{"type":"untag","t":6,"id":1}"#,
                #"{"type":"cursor","t":7,"ix":1,"iy":2}"#, #"{"type":"cursor","t":8}"#
            ])
        let cell = try #require(
            UnitCell(
                origin: ImagePoint(x: 10.5, y: 20), vectorA: ImagePoint(x: 24, y: 0.25),
                vectorB: ImagePoint(x: -0.5, y: 24)))
        #expect(
            SessionRecord.cell(t: 9, cell, ticks: true).jsonLine
                == #"{"type":"cell","t":9,"ticks":true,"ox":10.5,"oy":20,"ax":24,"ay":0.25,"bx":-0.5,"by":24}"#)
        #expect(SessionRecord.cell(t: 10, nil, ticks: false).jsonLine == #"{"type":"cell","t":10,"ticks":false}"#)
        #expect(SessionRecord.dropout(t: 11, count: 2, at: nil).jsonLine == #"{"type":"dropout","t":11,"count":2}"#)
        #expect(SessionRecord.delay(t: 11, seconds: 0.0064).jsonLine == #"{"type":"delay","t":11,"seconds":0.0064}"#)
        #expect(
            SessionRecord.late(t: 11, count: 2, by: 0.0015).jsonLine == #"{"type":"late","t":11,"count":2,"by":0.0015}"#
        )
        #expect(
            SessionRecord.dropout(t: 11, count: 3, at: 10.96).jsonLine
                == #"{"type":"dropout","t":11,"count":3,"at":10.96}"#)
        #expect(
            SessionRecord.sound(t: 12, .lost(reason: "gone")).jsonLine
                == #"{"type":"sound","t":12,"playing":false,"reason":"gone"}"#)
        #expect(
            SessionRecord.sound(t: 13, .back(server: "PipeWire")).jsonLine
                == #"{"type":"sound","t":13,"playing":true,"server":"PipeWire"}"#)
        #expect(
            SessionRecord.speech(t: 14, text: "Square lattice.", after: true).jsonLine
                == #"{"type":"speech","t":14,"text":"Square lattice.","after":true}"#)
        #expect(
            [.sweep(t: 15, .image), .sweep(t: 16, .column(12)), .sweep(t: 17, nil)].map(\SessionRecord.jsonLine) == [
                #"{"type":"sweep","t":15,"kind":"image"}"#, #"{"type":"sweep","t":16,"kind":"column","index":12}"#,
                #"{"type":"sweep","t":17}"#
            ])
        #expect(
            SessionRecord.guide(t: 18, Guidance(target: ImagePoint(x: 125, y: 265.5), radius: 24.5)).jsonLine
                == #"{"type":"guide","t":18,"ix":125,"iy":265.5,"radius":24.5}"#)
        #expect(SessionRecord.guide(t: 19, nil).jsonLine == #"{"type":"guide","t":19}"#)
        let viewport = SessionRecord.viewport(t: 2, Viewport(originX: 420, originY: 0, scale: 2.8125))
        #expect(viewport.jsonLine == #"{"type":"viewport","t":2,"originX":420,"originY":0,"scale":2.8125}"#)
    }

    @Test func numbersRoundTripAndControlCharactersAreEscaped() throws {
        var line = JSONLine()
        line.add("a", 0.1 + 0.2)
        line.add("b", "tab\there\u{1}")
        line.add("c", Double.nan)
        // Shortest round-trip digits (some JSON parsers lose the last bit; the text itself is exact).
        #expect(line.result.contains(#""a":0.30000000000000004"#))
        #expect(Double("0.30000000000000004") == 0.1 + 0.2)
        let object = try JSONSerialization.jsonObject(with: Data(line.result.utf8)) as! [String: Any]
        #expect(object["b"] as? String == "tab\there\u{1}")
        #expect(object["c"] is NSNull)
    }
}
