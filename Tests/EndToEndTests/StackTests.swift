import Foundation
import SampleWriters
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// A stack played frame by frame: HyperSpy's synthetic series, a Gaussian blob drifting one pixel a frame to the
    /// right (`synthetic_image_stack.truth.json`).
    @Suite struct StackTests {
        static let path = SharedFormats.folder + "/spectra/synthetic_image_stack.hspy"

        static func truth() throws -> [String: Any] {
            let data = try Data(
                contentsOf: URL(fileURLWithPath: SharedFormats.folder + "/spectra/synthetic_image_stack.truth.json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        /// The truth's expected counts at pixel (x, y) of frame `frame` (from 0), before the Poisson noise.
        static func expected(_ truth: [String: Any], frame: Int, x: Int, y: Int) throws -> Double {
            let centres = try #require(truth["centres"] as? [[String: Any]])
            let centre = centres[frame]
            let (cx, cy) = (centre["x_px"] as! Double, centre["y_px"] as! Double)
            let sigma = truth["sigma_px"] as! Double
            let d2 = (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)
            return (truth["background"] as! Double) + (truth["amplitude"] as! Double) * exp(-d2 / (2 * sigma * sigma))
        }

        /// On the real pen and sound server: the keys step to frame 2, the last and the first, each said; the pen on
        /// one pixel, four pixels right of the blob's start, sounds what each frame holds there — brighter as the blob
        /// comes, darker once it has gone by — and `render` sounds the same.
        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func theKeysStepThroughTheFramesAndThePenPlaysEach() throws {
            let truth = try Self.truth()
            let (px, py) = (24, 32)
            try withServers("stack") { display, sound, folder in
                let session = try RunningPlay(image: Self.path, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let viewport = try session.waitUntilShown()
                try session.waitForGreeting()
                let (x, y) = viewport.screen(Double(px), Double(py))
                /// Presses `key`, waits for what it says, then touches the pixel for 0.8 s: the tone heard.
                func step(_ key: String) throws -> (said: Range<Int>, pitch: Double?) {
                    var mark = sound.recordedSampleCount()
                    try display.key(key)
                    let said = try sound.waitForUtterance(after: mark)
                    mark = sound.recordedSampleCount()
                    try display.down(x, y)
                    usleep(800_000)
                    try display.up()
                    let end = try sound.waitForSilence(lasting: 0.3)
                    let recording = try sound.recording()
                    let burst = SignalAnalysis.bursts(
                        Array(recording[mark..<end]), threshold: 0.01, window: 48, minimumGap: 4800
                    ).max { $0.count < $1.count }
                    let pitch = burst.flatMap { burst in
                        SignalAnalysis.steadyFrequency(
                            recording[(mark + burst.lowerBound + 4800)..<(mark + burst.upperBound - 2400)],
                            sampleRate: SoundServer.sampleRate)
                    }
                    return (said, pitch)
                }
                let steps = try ["Next", "End", "Home"].map(step)
                // The overview's summary ends with what changes across the frames: the blob's drift, one pixel of
                // 0.24 nanometres a frame.
                let mark = sound.recordedSampleCount()
                try display.key("d")
                _ = try sound.waitForUtterance(after: mark)
                #expect(try session.quitWithKey() == 0)
                let summary = try #require(try session.spokenTexts().last { $0.contains("drifts") })
                #expect(summary.contains("drifts 2.6 nanometres towards the right (0.24 a frame)"), "\(summary)")

                // Said: in the log, and heard as speech.
                let spoken = try session.spokenTexts()
                for text in ["Frame 2 of 12, 0.5 seconds.", "Frame 12 of 12, 5.5 seconds.", "Frame 1 of 12, 0 seconds."]
                {
                    #expect(spoken.contains(text), "\(spoken)")
                }
                let recording = try sound.recording()
                for step in steps {
                    #expect(
                        SignalAnalysis.looksLikeSpeech(recording[step.said], sampleRate: SoundServer.sampleRate))
                }
                #expect(try session.records(ofType: "frame").map { $0["number"] as? Int } == [2, 12, 1])

                // The pen read each frame's own pixel, as the truth has it (within the Poisson noise), and sounded
                // the frequency it logged.
                let touches = try session.records(ofType: "pen").filter {
                    ($0["buttons"] as! [Int]).contains(1) && $0["inImage"] as? Bool == true
                }
                var logged: [Double] = []
                for (index, frame) in [1, 11, 0].enumerated() {
                    let wanted = try Self.expected(truth, frame: frame, x: px, y: py)
                    let frameTime = try session.records(ofType: "frame")[index]["t"] as! Double
                    let touch = try #require(touches.first { ($0["t"] as! Double) > frameTime })
                    let sample = touch["sample"] as! Double
                    #expect(
                        abs(sample - wanted) < 5 * wanted.squareRoot(), "frame \(frame + 1): \(sample), truth \(wanted)"
                    )
                    logged.append(touch["frequency"] as! Double)
                }
                let heard = steps.map { $0.pitch ?? 0 }
                for (pitch, frequency) in zip(heard, logged) {
                    #expect(abs(pitch / frequency - 1) < 0.01, "heard \(heard), logged \(logged)")
                }
                // Four pixels right of the blob's start: brighter in frame 2 (three pixels from its centre) than
                // in frame 1, darkest in frame 12, seven pixels past it.
                #expect(heard[0] > heard[2] && heard[2] > heard[1], "\(heard)")

                // The render sounds the same pitches at the logged times.
                let wavPath = folder + "/stack.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary, ["render", Self.path, "--session", session.logPath, "--out", wavPath], timeout: 120
                )
                #expect(rendered.status == 0, "\(rendered.output)")
                let left = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath)))).channel(0)
                let start = try #require(try session.records(ofType: "start").first?["t"] as? Double)
                for (index, frequency) in logged.enumerated() {
                    let frameTime = try session.records(ofType: "frame")[index]["t"] as! Double
                    let down = try #require(touches.first { ($0["t"] as! Double) > frameTime }?["t"] as? Double)
                    let at = Int((down - start) * SoundServer.sampleRate)
                    let pitch = SignalAnalysis.steadyFrequency(
                        left[(at + 9600)..<(at + 28_800)], sampleRate: SoundServer.sampleRate)
                    #expect(abs((pitch ?? 0) / frequency - 1) < 0.005, "rendered \(pitch ?? 0), logged \(frequency)")
                }
            }
        }

        /// `columns --frame N` finds the columns of frame N: a square lattice drifting 3.4 pixels a frame to the right,
        /// written as a DigitalMicrograph series of three frames, each frame's columns where the lattice put them; bad
        /// frames are one line.
        @Test func columnsOfAFrameAreWhereTheLatticeDriftedThem() throws {
            let folder = try Fixtures.scratch("stack-columns")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let frames = (0..<3).map { k in
                LatticeImage(
                    width: 96, height: 96, a: (16, 0), b: (0, 16), origin: (10.3 + 3.4 * Double(k), 12.6),
                    sites: [LatticeImage.Site(u: 0, v: 0, height: 3000)], sigma: 2.2, background: 1000,
                    backgroundSlope: (0, 0), doseScale: 1, readNoise: 10, seed: 40 + UInt64(k))
            }
            let path = folder + "/drift.dm4"
            let nanometres = SampleDM.Axis(scale: 0.02, units: "nm")
            try Data(
                SampleDM(images: [
                    .init(
                        title: "drift", dimensions: [96, 96, 3], dataType: .uint16,
                        values: frames.flatMap { $0.render().samples.map { Double($0.rounded()) } },
                        axes: [nanometres, nanometres, SampleDM.Axis(scale: 2, units: "s")])
                ]).bytes
            ).write(to: URL(fileURLWithPath: path))
            for (index, frame) in frames.enumerated() {
                let result = try Subprocess.run(
                    Fixtures.binary, ["columns", path, "--frame", String(index + 1), "--json"], timeout: 120)
                try #require(result.status == 0, "\(result.output)")
                let report = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                let found = try #require(report["columns"] as? [[String: Any]]).map {
                    (x: $0["x"] as? Double ?? .nan, y: $0["y"] as? Double ?? .nan)
                }
                // Every column of the frame well inside the image is found within a tenth of a pixel.
                let inner = frame.columns.filter { $0.x > 8 && $0.x < 88 && $0.y > 8 && $0.y < 88 }
                #expect(inner.count >= 16)
                for column in inner {
                    let nearest = found.map { hypot($0.x - column.x, $0.y - column.y) }.min() ?? .infinity
                    #expect(nearest < 0.1, "frame \(index + 1): no column found at \(column), nearest \(nearest) away")
                }
            }
            let averaged = try Subprocess.run(
                Fixtures.binary, ["columns", path, "--frames", "mean", "--csv"], timeout: 120)
            #expect(averaged.status == 0 && averaged.output.split(separator: "\n").count > 16, "\(averaged.output)")
            for (arguments, status, fault) in [
                (["--frame", "4"], 2, "there is no frame 4: the stack has 3"),
                (["--frame", "0"], 64, "--frame counts from 1"),
                (["--frame", "2", "--frames", "sum"], 64, "choose --frame or --frames, not both"),
                (["--frames", "max"], 64, "'max' is invalid for '--frames")
            ] {
                let result = try Subprocess.run(Fixtures.binary, ["columns", path] + arguments, timeout: 60)
                #expect(
                    result.status == Int32(status) && result.output.contains(fault), "\(arguments): \(result.output)")
            }
            // A log stepping past the stack's frames, or through an image's, does not render.
            for (image, width, fault) in [
                (path, 96, "the session played frame 4, and image 1 of \(path) has 3"),
                (Fixtures.repository + "/images/atomic-lattice.png", 384, "has no frames")
            ] {
                let log = [
                    #"{"type":"start","t":1,"image":"x","width":\#(width),"height":\#(width),"bitDepth":16,"profile":"default","sampleRate":48000}"#,
                    #"{"type":"frame","t":2,"number":4}"#
                ].joined(separator: "\n")
                try log.write(toFile: folder + "/log.jsonl", atomically: true, encoding: .utf8)
                let result = try Subprocess.run(
                    Fixtures.binary,
                    ["render", image, "--session", folder + "/log.jsonl", "--out", folder + "/out.wav"],
                    timeout: 60)
                #expect(
                    result.status == 2 && result.output.contains(fault)
                        && result.output.split(separator: "\n").count == 1, "\(result.output)")
            }
            // A session that played the frames' mean renders from the mean.
            try
                #"{"type":"start","t":1,"image":"x","width":96,"height":96,"bitDepth":32,"sampleType":"float32","profile":"default","sampleRate":48000,"frames":"mean"}"#
                .write(toFile: folder + "/mean.jsonl", atomically: true, encoding: .utf8)
            let mean = try Subprocess.run(
                Fixtures.binary, ["render", path, "--session", folder + "/mean.jsonl", "--out", folder + "/mean.wav"],
                timeout: 60)
            #expect(mean.status == 0, "\(mean.output)")
            let image = Fixtures.repository + "/images/atomic-lattice.png"
            let notStack = try Subprocess.run(Fixtures.binary, ["columns", image, "--frame", "2"], timeout: 60)
            #expect(
                notStack.status == 2 && notStack.output.contains("image 1 is not a stack")
                    && notStack.output.split(separator: "\n").count == 1, "\(notStack.output)")
        }
    }
}
