import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct SessionLogDecoderTests {
    func decode(_ line: String, number: Int = 7) throws(SessionLogError) -> SessionRecord? {
        try decodeLogLine(line, name: "log.jsonl", number: number)
    }

    func failure(_ line: String) -> String? {
        do {
            _ = try decode(line)
            return nil
        } catch {
            return error.message
        }
    }

    /// Every record the program writes reads back as itself.
    @Test func everyRecordTheProgramWritesReadsBack() throws {
        var buttons = PenButtons()
        buttons.insert(1)
        buttons.insert(3)
        let cell = try #require(
            UnitCell(
                origin: ImagePoint(x: 10.5, y: 20), vectorA: ImagePoint(x: 24, y: 0.25),
                vectorB: ImagePoint(x: -0.5, y: 24)))
        let records: [SessionRecord] = [
            .start(
                StartRecord(
                    t: 1.5, image: "/data/a \"b\" ✓.dm4", imageNumber: 2, width: 3, height: 4, bitDepth: 32,
                    sampleType: "float32", profile: "default", sampleRate: 48000, voice: "en-us", rate: 175)),
            .viewport(t: 2, Viewport(originX: -3.25, originY: 40, scale: 2.0833333333333335)),
            .pen(
                PenRecord(
                    t: 3.000125, rootX: 100.5, rootY: 200.25, imageX: -0.5, imageY: 383.5, inImage: true,
                    sample: -1.5e-7, level: 0.25, pressure: 0.75, tiltX: -30, tiltY: 12.5, buttons: buttons,
                    mode: "tilt-filter", frequency: 440.125, amplitude: 0.5)),
            .mode(t: 4, .unitCellTagging), .speech(t: 5, text: "Tag 1 at x 2.5,\n\t\"quoted\" \\ é 🎵"),
            .tag(t: 6, Tag(id: 3, x: 2.5, y: -0.25, snapped: true)), .untag(t: 7, id: 3),
            .cursor(t: 8, ImagePoint(x: 1, y: 2)), .cursor(t: 9, nil),
            .cell(t: 10, cell, ticks: true), .cell(t: 11, nil, ticks: false), .dropout(t: 12, count: 4, at: nil),
            .dropout(t: 13, count: 5, at: 12.9375), .delay(t: 13.5, seconds: 0.0113),
            .late(t: 13.75, count: 3, by: 0.00125),
            .sound(t: 14, .lost(reason: "PulseAudio: gone (\"x\")")),
            .sound(t: 15, .back(server: "PipeWire")), .speech(t: 16, text: "Square lattice.", after: true),
            .sweep(t: 17, .image), .sweep(t: 18, .row(0)), .sweep(t: 19, .column(383)), .sweep(t: 20, nil),
            .guide(t: 21, Guidance(target: ImagePoint(x: 125.5, y: -0.25), radius: 24.01)), .guide(t: 22, nil)
        ]
        for record in records {
            #expect(try decode(record.jsonLine) == record, "\(record.jsonLine)")
        }
    }

    @Test func unknownRecordTypesAndFieldsAndBlankLinesAreSkipped() throws {
        #expect(try decode(#"{"type":"future","t":1,"nested":{"a":[1,{"b":null}]}}"#) == nil)
        #expect(try decode("   ") == nil && decode("") == nil)
        #expect(
            try decode(#" {"type":"mode","t":3,"mode":"tilt-filter","extra":[true,"x"]} "#) == .mode(t: 3, .tiltFilter))
    }

    @Test func malformedLinesNameTheFileAndLine() {
        for line in [
            "not json", "{", "[1,2]", #"{"type":"mode","t":3,}"#, #"{"type":"mode" "t":3}"#, #"{"t":01}"#,
            #"{"t":1.}"#, #"{"t":+1}"#, #"{"t":NaN}"#, #"{"t":Infinity}"#, #"{"type":"a\x"}"#, "{\"type\":\"a\u{1}\"}",
            #"{"t":1} x"#, #"{"t":"\ud800"#, String(repeating: "[", count: 100) + "]"
        ] {
            #expect(failure(line) == "log.jsonl:7: not a JSON object", "\(line)")
        }
    }

    /// Every number a replay could trip on is checked: hostile values are refused with the field's name.
    @Test func hostileNumbersAreRefused() {
        func pen(_ field: String, _ value: String) -> String {
            var fields = [
                "\"type\":\"pen\"", "\"t\":5", "\"x\":10", "\"y\":10", "\"ix\":1", "\"iy\":1", "\"inImage\":true",
                "\"sample\":100", "\"level\":0.5", "\"pressure\":0.5", "\"tiltX\":0", "\"tiltY\":0",
                "\"buttons\":[1]", "\"mode\":\"intensity-pitch\"", "\"frequency\":440", "\"amplitude\":0.5"
            ]
            fields = fields.map { $0.hasPrefix("\"\(field)\":") ? "\"\(field)\":\(value)" : $0 }
            return "{" + fields.joined(separator: ",") + "}"
        }
        #expect(failure(pen("y", "-1e308")) == "log.jsonl:7: \"y\" must be between -10000000 and 10000000")
        #expect(failure(pen("sample", "1e400")) == "log.jsonl:7: \"sample\" must be finite")
        #expect(failure(pen("t", "1e7000")) == "log.jsonl:7: \"t\" must be finite")
        #expect(failure(pen("t", "-1")) == "log.jsonl:7: \"t\" must be between 0 and 1000000000")
        #expect(failure(pen("pressure", "2")) == "log.jsonl:7: \"pressure\" must be between 0 and 1")
        #expect(failure(pen("tiltX", "-91")) != nil && failure(pen("level", "-0.1")) != nil)
        #expect(failure(pen("buttons", "[1e300]")) == "log.jsonl:7: \"buttons\" must list whole numbers from 1 to 32")
        #expect(failure(pen("buttons", "[0.5]")) != nil && failure(pen("buttons", "1")) != nil)
        #expect(failure(pen("mode", "\"loud\"")) == "log.jsonl:7: unknown mode")
        #expect(failure(pen("inImage", "1")) == "log.jsonl:7: \"inImage\" must be true or false")
        #expect(
            failure(#"{"type":"viewport","t":2,"originX":0,"originY":0}"#) == "log.jsonl:7: \"scale\" must be a number")
        #expect(failure(#"{"type":"viewport","t":2,"originX":0,"originY":0,"scale":0}"#)?.contains("positive") == true)
        #expect(
            failure(#"{"type":"viewport","t":2,"originX":0,"originY":0,"scale":1e300}"#)?.contains("at most") == true)
        #expect(failure(#"{"type":"untag","t":2,"id":2.5}"#) == "log.jsonl:7: \"id\" must be a whole number")
        #expect(failure(#"{"type":"dropout","t":2,"count":-1}"#) != nil)
        #expect(failure(#"{"type":"dropout","t":2,"count":1,"at":-5}"#) != nil)
        #expect(failure(#"{"type":"delay","t":2,"seconds":-0.001}"#) != nil)
        #expect(failure(#"{"type":"late","t":2,"count":1,"by":-1}"#) != nil)
        #expect(failure(#"{"type":"sound","t":2}"#) == "log.jsonl:7: \"playing\" must be true or false")
        #expect(
            failure(#"{"type":"cell","t":2,"ticks":true,"ox":0,"oy":0,"ax":1,"ay":0,"bx":2,"by":0}"#)
                == "log.jsonl:7: the cell's vectors do not span a cell")
        #expect(
            failure(
                #"{"type":"start","t":1,"image":"x","width":0,"height":4,"bitDepth":16,"profile":"p","sampleRate":48000}"#
            ) != nil)
        #expect(
            failure(
                #"{"type":"start","t":1,"image":"x","width":3,"height":4,"bitDepth":16,"profile":"p","sampleRate":48000,"rate":5}"#
            ) != nil)
    }

    /// A sweep names its kind, and a line its index; a guide's place has a radius above nothing.
    @Test func sweepsAndGuidesAreCheckedFieldByField() throws {
        #expect(try decode(#"{"type":"sweep","t":2,"kind":"row","index":7}"#) == .sweep(t: 2, .row(7)))
        #expect(try decode(#"{"type":"speech","t":2,"text":"x","after":false}"#) == .speech(t: 2, text: "x"))
        let sweepError = "log.jsonl:7: a sweep is \"image\", or a \"row\" or \"column\" with its \"index\""
        for line in [
            #"{"type":"sweep","t":2,"kind":"diagonal"}"#, #"{"type":"sweep","t":2,"kind":"row"}"#,
            #"{"type":"sweep","t":2,"kind":"image","index":3}"#
        ] {
            #expect(failure(line) == sweepError, "\(line)")
        }
        #expect(failure(#"{"type":"sweep","t":2,"kind":"column","index":-1}"#)?.contains("\"index\"") == true)
        #expect(failure(#"{"type":"sweep","t":2,"kind":"column","index":2.5}"#)?.contains("whole number") == true)
        #expect(failure(#"{"type":"sweep","t":2,"kind":7}"#) == "log.jsonl:7: \"kind\" must be text")
        #expect(
            failure(#"{"type":"speech","t":2,"text":"x","after":1}"#) == "log.jsonl:7: \"after\" must be true or false")
        #expect(
            failure(#"{"type":"guide","t":2,"ix":1,"iy":2,"radius":0}"#) == "log.jsonl:7: \"radius\" must be above 0")
        #expect(failure(#"{"type":"guide","t":2,"ix":1,"iy":2}"#) == "log.jsonl:7: \"radius\" must be a number")
        #expect(failure(#"{"type":"guide","t":2,"ix":1,"radius":3}"#) == "log.jsonl:7: \"iy\" must be a number")
        #expect(failure(#"{"type":"guide","t":2,"ix":1e300,"iy":2,"radius":3}"#)?.contains("\"ix\"") == true)
        // A line to sweep must be one of the image's, as the start record gives its size.
        var check = SessionLogCheck()
        try check.admit(
            .start(
                StartRecord(
                    t: 1, image: "x", width: 30, height: 20, bitDepth: 16, sampleType: "uint16", profile: "p",
                    sampleRate: 48000)), place: "log:1")
        try check.admit(.sweep(t: 2, .row(19)), place: "log:2")
        try check.admit(.sweep(t: 2, .column(29)), place: "log:3")
        #expect(throws: SessionLogError(message: "log:4: the row to sweep is outside the image")) {
            try check.admit(.sweep(t: 2, .row(20)), place: "log:4")
        }
        #expect(throws: SessionLogError(message: "log:5: the column to sweep is outside the image")) {
            try check.admit(.sweep(t: 2, .column(30)), place: "log:5")
        }
    }

    /// Older logs (no image number or sample type) still read.
    @Test func olderStartRecordsRead() throws {
        let old =
            #"{"type":"start","t":1,"image":"x.png","width":384,"height":384,"bitDepth":16,"profile":"default","sampleRate":48000}"#
        guard case .start(let start) = try decode(old) else { Issue.record("not a start record"); return }
        #expect(start.imageNumber == 1 && start.sampleType == "uint16")
    }

    /// Random damage to real records: a record or a clean error, never a crash.
    @Test func damagedLinesNeverCrash() {
        let lines = [
            #"{"type":"pen","t":1000.5,"x":689.827,"y":617.631,"ix":215.4169,"iy":295.9628,"inImage":true,"sample":17268,"level":0.46952,"pressure":0,"tiltX":29.86,"tiltY":17.64,"buttons":[],"mode":"intensity-pitch","frequency":0,"amplitude":0}"#,
            #"{"type":"speech","t":1010.0,"text":"Mode 2, pressure amplitude. \u00e9\ud83c\udfb5"}"#,
            #"{"type":"cell","t":1000.02,"ticks":true,"ox":11.3,"oy":9.7,"ax":23.82,"ay":2.92,"bx":-2.92,"by":23.82}"#
        ].map { Array($0.utf8) }
        var random = SeededRandom(seed: 5)
        var decoded = 0
        for k in 0..<20_000 {
            var bytes = lines[k % lines.count]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: at)
                default: bytes.insert(Array("e9-.0\"\\[]{},:".utf8)[Int(random.next() % 13)], at: at)
                }
                if bytes.isEmpty { break }
            }
            var decoder = SessionLogDecoder(name: "fuzz")
            if (try? bytes.withUnsafeBufferPointer { buffer throws(SessionLogError) in
                try decoder.decode(buffer, number: 1)
            }) != nil {
                decoded += 1
            }
        }
        #expect(decoded > 0)
    }
}

@Suite struct WAVStreamingTests {
    @Test func aStreamOfUnknownLengthSaysSoAndRF64CarriesSixtyFourBitSizes() throws {
        let streamed = WAVEncoder.header(frames: nil, channels: 2, sampleRate: 48000, format: .pcm16, large: false)
        #expect(
            Array(streamed[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF] && Array(streamed.suffix(4)) == [0xFF, 0xFF, 0xFF, 0xFF])
        // Six hours and a half of 16-bit stereo at 48 kHz: past 4 GiB.
        let frames = 48_000 * 23_400
        let header = WAVEncoder.header(frames: frames, channels: 2, sampleRate: 48000, format: .pcm16, large: true)
        #expect(
            String(decoding: header[0..<4], as: UTF8.self) == "RF64"
                && String(decoding: header[12..<16], as: UTF8.self) == "ds64")
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(header[at + $1]) << (8 * $1) } }
        let dataBytes = frames * 4
        #expect(u64(20) == header.count - 8 + dataBytes && u64(28) == dataBytes && u64(36) == frames)
        #expect(Array(header.suffix(8)) == Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(header.count == 44 + 36)
        let plain = WAVEncoder.header(frames: 1000, channels: 2, sampleRate: 48000, format: .float32, large: false)
        #expect(try WAVFile(bytes: plain + [UInt8](repeating: 0, count: 8000)).samples.count == 2000)
    }
}
