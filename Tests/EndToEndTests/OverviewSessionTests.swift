import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The overview in a session, on the real pen and sound server: its first sentence after the greeting; the whole
    /// image swept as long as the profile says, loud where it is bright, high and on the left where the brightness is
    /// high on the left; a row swept, changing where it leaves the crystal; the pen guided to the feature that stands
    /// out, the beeps coming faster as it nears, and "Here." on arrival; and `render` giving what was heard. One
    /// session, on PulseAudio, with a short sweep, to keep the suite's time.
    @Suite struct OverviewSessionTests {
        static let rate = SoundServer.sampleRate
        static let sweepLength = 1.5
        static let size = 384
        /// A square lattice (24 px turned 7°, σ 3.2 px) in the upper left quarter, one column of it half as bright
        /// again; a broad bright spot in the lower right corner; dark elsewhere, as vacuum is.
        static let scene: LatticeImage = {
            var scene = LatticeImage(
                .square, width: size, height: size, spacing: 24, angle: 7 * Double.pi / 180, origin: (12, 12),
                sigma: 3.2, peak: 20_000, background: 0, backgroundSlope: (0, 0), doseScale: 1, readNoise: 20,
                seed: 32, heightFactors: [LatticeImage.SiteIndex(i: 3, j: 3, site: 0): 1.5])
            scene.crystal = ImagePolygon([
                ImagePoint(x: -0.5, y: -0.5), ImagePoint(x: 191.5, y: -0.5), ImagePoint(x: 191.5, y: 191.5),
                ImagePoint(x: -0.5, y: 191.5)
            ])
            scene.blobs = [LatticeImage.Blob(x: 372, y: 372, height: 20_000, sigma: 14)]
            return scene
        }()

        /// The column half as bright again as the rest (image pixels).
        static var dopant: (x: Double, y: Double) {
            let column = scene.columns.first { $0.height > 25_000 }!
            return (column.x, column.y)
        }

        static func write(_ image: GrayImage, to path: String) throws {
            let png = TestPNG(
                width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                samples: image.samples.map { UInt16($0) })
            try Data(png.bytes).write(to: URL(fileURLWithPath: path))
        }

        /// The loud stretches of a sound (RMS over 10 ms above −50 dBFS), gaps shorter than `gap` seconds bridged.
        static func stretches(_ x: ArraySlice<Float>, gap: Double) -> [Range<Int>] {
            SignalAnalysis.bursts(Array(x), threshold: 0.003, window: 480, minimumGap: Int(gap * rate)).map {
                (x.startIndex + $0.lowerBound)..<(x.startIndex + $0.upperBound)
            }
        }

        /// How many beeps sound in a stretch of the guide alone.
        static func beeps(_ x: ArraySlice<Float>) -> Int {
            SignalAnalysis.bursts(Array(x), threshold: 0.01, window: 48, minimumGap: 480).count
        }

        /// What is measured of one session's sound, heard or rendered alike.
        struct Heard: Equatable {
            /// The image sweep: its two loud parts (the lattice, the spot), from the first's start to the second's end.
            var sweepSeconds: Double
            var latticeCentroid: Double, spotCentroid: Double
            /// Left over right, RMS.
            var latticeBalance: Double, spotBalance: Double
            /// The quiet between them, over the lattice's loudness.
            var darkOverBright: Double
            /// The row: how long it sounds, and its centroid within the crystal and beyond it.
            var rowSeconds: Double
            var rowInside: Double, rowBeyond: Double
            /// Beeps in a second, far, nearer and near the feature.
            var beeps: [Int]
        }

        /// Measures a session's sound: `left` and `right`, the image sweep from `sweep`, the row sweep from `row`, and
        /// the guide from each of `guided` (sample indices).
        static func measure(
            left: [Float], right: [Float], sweep: Int, row: Int, guided: [Int]
        ) throws -> Heard {
            let mono = zip(left, right).map { ($0 + $1) / 2 }
            let length = Int(sweepLength * rate)
            let swept = stretches(mono[sweep..<min(mono.count, sweep + length + Int(0.3 * rate))], gap: 0.2)
            try #require(swept.count == 2, "the lattice and the spot, apart: \(swept)")
            let lattice = swept[0], spot = swept[1]
            func balance(_ r: Range<Int>) -> Double {
                SignalAnalysis.rms(left[r]) / max(SignalAnalysis.rms(right[r]), 1e-9)
            }
            let dark = (lattice.upperBound + 2400)..<(spot.lowerBound - 2400)
            let rowSound = stretches(mono[row..<min(mono.count, row + length + Int(0.3 * rate))], gap: 0.05)
            try #require(rowSound.count == 1, "the row sounds throughout: \(rowSound)")
            let rowRange = rowSound[0]
            let inside = (rowRange.lowerBound + rowRange.count / 10)..<(rowRange.lowerBound + rowRange.count * 9 / 20)
            let beyond = (rowRange.lowerBound + rowRange.count * 11 / 20)..<(rowRange.upperBound - rowRange.count / 10)
            return Heard(
                sweepSeconds: Double(spot.upperBound - lattice.lowerBound) / rate,
                latticeCentroid: Spectrum.centroid(mono[lattice], sampleRate: rate, frame: 2048),
                spotCentroid: Spectrum.centroid(mono[spot], sampleRate: rate, frame: 2048),
                latticeBalance: balance(lattice), spotBalance: balance(spot),
                darkOverBright: SignalAnalysis.rms(mono[dark]) / SignalAnalysis.rms(mono[lattice]),
                rowSeconds: Double(rowRange.count) / rate,
                rowInside: Spectrum.centroid(mono[inside], sampleRate: rate, frame: 2048),
                rowBeyond: Spectrum.centroid(mono[beyond], sampleRate: rate, frame: 2048),
                beeps: guided.map { beeps(mono[($0 + 4800)..<($0 + 4800 + Int(rate))]) })
        }

        @Test func theOverviewIsSpokenSweptAndGuidedToAsHeardAndRendered() throws {
            try withServers("overview-play") { display, sound, folder in
                let imagePath = folder + "/quarter-lattice.png"
                try Self.write(Self.scene.render(), to: imagePath)
                let profile = folder + "/short-sweeps.toml"
                try "description = \"Sweeps of a second and a half\"\n[sweep]\nlength = \(Self.sweepLength)\n"
                    .write(toFile: profile, atomically: true, encoding: .utf8)
                let session = try RunningPlay(
                    image: imagePath, display: display, sound: sound, folder: folder,
                    arguments: ["--profile", profile])
                defer { session.stop() }
                let view = try session.waitUntilShown()
                func screen(_ x: Double, _ y: Double) -> String { view.point(x, y) }

                // The greeting, and once the columns are read, the overview's first sentence after it.
                try waitFor("the overview's first sentence", timeout: 30) {
                    (try? session.records(ofType: "speech"))?.contains { $0["after"] as? Bool == true } == true
                }
                let speech = try session.records(ofType: "speech")
                #expect(speech.count == 2 && speech[0]["after"] == nil, "\(speech)")
                let summary = speech.last?["text"] as? String ?? ""
                #expect(summary.hasPrefix("Square lattice covering the upper left corner of the image"), "\(summary)")
                try sound.waitForSilence()

                // The whole image, swept: two loud parts, then quiet.
                let sweepMark = sound.recordedSampleCount()
                try display.key("s")
                usleep(UInt32((Self.sweepLength + 0.6) * 1_000_000))

                // The row through the bright column, the pen hovering on it.
                try display.pen("hover", screen(100, Self.dopant.y))
                usleep(200_000)
                let rowMark = sound.recordedSampleCount()
                try display.key("x")
                usleep(UInt32((Self.sweepLength + 0.6) * 1_000_000))

                // The bright column, gone to from the lower right: its name, and beeps from the upper left.
                let far = (x: 330.0, y: 330.0)
                try display.pen("hover", screen(far.x, far.y))
                try display.pen("button", "2", "--double", "--at", screen(far.x, far.y), "--hover")
                try waitFor("the feature's name", timeout: 5) {
                    (try? session.spokenTexts())?.last == "Bright column 1 of 1, upper left."
                }
                let guide = try #require(try session.records(ofType: "guide").last)
                let target = (x: guide["ix"] as? Double ?? 0, y: guide["iy"] as? Double ?? 0)
                #expect(hypot(target.x - Self.dopant.x, target.y - Self.dopant.y) < 2, "\(guide)")
                // "Here." within a third of the spacing (24 pixels).
                #expect(abs((guide["radius"] as? Double ?? 0) - 8) < 0.2)
                #expect(try session.records(ofType: "cursor").first?["ix"] as? Double == target.x)
                usleep(1_200_000)
                // Far, nearer and near, a second and a half each along the way to it.
                let distance = hypot(far.x - target.x, far.y - target.y)
                var guided: [Int] = []
                var places: [(x: Double, y: Double)] = []
                for d in [distance - 10, 100, 40] {
                    let u = d / distance
                    places.append((target.x + u * (far.x - target.x), target.y + u * (far.y - target.y)))
                    try display.pen("hover", screen(places.last!.x, places.last!.y))
                    guided.append(sound.recordedSampleCount())
                    usleep(1_500_000)
                }
                // Next door, 0.6 spacings away: no "Here.".
                try display.pen("hover", screen(target.x + 0.6 * 24, target.y))
                usleep(800_000)
                #expect(try session.spokenTexts().last != "Here.")
                // There, 0.15 spacings away: "Here.", and the beeps give way to the arrival cue: two quiet high
                // beeps a second in the middle.
                // (The cue sounds on while the nib stays: the sink is never silent, so the word is let pass by time.)
                try display.pen("hover", screen(target.x + 0.15 * 24, target.y))
                try waitFor("Here.", timeout: 5) { (try? session.spokenTexts())?.last == "Here." }
                let heardAt = sound.recordedSampleCount()
                usleep(2_400_000)
                let (cueLeft, cueRight) = try sound.stereoRecording()
                let cue = (heardAt + Int(0.9 * Self.rate))..<(heardAt + Int(2.1 * Self.rate))
                let cueMono = zip(cueLeft[cue], cueRight[cue]).map { ($0 + $1) / 2 }
                #expect(Self.beeps(cueMono[...]) >= 2 && Self.beeps(cueMono[...]) <= 3, "\(Self.beeps(cueMono[...]))")
                #expect(
                    Spectrum.amplitude(cueMono[...], at: 3000, sampleRate: Self.rate)
                        > 4 * Spectrum.amplitude(cueMono[...], at: 1000, sampleRate: Self.rate))
                let approach = (guided[2] + 4800)..<(guided[2] + 4800 + Int(Self.rate))
                let nearMono = zip(cueLeft[approach], cueRight[approach]).map { ($0 + $1) / 2 }
                #expect(SignalAnalysis.peak(cueMono[...]) < 0.6 * SignalAnalysis.peak(nearMono[...]))
                // "Where am I" there names the column.
                try display.key("space")
                try waitFor("where am I naming the bright column", timeout: 5) {
                    (try? session.spokenTexts())?.last?.contains(", bright column 1 of 1, 1.") == true
                }
                #expect(try session.quitWithKey() == 0)

                let (left, right) = try sound.stereoRecording()
                let heard = try Self.measure(left: left, right: right, sweep: sweepMark, row: rowMark, guided: guided)
                // As long as the profile says; the lattice high and on the left, the spot low and on the right, the
                // dark between quiet.
                #expect(abs(heard.sweepSeconds - Self.sweepLength) < 0.08, "\(heard)")
                #expect(heard.latticeCentroid > 1000 && heard.spotCentroid < 400, "\(heard)")
                #expect(heard.latticeBalance > 1.5 && heard.spotBalance < 0.5, "\(heard)")
                #expect(heard.darkOverBright < 0.02, "\(heard)")
                // The row sounds throughout, its columns' high notes within the crystal, the dark's low one beyond.
                #expect(abs(heard.rowSeconds - Self.sweepLength) < 0.05, "\(heard)")
                #expect(heard.rowInside > 2 * heard.rowBeyond && heard.rowBeyond < 200, "\(heard)")
                // Faster as the nib nears; heard on the left (the column is up and to the left), higher than the
                // guide's middle pitch.
                #expect(heard.beeps[0] < heard.beeps[1] && heard.beeps[1] < heard.beeps[2], "\(heard)")
                let near = (guided[2] + 4800)..<(guided[2] + 4800 + Int(Self.rate))
                #expect(SignalAnalysis.rms(left[near]) > 2 * SignalAnalysis.rms(right[near]))
                let pitch = Spectrum.amplitude(left[near], at: 1000 * pow(2, 0.5.squareRoot()), sampleRate: Self.rate)
                #expect(pitch > 2 * Spectrum.amplitude(left[near], at: 1000, sampleRate: Self.rate))

                // Rendered from the log, the same.
                let wavPath = folder + "/session.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary,
                    ["render", imagePath, "--session", session.logPath, "--out", wavPath, "--profile", profile])
                #expect(rendered.status == 0, "\(rendered.output)")
                let wav = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath))))
                let start = try #require(try session.records(ofType: "start").first?["t"] as? Double)
                func frame(_ t: Any?) -> Int { Int((((t as? Double) ?? 0) - start) * Self.rate) }
                let sweeps = try session.records(ofType: "sweep")
                #expect(sweeps.map { $0["kind"] as? String } == ["image", "row"], "\(sweeps)")
                #expect(sweeps.last?["index"] as? Int == Int(Self.dopant.y.rounded()))
                // Where the log has the pen reach each place.
                let pens = try session.records(ofType: "pen")
                let hovers = try places.map { place in
                    try #require(
                        pens.first {
                            hypot(($0["ix"] as? Double ?? 0) - place.x, ($0["iy"] as? Double ?? 0) - place.y) < 0.5
                        }.map { frame($0["t"]) })
                }
                let replayed = try Self.measure(
                    left: wav.channel(0), right: wav.channel(1), sweep: frame(sweeps[0]["t"]),
                    row: frame(sweeps[1]["t"]), guided: hovers)
                #expect(abs(replayed.sweepSeconds - heard.sweepSeconds) < 0.03, "\(replayed) against \(heard)")
                #expect(abs(replayed.rowSeconds - heard.rowSeconds) < 0.03, "\(replayed) against \(heard)")
                #expect(
                    zip(replayed.beeps, heard.beeps).allSatisfy { abs($0 - $1) <= 1 }, "\(replayed) against \(heard)")
                #expect(abs(replayed.latticeCentroid / heard.latticeCentroid - 1) < 0.1)
                #expect(abs(replayed.spotCentroid / heard.spotCentroid - 1) < 0.1)
                let here = try #require(try session.records(ofType: "speech").last { $0["text"] as? String == "Here." })
                let said = wav.channel(0)[frame(here["t"])..<(frame(here["t"]) + Int(0.5 * Self.rate))]
                #expect(SignalAnalysis.rms(said) > 0.01, "the render says Here. where it was said")
            }
        }
    }
}
