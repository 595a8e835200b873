import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The physics of the bundled samples, as `columns` reports it, against the truth written beside them.
    @Suite struct LatticePhysicsTests {
        static func json(_ path: String) throws -> [String: Any] {
            let data = try #require(FileManager.default.contents(atPath: path))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        static func columns(_ image: String) throws -> [String: Any] {
            let result = try Subprocess.run(Fixtures.binary, ["columns", image, "--json"])
            #expect(result.status == 0, "\(result.output)")
            return try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        @Test func thePolarDomainsDisplacementsAreFoundWithinFiveHundredthsOfAPixel() throws {
            let image = Fixtures.repository + "/images/polar-domains.dm4"
            let truth = try Self.json(Fixtures.repository + "/images/polar-domains.truth.json")
            let found = try Self.columns(image)
            let pixelSize = try #require(found["pixel_size"] as? Double)
            #expect(abs(pixelSize - 18) < 0.001)
            #expect(found["sublattices"] as? Int == 2)
            let sites = try #require(truth["columns"] as? [[Double]])
            let columns = try #require(found["columns"] as? [[String: Any]])
            var checked = 0, up = 0, down = 0
            for column in columns {
                let x = try #require(column["x"] as? Double), y = try #require(column["y"] as? Double)
                let site = try #require(sites.min { hypot($0[0] - x, $0[1] - y) < hypot($1[0] - x, $1[1] - y) })
                // Columns whose Gaussian (σ 2.6 px) lies wholly inside the image.
                guard min(site[0], site[1], 383 - site[0], 383 - site[1]) >= 10 else { continue }
                #expect(hypot(site[0] - x, site[1] - y) < 0.1)
                #expect(column["sublattice"] as? Int == Int(site[2]))
                let dx = try #require(column["dx"] as? Double), dy = try #require(column["dy"] as? Double)
                #expect(hypot(dx - site[3], dy - site[4]) < 0.05, "at (\(x), \(y)): (\(dx), \(dy)) for \(site)")
                let dyPm = try #require(column["dy_pm"] as? Double)
                #expect(abs(dyPm - dy * pixelSize) < 1e-9)
                checked += 1
                if site[2] == 2 { if site[4] < 0 { up += 1 } else { down += 1 } }
            }
            #expect(checked > 500 && up > 100 && down > 100)
        }

        @Test func theDopantsAreFoundThirtyPercentBrighterAndTheVacancyEmpty() throws {
            let image = Fixtures.repository + "/images/doped-lattice.png"
            let truth = try Self.json(Fixtures.repository + "/images/doped-lattice.truth.json")
            let found = try Self.columns(image)
            let columns = try #require(found["columns"] as? [[String: Any]])
            #expect(found["sublattices"] as? Int == 1 && found["pixel_size"] is NSNull)
            func near(_ point: [String: Any]) throws -> [String: Any]? {
                let x = try #require(point["x"] as? Double), y = try #require(point["y"] as? Double)
                return columns.first { hypot(($0["x"] as! Double) - x, ($0["y"] as! Double) - y) < 2 }
            }
            let factor = try #require(truth["dopant_factor"] as? Double)
            let dopants = try #require(truth["dopants"] as? [[String: Any]])
            for dopant in dopants {
                let column = try #require(try near(dopant))
                let ratio = try #require(column["relative_intensity"] as? Double)
                #expect(abs(ratio - factor) < 0.03, "\(dopant): \(ratio)")
            }
            let others = columns.filter { column in
                !dopants.contains {
                    hypot(
                        ($0["x"] as! Double) - (column["x"] as! Double), ($0["y"] as! Double) - (column["y"] as! Double)
                    ) < 2
                }
            }
            #expect(others.count > 200)
            #expect(others.allSatisfy { abs(($0["relative_intensity"] as? Double ?? 0) - 1) < 0.1 })
            for vacancy in try #require(truth["vacancies"] as? [[String: Any]]) {
                #expect(try near(vacancy) == nil)
            }
        }

        /// A session on a bundled sample with the analysis profile, in mode `key` once the lattice is read: a pen
        /// sweep through `points` (image coordinates), then `body` gets each note of the sweep's sound (as heard, and
        /// as `render` replays the log).
        func sweep(
            _ image: String, mode key: String, through points: [(x: Double, y: Double)], ms: Int,
            _ body: (_ heard: [ArraySlice<Float>], _ rendered: [ArraySlice<Float>]) throws -> Void
        ) throws {
            try withServers("lattice-" + key) { display, sound, folder in
                let path = Fixtures.repository + "/images/" + image
                let session = try RunningPlay(
                    image: path, display: display, sound: sound, folder: folder,
                    arguments: ["--profile", "analysis"])
                defer { session.stop() }
                let view = try session.waitUntilShown()
                try session.waitForGreeting()
                try waitFor("the lattice", timeout: 60) { (try? session.records(ofType: "lattice"))?.isEmpty == false }
                let modeMark = sound.recordedSampleCount()
                try display.key(key)
                let mark = try sound.waitForUtterance(after: modeMark).upperBound
                func screen(_ p: (x: Double, y: Double)) -> (Double, Double) { view.screen(p.x, p.y) }
                try display.stroke(from: screen(points[0]), to: screen(points[points.count - 1]), ms: ms)
                try sound.waitForSilence()
                let recording = try sound.recording()
                #expect(try session.quitWithKey() == 0)
                let modes = try session.records(ofType: "mode").map { $0["mode"] as? String }
                #expect(modes.last == (key == "5" ? "column-intensity" : "lattice-displacement"))
                func notes(_ x: [Float], in range: Range<Int>) -> [ArraySlice<Float>] {
                    let bursts = SignalAnalysis.bursts(
                        Array(x[range]), threshold: 0.005, window: 48, minimumGap: Int(0.05 * SoundServer.sampleRate))
                    // Each note's middle: clear of its onset and its fade.
                    return bursts.filter { $0.count > Int(0.05 * SoundServer.sampleRate) }.map { burst in
                        let from = range.lowerBound + burst.lowerBound, to = range.lowerBound + burst.upperBound
                        return x[(from + burst.count / 4)..<(to - burst.count / 4)]
                    }
                }
                let heard = notes(recording, in: mark..<recording.count).map(Self.clearOfDropouts)
                let wavPath = folder + "/session.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary, ["render", path, "--session", session.logPath, "--out", wavPath])
                #expect(rendered.status == 0, "\(rendered.output)")
                let wav = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath))))
                let replayed = wav.channel(0)
                // In the replay, the sweep runs from its first touching pen record to its last.
                let start = try #require(session.records(ofType: "start").first?["t"] as? Double)
                let touching = try session.records(ofType: "pen").filter { ($0["buttons"] as! [Int]).contains(1) }
                let first = try #require(touching.first?["t"] as? Double),
                    last = try #require(touching.last?["t"] as? Double)
                func sample(_ t: Double) -> Int { min(replayed.count, Int((t - start) * SoundServer.sampleRate)) }
                try body(heard, notes(replayed, in: sample(first)..<sample(last + 0.2)))
            }
        }

        /// The longest stretch of a heard note with no dropout in it: a run of a millisecond or more of
        /// silence, and 5 ms either side of it. A dropout the machine's pause excused breaks the sound
        /// around it, not what the note is measured for (its pitch, its brightness).
        static func clearOfDropouts(_ note: ArraySlice<Float>) -> ArraySlice<Float> {
            let gap = Int(0.001 * SoundServer.sampleRate), margin = Int(0.005 * SoundServer.sampleRate)
            var pieces: [Range<Int>] = []
            var start = note.startIndex, silent = 0
            for i in note.indices {
                silent = abs(note[i]) < 1e-6 ? silent + 1 : 0
                if silent == gap {
                    pieces.append(start..<max(start, i - gap - margin))
                    start = i
                }
                if silent >= gap { start = min(note.endIndex, i + 1 + margin) }
            }
            pieces.append(min(start, note.endIndex)..<note.endIndex)
            return note[pieces.max { $0.count < $1.count }!]
        }

        /// The column at `(x, y)` and its neighbours along the lattice vector `a`, `before` and `after` it.
        static func row(from p: (x: Double, y: Double), a: (x: Double, y: Double), before: Int, after: Int)
            -> [(x: Double, y: Double)]
        {
            (-before...after).map { k in (p.x + Double(k) * a.x, p.y + Double(k) * a.y) }
        }

        @Test func aDopantSoundsHalfAnOctaveAboveItsNeighbours() throws {
            let truth = try Self.json(Fixtures.repository + "/images/doped-lattice.truth.json")
            let dopant = try #require((truth["dopants"] as? [[String: Double]])?.first)
            let angle = 7.0 * Double.pi / 180
            // Half a cell before the neighbour on one side to half a cell past the one on the other.
            let points = Self.row(
                from: (dopant["x"]!, dopant["y"]!), a: (24 * cos(angle) / 2, 24 * sin(angle) / 2), before: 3, after: 3)
            try sweep("doped-lattice.png", mode: "5", through: points, ms: 1800) { heard, rendered in
                for notes in [heard, rendered] {
                    let pitches = notes.compactMap {
                        SignalAnalysis.fundamental($0, sampleRate: SoundServer.sampleRate, range: 200...1000)
                    }
                    #expect(pitches.count == 3, "pitches \(pitches)")
                    guard pitches.count == 3 else { continue }
                    // A usual column at 440 Hz; the dopant, 1.3 times as bright, half an octave higher.
                    #expect(abs(pitches[0] / 440 - 1) < 0.02 && abs(pitches[2] / 440 - 1) < 0.02, "\(pitches)")
                    #expect(abs(pitches[1] / (440 * 2.0.squareRoot()) - 1) < 0.02, "\(pitches)")
                }
            }
        }

        /// In mode 1 of the default profile, with its headroom above the image's usual brightest, a dopant 1.3 times
        /// as bright as its neighbour plays measurably higher — without it both would play the top note.
        @Test func inModeOneADopantSoundsHigherThanItsNeighbour() throws {
            let truth = try Self.json(Fixtures.repository + "/images/doped-lattice.truth.json")
            let dopant = try #require((truth["dopants"] as? [[String: Double]])?.first)
            let angle = 7.0 * Double.pi / 180
            let neighbour = (x: dopant["x"]! - 24 * cos(angle), y: dopant["y"]! - 24 * sin(angle))
            try withServers("headroom") { display, sound, folder in
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/doped-lattice.png", display: display, sound: sound,
                    folder: folder)
                defer { session.stop() }
                let view = try session.waitUntilShown()
                try session.waitForGreeting()
                // The overview's sentence, heard to its end.
                try waitFor("the overview", timeout: 60) {
                    (try? session.records(ofType: "speech"))?.contains { $0["after"] as? Bool == true } == true
                }
                usleep(500_000)
                try sound.waitForSilence(lasting: 0.8, timeout: 30)
                func pitch(at p: (x: Double, y: Double)) throws -> Double {
                    let mark = sound.recordedSampleCount()
                    let nib = view.screen(p.x, p.y)
                    try display.down(nib.x, nib.y)
                    usleep(700_000)
                    try display.up()
                    let end = try sound.waitForSilence(lasting: 0.3)
                    let recording = try sound.recording()
                    let burst = try #require(
                        SignalAnalysis.bursts(
                            Array(recording[mark..<end]), threshold: 0.01, window: 48, minimumGap: 4800
                        ).max { $0.count < $1.count }, "no tone")
                    let middle = (mark + burst.lowerBound + 4800)..<(mark + burst.upperBound - 2400)
                    return try #require(
                        SignalAnalysis.steadyFrequency(recording[middle], sampleRate: SoundServer.sampleRate),
                        "no steady tone")
                }
                let ordinary = try pitch(at: neighbour)
                let doped = try pitch(at: (dopant["x"]!, dopant["y"]!))
                #expect(Foundation.log2(doped / ordinary) > 0.3, "the dopant \(doped) Hz, its neighbour \(ordinary) Hz")
                #expect(ordinary < 1000, "an ordinary column plays below the top: \(ordinary) Hz")
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func theTwoPolarDomainsSoundBrightAndDark() throws {
            let truth = try Self.json(Fixtures.repository + "/images/polar-domains.truth.json")
            let columns = try #require(truth["columns"] as? [[Double]])
            // A light column of the down domain near the left wall, in the middle row.
            let light = columns.filter { $0[2] == 2 && abs($0[1] - 192) < 11 && $0[4] > 0 && $0[0] < 192 }
            let first = try #require(light.max { $0[0] < $1[0] })
            let angle = 3.0 * Double.pi / 180, cell = 390.5 / 18
            // From the cell before it across the wall to three cells into the up domain.
            let centres = Self.row(
                from: (first[0], first[1]), a: (cell * cos(angle), cell * sin(angle)), before: 1, after: 3)
            let down = centres.map { c in
                columns.min { hypot($0[0] - c.x, $0[1] - c.y) < hypot($1[0] - c.x, $1[1] - c.y) }![4] > 0
            }
            #expect(down == [true, true, false, false, false])
            let points = [
                (centres[0].x - cell * cos(angle) / 2, centres[0].y - cell * sin(angle) / 2),
                (centres[4].x + cell * cos(angle) / 2, centres[4].y + cell * sin(angle) / 2)
            ]
            try sweep("polar-domains.dm4", mode: "6", through: points, ms: 2500) { heard, rendered in
                for notes in [heard, rendered] {
                    #expect(notes.count == 5, "\(notes.count) notes")
                    guard notes.count == 5 else { continue }
                    let centroids = notes.map { Spectrum.centroid($0, sampleRate: SoundServer.sampleRate, frame: 2048) }
                    let pitches = notes.compactMap {
                        SignalAnalysis.fundamental($0, sampleRate: SoundServer.sampleRate, range: 150...1000)
                    }
                    // As far displaced (15 pm of the full scale of 50: 220 Hz · 2^0.6), one way down and dark, the
                    // other up and bright.
                    #expect(pitches.allSatisfy { abs($0 / (220 * pow(2, 0.6)) - 1) < 0.03 }, "\(pitches)")
                    let dark = centroids[..<2], bright = centroids[2...]
                    #expect(dark.max()! * 1.5 < bright.min()!, "centroids \(centroids)")
                }
            }
        }
    }
}
