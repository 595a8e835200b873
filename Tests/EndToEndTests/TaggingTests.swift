import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Tagging a microscopist can publish: columns found and refined against exact ground truth,
    /// taps that snap, the unit cell spoken, tags that survive a kill.
    @Suite struct TaggingTests {

        /// A synthetic STEM image with exact column centres, written as a 16-bit PNG.
        struct Sample {
            let lattice: LatticeImage
            let path: String
            var truth: [(x: Double, y: Double, height: Double)] { lattice.columns }
            var spacing: Double

            /// The true column nearest image point (x, y).
            func column(nearest x: Double, _ y: Double) -> (x: Double, y: Double, height: Double) {
                truth.min { hypot($0.x - x, $0.y - y) < hypot($1.x - x, $1.y - y) }!
            }
        }

        enum Kind { case square, hexagonal, twoSublattice }

        /// Low noise: columns 20000 counts over 5000 with a dose of 1 electron per count (shot-noise SNR ~140 at a peak)
        /// and read noise 20. High noise: a dose of 0.02 per count (SNR ~20 at a peak) and read noise 300.
        /// With `nanometresPerPixel`, the sample is a DigitalMicrograph 4 file calibrated so, as a microscope writes it.
        static func sample(
            _ kind: Kind, sigma: Double, spacing d: Double, highNoise: Bool, vacancies: Int = 0,
            size: Int = 320, seed: UInt64, folder: String, nanometresPerPixel: Double? = nil
        ) throws -> Sample {
            let angle = 0.29 // radians: nothing lines up with the pixel grid
            func rotated(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
                (x * cos(angle) - y * sin(angle), x * sin(angle) + y * cos(angle))
            }
            let a: (x: Double, y: Double), b: (x: Double, y: Double), sites: [LatticeImage.Site], nearest: Double
            switch kind {
            case .square:
                (a, b, sites, nearest) = (rotated(d, 0), rotated(0, d), [.init(u: 0, v: 0, height: 20_000)], d)
            case .hexagonal:
                (a, b, sites, nearest) = (
                    rotated(d, 0), rotated(d / 2, d * 3.0.squareRoot() / 2), [.init(u: 0, v: 0, height: 20_000)], d
                )
            case .twoSublattice:
                // Heavy columns at the corners, light ones (0.4×) in the middle: nearest neighbours d apart.
                let cell = d * 2.0.squareRoot()
                (a, b, sites, nearest) = (
                    rotated(cell, 0), rotated(0, cell),
                    [.init(u: 0, v: 0, height: 20_000), .init(u: 0.5, v: 0.5, height: 8000)], d
                )
            }
            var vacant = Set<LatticeImage.SiteIndex>()
            var random = SeededRandom(seed: seed &+ 99)
            while vacant.count < vacancies {
                vacant.insert(
                    LatticeImage.SiteIndex(
                        i: Int(random.next() % 6) + 2, j: Int(random.next() % 6) + 2,
                        site: Int(random.next() % UInt64(sites.count))))
            }
            let lattice = LatticeImage(
                width: size, height: size, a: a, b: b, origin: (13.37, 17.71), sites: sites,
                sigma: sigma, background: 5000, backgroundSlope: (3.1, -2.2),
                doseScale: highNoise ? 0.02 : 1, readNoise: highNoise ? 300 : 20, seed: seed,
                vacancies: vacant)
            let image = lattice.render()
            if let nanometresPerPixel {
                let path = folder + "/lattice-\(seed).dm4"
                let axis = SampleDM.Axis(scale: nanometresPerPixel, units: "nm")
                try writeDigitalMicrograph([.calibrated(image, title: "HAADF", axis: axis)], to: path)
                return Sample(lattice: lattice, path: path, spacing: nearest)
            }
            let path = folder + "/lattice-\(seed).png"
            try Data(
                TestPNG(
                    width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                    samples: image.samples.map { UInt16($0) }
                ).bytes
            ).write(to: URL(fileURLWithPath: path))
            return Sample(lattice: lattice, path: path, spacing: nearest)
        }

        /// `sonic-atomic columns --json`, parsed.
        static func columns(_ path: String, near: [(Double, Double)] = []) throws -> (
            spacing: Double?, columns: [[String: Any]]
        ) {
            let arguments = ["columns", path, "--json"] + near.flatMap { ["--near", "\($0.0),\($0.1)"] }
            let result = try Subprocess.run(Fixtures.binary, arguments, timeout: 120)
            guard result.status == 0,
                let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            else { throw HarnessError("columns failed: \(result.output.prefix(300))") }
            return (object["spacing"] as? Double, object["columns"] as! [[String: Any]])
        }

        @Test(
            arguments: [
                (Kind.square, 3.0, 24.0, false, 0), (.square, 5, 40, true, 2), (.hexagonal, 2, 16, false, 0),
                (.hexagonal, 4, 28, true, 0), (.twoSublattice, 2.5, 20, false, 3), (.twoSublattice, 3, 24, true, 3),
                (.square, 5, 16, true, 3) // overlapping: refined jointly
            ] as [(Kind, Double, Double, Bool, Int)])
        func columnsAreFoundAndCentredToTheTargets(
            kind: Kind, sigma: Double, spacing: Double, highNoise: Bool, vacancies: Int
        ) throws {
            let folder = try Fixtures.scratch("columns")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = try Self.sample(
                kind, sigma: sigma, spacing: spacing, highNoise: highNoise, vacancies: vacancies,
                seed: UInt64(spacing * 10 + sigma), folder: folder)
            let found = try Self.columns(sample.path)
            #expect(
                abs((found.spacing ?? 0) / sample.spacing - 1) < 0.05,
                "spacing \(found.spacing ?? 0) for \(sample.spacing)")
            let truth = sample.truth
            var errors: [Double] = []
            for column in found.columns {
                let x = column["x"] as! Double, y = column["y"] as! Double
                let nearest = truth.min { hypot($0.x - x, $0.y - y) < hypot($1.x - x, $1.y - y) }!
                let distance = hypot(nearest.x - x, nearest.y - y)
                // No false columns: each found one is a true column (vacancies included: none there).
                #expect(distance < 0.3 * sample.spacing, "a column at (\(x), \(y)) where there is none")
                if distance < 0.3 * sample.spacing { errors.append(distance) }
            }
            let mean = errors.reduce(0, +) / Double(max(1, errors.count))
            #expect(mean <= (highNoise ? 0.13 : 0.03), "mean centre error \(mean) px")
            // Every column farther than a spacing from the edge is found.
            let size = Double(sample.lattice.width)
            for t in truth where min(t.x, t.y, size - 1 - t.x, size - 1 - t.y) > sample.spacing {
                #expect(
                    found.columns.contains {
                        hypot(($0["x"] as! Double) - t.x, ($0["y"] as! Double) - t.y) < 0.3 * sample.spacing
                    },
                    "the column at (\(t.x), \(t.y)) was missed")
            }
            #expect(vacancies == 0 || sample.lattice.vacancyPositions.count >= 1)
        }

        @Test func nearSnapsOnlyWhereThereIsAColumn() throws {
            let folder = try Fixtures.scratch("near")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sample = try Self.sample(
                .square, sigma: 3, spacing: 24, highNoise: false, vacancies: 2, seed: 5, folder: folder)
            let column = sample.truth[sample.truth.count / 2]
            let vacancy = try #require(sample.lattice.vacancyPositions.first)
            let snapped = try Self.columns(
                sample.path, near: [(column.x + 5, column.y - 4), (vacancy.x + 1, vacancy.y)]
            ).columns
            #expect(hypot((snapped[0]["x"] as! Double) - column.x, (snapped[0]["y"] as! Double) - column.y) < 0.05)
            #expect(snapped[1]["x"] is NSNull, "snapped at a vacancy: \(snapped[1])")
        }

        /// On a microscope's own file: its calibration (0.01 nm a pixel) gives the cell in picometres.
        @Test func tapsSnapToColumnsAndTheUnitCellIsSpokenPrecisely() throws {
            try withServers("snap") { display, sound, folder in
                let sample = try Self.sample(
                    .square, sigma: 3, spacing: 24, highNoise: true, vacancies: 1, size: 256, seed: 11,
                    folder: folder, nanometresPerPixel: 0.01)
                let session = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let viewport = try session.startTagging()
                // The three corners of a cell near the middle, each tapped 4 px off (in image pixels).
                let centre = sample.column(nearest: 128, 128)
                let corners = [
                    centre, (x: centre.x + sample.lattice.a.x, y: centre.y + sample.lattice.a.y, height: 0.0),
                    (x: centre.x + sample.lattice.b.x, y: centre.y + sample.lattice.b.y, height: 0.0)
                ]
                for (k, corner) in corners.enumerated() {
                    let tap = viewport.screen(corner.x + 3, corner.y - 2.5 + Double(k))
                    let mark = sound.recordedSampleCount()
                    try display.tap(tap.x, tap.y, ms: 60)
                    try sound.waitForUtterance(after: mark)
                }
                let tags = try session.records(ofType: "tag")
                try #require(tags.count == 3)
                for (tag, corner) in zip(tags, corners) {
                    #expect(tag["snapped"] as? Bool == true)
                    let error = hypot((tag["ix"] as! Double) - corner.x, (tag["iy"] as! Double) - corner.y)
                    #expect(error < 0.3, "tag \(tag["id"]!) is \(error) px from its column")
                }
                // Spoken in picometres (10 pm a pixel, from the file): parse "a 240.1 picometres, b … , gamma … degrees".
                let said = try #require(session.spokenTexts().last)
                let numbers = said.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
                    .suffix(3)
                try #require(numbers.count == 3 && said.contains("Unit cell: a "), "\(said)")
                let (a, b, gamma) = (
                    numbers[numbers.startIndex], numbers[numbers.startIndex + 1], numbers[numbers.startIndex + 2]
                )
                #expect(abs(a / 240 - 1) < 0.003 && abs(b / 240 - 1) < 0.003, "\(said)")
                #expect(abs(gamma - 90) < 0.3, "\(said)")

                // A tap on the vacancy: tagged where tapped, and said so.
                let vacancy = try #require(sample.lattice.vacancyPositions.first)
                let mark = sound.recordedSampleCount()
                let tap = viewport.screen(vacancy.x, vacancy.y)
                try display.tap(tap.x, tap.y, ms: 60)
                try sound.waitForUtterance(after: mark)
                let texts = try session.spokenTexts()
                #expect(texts.last?.hasSuffix("not snapped: no atom column nearby.") == true, "\(texts.last ?? "")")

                // The sighted view: the tags drawn on their columns.
                let shot = try Screenshot.capture(display)
                let ring = viewport.screen(corners[0].x, corners[0].y)
                let ringPixels = (0..<16).map { k -> UInt32 in
                    let angle = Double(k) * Double.pi / 8
                    return shot[Int(ring.0 + 7 * cos(angle)), Int(ring.1 + 7 * sin(angle))]
                }
                #expect(ringPixels.filter { $0 == 0xFFD200 }.count >= 4, "no tag ring drawn at the first tag")
                #expect(try session.quitWithKey() == 0)
            }
        }

        /// A session in tagging mode on strongly overlapping columns, tapped 2 px beside the column
        /// nearest the middle: its snap refits the columns around the tap jointly, which takes seconds
        /// in this (debug) build.
        func tapBesideAnOverlappingColumn(seed: UInt64, _ display: TestDisplay, _ sound: SoundServer, _ folder: String)
            throws
            -> (sample: Sample, session: RunningPlay, column: (x: Double, y: Double, height: Double))
        {
            let sample = try Self.sample(
                .square, sigma: 5, spacing: 16, highNoise: false, size: 256, seed: seed, folder: folder)
            let session = try RunningPlay(
                image: sample.path, display: display, sound: sound, folder: folder)
            do {
                let viewport = try session.startTagging()
                let column = sample.column(nearest: 128, 128)
                let tap = viewport.screen(column.x + 2, column.y - 2)
                try display.tap(tap.x, tap.y, ms: 60)
                return (sample, session, column)
            } catch {
                session.stop()
                throw error
            }
        }

        @Test func aSlowSnapDoesNotHoldUpTheKeys() throws {
            try withServers("slow-snap") { display, sound, folder in
                let (_, session, column) = try tapBesideAnOverlappingColumn(seed: 51, display, sound, folder)
                defer { session.stop() }
                try display.key("space")
                try waitFor("the tag", timeout: 60) { (try? session.records(ofType: "tag").count) == 1 }
                // Where am I was answered while the snap was being worked out, not after it.
                let tag = try #require(try session.records(ofType: "tag").first)
                let speech = try session.records(ofType: "speech")
                // The overview, said after the greeting whenever the columns are found, is no answer.
                let answer = try #require(
                    speech.last { !(($0["text"] as! String).hasPrefix("Tag ")) && $0["after"] == nil })
                #expect((answer["t"] as! Double) < (tag["t"] as! Double), "where am I: \(answer), tag: \(tag)")
                #expect(tag["snapped"] as? Bool == true)
                #expect(hypot((tag["ix"] as! Double) - column.x, (tag["iy"] as! Double) - column.y) < 0.1)
                try sound.waitForUtterance(after: sound.recordedSampleCount())
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func tagsSurviveAKillAndComeBack() throws {
            try withServers("persist") { display, sound, folder in
                let sample = try Self.sample(
                    .square, sigma: 3, spacing: 24, highNoise: false, size: 256, seed: 21, folder: folder)
                let sidecar = sample.path + ".tags.json", csv = folder + "/tags.csv"
                let first = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder,
                    arguments: ["--export-tags", csv])
                defer { first.stop() }
                let viewport = try first.waitUntilShown()
                try first.waitForGreeting()
                try display.key("4")
                let column1 = sample.truth[40], column2 = sample.truth[41]
                var tap = viewport.screen(column1.x + 2, column1.y + 2)
                try display.tap(tap.x, tap.y, ms: 60)
                try waitFor("the first tag on disk", timeout: 10) {
                    (try? String(contentsOfFile: sidecar, encoding: .utf8))?.contains("\"id\" : 1") == true
                }
                // Killed without warning: nothing is flushed, nothing cleaned up.
                first.process.signal(SIGKILL)
                #expect(first.process.wait(timeout: 5) == 128 + SIGKILL)

                let second = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder + "/again",
                    arguments: ["--export-tags", csv])
                defer { second.stop() }
                try second.waitUntilShown()
                try second.waitForGreeting()
                let greeting = try #require(try second.records(ofType: "speech").first?["text"] as? String)
                #expect(greeting.contains("1 saved tag loaded."), "\(greeting)")
                try display.key("4")
                tap = viewport.screen(column2.x - 2, column2.y + 1)
                try display.tap(tap.x, tap.y, ms: 60)
                try waitFor("the second tag on disk", timeout: 10) {
                    (try? String(contentsOfFile: sidecar, encoding: .utf8))?.contains("\"id\" : 2") == true
                }
                let saved =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sidecar)))
                    as! [String: Any]
                let tags = saved["tags"] as! [[String: Any]]
                #expect(tags.map { $0["id"] as! Int } == [1, 2])
                #expect(hypot((tags[0]["x"] as! Double) - column1.x, (tags[0]["y"] as! Double) - column1.y) < 0.05)
                #expect(hypot((tags[1]["x"] as! Double) - column2.x, (tags[1]["y"] as! Double) - column2.y) < 0.05)
                #expect(saved["format"] as? String == "sonic-atomic tags" && saved["width"] as? Int == 256)
                // The CSV copy is rewritten just after the tags file.
                try waitFor("the CSV copy with both tags", timeout: 5) {
                    (try? String(contentsOfFile: csv, encoding: .utf8))?.split(separator: "\n").count == 3
                }
                let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
                #expect(rows.first == "id,x,y,snapped" && rows.count == 3)
                // No temporary files left behind.
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") }.isEmpty)
                #expect(try second.quitWithKey() == 0)
            }
        }

        @Test func aTagBeingPlacedSurvivesAKill() throws {
            try withServers("kill-snap") { display, sound, folder in
                // The snap takes seconds: time enough to kill the program during it.
                let (sample, first, column) = try tapBesideAnOverlappingColumn(seed: 52, display, sound, folder)
                defer { first.stop() }
                func saved() throws -> [String: Any] {
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: URL(fileURLWithPath: sample.path + ".tags.json"))) as! [String: Any]
                }
                try waitFor("the tap on disk", timeout: 10) { (try? saved())?["unplaced"] != nil }
                first.process.signal(SIGKILL)
                #expect(first.process.wait(timeout: 5) == 128 + SIGKILL)
                // It was killed while the tap was being snapped: no tag yet, only the tap.
                #expect(try first.records(ofType: "tag").isEmpty)
                #expect((try saved()["tags"] as? [Any])?.isEmpty == true)

                let second = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder + "/again")
                defer { second.stop() }
                try second.waitUntilShown(timeout: 60)
                try second.waitForGreeting()
                let greeting = try #require(try second.records(ofType: "speech").first?["text"] as? String)
                #expect(
                    greeting.contains("1 saved tag loaded.")
                        && greeting.contains(
                            "Tag 1 was still being placed when the program stopped, and is placed now."),
                    "\(greeting)")
                let tags = try #require(try saved()["tags"] as? [[String: Any]])
                try #require(tags.count == 1, "\(tags)")
                #expect(tags[0]["snapped"] as? Bool == true)
                #expect(hypot((tags[0]["x"] as! Double) - column.x, (tags[0]["y"] as! Double) - column.y) < 0.1)
                #expect(try saved()["unplaced"] == nil)
                #expect(try second.quitWithKey() == 0)
            }
        }

        @Test func arrowKeysWalkTheColumnsAndEnterTagsOne() throws {
            try withServers("walk") { display, sound, folder in
                let sample = try Self.sample(
                    .square, sigma: 3, spacing: 24, highNoise: false, size: 256, seed: 31, folder: folder)
                let session = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.startTagging()
                func press(_ key: String) throws -> Range<Int> {
                    let mark = sound.recordedSampleCount()
                    try display.key(key)
                    return try sound.waitForUtterance(after: mark)
                }
                _ = try press("Right") // to the column nearest the middle
                _ = try press("Right")
                let heard = try press("Down")
                // The cursor's tone sounds the column: its pitch is the logged cursor's pixel's.
                let cursors = try session.records(ofType: "cursor").filter { $0["ix"] != nil }
                try #require(cursors.count == 3)
                let last = cursors[2]
                let (cx, cy) = (last["ix"] as! Double, last["iy"] as! Double)
                #expect(sample.truth.contains { hypot($0.x - cx, $0.y - cy) < 0.1 }, "the cursor is not on a column")
                let x = try sound.recording()
                #expect(SignalAnalysis.peak(x[heard]) > 0.3)
                // Right then Down: one spacing apart each, along the lattice's rotated axes.
                let c1 = (cursors[1]["ix"] as! Double, cursors[1]["iy"] as! Double)
                #expect(abs(hypot(cx - c1.0, cy - c1.1) - 24) < 0.3)
                _ = try press("Return")
                let tag = try #require(try session.records(ofType: "tag").first)
                #expect(abs((tag["ix"] as! Double) - cx) < 1e-9 && abs((tag["iy"] as! Double) - cy) < 1e-9)
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test(arguments: [SoundServer.Kind.pulseaudio, .pipewireNative])
        func thePenTicksAtTheUnitCellsBoundariesAndTTurnsThatOff(sound kind: SoundServer.Kind) throws {
            try withServers("ticks", sound: kind) { display, sound, folder in
                let sample = try Self.sample(
                    .square, sigma: 3, spacing: 24, highNoise: false, size: 256, seed: 41, folder: folder)
                let session = try RunningPlay(
                    image: sample.path, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let viewport = try session.startTagging()
                let (a, b) = (sample.lattice.a, sample.lattice.b)
                let origin = sample.column(nearest: 100, 100)
                for corner in [(origin.x, origin.y), (origin.x + a.x, origin.y + a.y), (origin.x + b.x, origin.y + b.y)]
                {
                    let mark = sound.recordedSampleCount()
                    let tap = viewport.screen(corner.0 + 2, corner.1 - 2)
                    try display.tap(tap.x, tap.y, ms: 60)
                    try sound.waitForUtterance(after: mark)
                }
                #expect(try session.lastAnswer()?.contains("Unit cell") == true)
                // Along a, through the middle of the cells: across three boundaries in 1.5 s.
                func point(_ u: Double) -> (Double, Double) {
                    viewport.screen(origin.x + u * a.x + 0.5 * b.x, origin.y + u * a.y + 0.5 * b.y)
                }
                func ticks(strokingFrom u0: Double, to u1: Double) throws -> [Double] {
                    let mark = try sound.waitForSilence()
                    try display.stroke(from: point(u0), to: point(u1), ms: 1500)
                    let end = try sound.waitForSilence()
                    let heard = Array(try sound.recording()[mark..<end])
                    return Spectrum.burstOnsets(heard, at: 3200, sampleRate: SoundServer.sampleRate, threshold: 0.05)
                        .map { Double($0) / SoundServer.sampleRate }
                }
                let onsets = try ticks(strokingFrom: 0.5, to: 3.5)
                #expect(onsets.count == 3, "ticks at \(onsets) s")
                // A boundary every half second of the stroke.
                if onsets.count == 3 {
                    #expect(
                        abs(onsets[1] - onsets[0] - 0.5) < 0.08 && abs(onsets[2] - onsets[1] - 0.5) < 0.08,
                        "ticks at \(onsets) s")
                }
                let mark = sound.recordedSampleCount()
                try display.key("t")
                try sound.waitForUtterance(after: mark)
                #expect(try session.lastAnswer() == "Cell boundary ticks off.")
                #expect(try ticks(strokingFrom: 3.5, to: 0.5).isEmpty)
                #expect(try session.quitWithKey() == 0)
                // The log holds the cell, so a render of the session ticks where the session did.
                let cells = try session.records(ofType: "cell")
                #expect(cells.first?["ticks"] as? Bool == true && cells.last?["ticks"] as? Bool == false)
                let wavPath = folder + "/session.wav"
                let render = try Subprocess.run(
                    Fixtures.binary, ["render", sample.path, "--session", session.logPath, "--out", wavPath])
                try #require(render.status == 0, "\(render.output)")
                let wav = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath))))
                let rendered = Spectrum.burstOnsets(
                    wav.channel(0), at: 3200, sampleRate: SoundServer.sampleRate, threshold: 0.05
                )
                .map { Double($0) / SoundServer.sampleRate }
                // The strokes' spans in the render (the voice, which has its own 3.2 kHz, speaks outside them).
                let start = try #require(try session.records(ofType: "start").first?["t"] as? Double)
                let touches = try session.records(ofType: "pen").filter {
                    ($0["buttons"] as? [Int])?.contains(1) == true
                }
                .map { ($0["t"] as! Double) - start }
                var strokes: [ClosedRange<Double>] = []
                for t in touches {
                    if let last = strokes.last, t - last.upperBound < 0.3 {
                        strokes[strokes.count - 1] = last.lowerBound...t
                    } else {
                        strokes.append(t...t)
                    }
                }
                strokes = strokes.filter { $0.upperBound - $0.lowerBound > 1 }.map {
                    $0.lowerBound...($0.upperBound + 0.05)
                }
                try #require(strokes.count == 2, "\(strokes)")
                #expect(
                    rendered.filter(strokes[0].contains).count == 3 && rendered.filter(strokes[1].contains).isEmpty,
                    "rendered ticks at \(rendered) s; strokes \(strokes)")
            }
        }
    }
}
