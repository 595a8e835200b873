import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The strain mode and the diffractogram view on the real pen and sound: a crystal cut by a coherent interface,
    /// stretched 3 % across it on its right.
    @Suite struct StrainAndDiffractogramTests {
        static let rate = SoundServer.sampleRate

        @Test func theStretchedSideSoundsHigherAndTheDiffractogramsReflectionsAreHeardAndNamed() throws {
            try withServers("strain-diffractogram") { display, sound, folder in
                let sample = StrainSamples.sample(.interface, .low)
                let image = sample.render()
                let path = folder + "/interface.png"
                let png = TestPNG(
                    width: image.width, height: image.height, bitDepth: 16, colourType: .gray,
                    samples: image.samples.map { UInt16($0) })
                try Data(png.bytes).write(to: URL(fileURLWithPath: path))
                // Where its strongest reflection lies, found before the session so as not to take the cores from it.
                let diffractogram = Diffractogram(image: image)
                let strongest = try #require(diffractogram.reflections.first)
                let spot = diffractogram.point(for: strongest.g)
                // Halfway between two reflections of the lattice: background.
                let grain = try #require(diffractogram.grains.first)
                let between = diffractogram.point(
                    for: PixelVector(x: (grain.g1.x + grain.g2.x) / 2, y: (grain.g1.y + grain.g2.y) / 2))
                let session = try RunningPlay(
                    image: path, display: display, sound: sound, folder: folder + "/session",
                    arguments: ["--profile", "analysis", "--pixel-size", "\(StrainSamples.pixelPicometres)pm"])
                defer { session.stop() }
                let view = try session.waitUntilShown()
                try session.waitForGreeting()
                try waitFor("the lattice", timeout: 60) { (try? session.records(ofType: "lattice"))?.isEmpty == false }
                func screen(_ x: Double, _ y: Double) -> (Double, Double) { view.screen(x, y) }
                /// Presses the key and waits until what it says has been said.
                func press(_ key: String) throws {
                    try sound.waitForSilence()
                    let mark = sound.recordedSampleCount()
                    try display.key(key)
                    try sound.waitForUtterance(after: mark)
                }
                /// The steady pitch of a touch on image point (x, y).
                func pitch(_ x: Double, _ y: Double) throws -> Double {
                    try sound.waitForSilence()
                    let mark = sound.recordedSampleCount()
                    let (sx, sy) = screen(x, y)
                    try display.down(sx, sy, pressure: 0.6)
                    let settled = mark + Int(0.3 * Self.rate), window = Int(0.3 * Self.rate)
                    try waitFor("the tone", timeout: 5) { sound.recordedSampleCount() > settled + window }
                    try display.up()
                    let tone = try sound.recording()[settled..<settled + window]
                    return try #require(SignalAnalysis.steadyFrequency(tone, sampleRate: Self.rate), "no steady tone")
                }

                // The strain mode: a column on the unstretched side, and one on the stretched side.
                try press("7")
                #expect(try session.spokenTexts().last == "Mode 7, lattice strain.")
                func column(near x: Double) throws -> ImagePoint {
                    try #require(
                        sample.truth.columns.map(\.position).min {
                            abs($0.x - x) + abs($0.y - 256) < abs($1.x - x) + abs($1.y - 256)
                        })
                }
                let unstretched = try column(near: 130), stretched = try column(near: 400)
                let low = try pitch(unstretched.x, unstretched.y), high = try pitch(stretched.x, stretched.y)
                // A dilatation 1.5 % larger: three quarters of an octave higher.
                let octaves = Foundation.log2(high / low)
                #expect(octaves > 0.5 && octaves < 1, "\(low) Hz, then \(high) Hz")

                // The row through both sides, swept: the strain along it, a step in pitch where the interface crosses
                // it, a little right of the middle.
                let (hx, hy) = screen(200, 256)
                try display.pen("hover", "\(hx),\(hy)")
                try sound.waitForSilence()
                let sweepMark = sound.recordedSampleCount()
                try display.key("x")
                usleep(3_600_000)
                #expect(try session.records(ofType: "sweep").last?["index"] as? Int == 256)
                let swept = try sound.recording()
                let onset = try #require(swept[sweepMark...].firstIndex { abs($0) > 0.01 })
                let length = 3 * Self.rate
                func sweptPitch(_ from: Double, _ to: Double) throws -> Double {
                    let part = swept[(onset + Int(from * length))..<(onset + Int(to * length))]
                    return try #require(SignalAnalysis.steadyFrequency(part, sampleRate: Self.rate), "no steady tone")
                }
                let left = try sweptPitch(0.1, 0.4), right = try sweptPitch(0.65, 0.95)
                let step = Foundation.log2(right / left)
                #expect(step > 0.5 && step < 1, "\(left) Hz, then \(right) Hz")

                // The diffractogram: said, and played as an image, a reflection higher than the background.
                try press("f")
                let shown = try session.spokenTexts().last ?? ""
                #expect(shown.hasPrefix("Diffractogram, ") && shown.hasSuffix(" reflections."), "\(shown)")
                #expect(try session.records(ofType: "view").last?["shows"] as? String == "diffractogram")
                let onSpot = try pitch(spot.x, spot.y), onBackground = try pitch(between.x, between.y)
                #expect(onSpot > 1.5 * onBackground, "\(onSpot) Hz on the reflection, \(onBackground) Hz beside")
                // Where am I, the pen over the spot, names the reflection.
                let (sx, sy) = screen(spot.x, spot.y)
                try display.pen("hover", "\(sx),\(sy)")
                try press("space")
                let said = try session.spokenTexts().last ?? ""
                #expect(said.hasPrefix("reflection ") && said.contains(" picometres along "), "\(said)")

                // The key again: the image.
                try press("f")
                #expect(try session.spokenTexts().last == "Image.")
                #expect(try session.records(ofType: "view").last?["shows"] as? String == "image")
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
