import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The spectrum mode on the real pen and sound server: the pen on the two halves of the synthetic EDS spectrum
    /// image (titanium on the left; strontium and oxygen on the right) sounds two different spectra, each loudest
    /// in the bands the documented mapping puts its lines in; "where am I" names the line under the pen; the map
    /// of titanium's window (`--element Ti`) plays and shows meanwhile; and `render` gives what was heard.
    @Suite struct SpectrumSessionTests {
        static let rate = SoundServer.sampleRate

        /// The documented mapping: the 0–10.24 keV axis cut into 48 equal bands, band b sounding at
        /// 100 · 50^((b + ½) / 48) Hz.
        static func frequency(keV energy: Double) -> Double {
            let band = min(47, Int(energy / 10.24 * 48))
            return 100 * pow(50, (Double(band) + 0.5) / 48)
        }

        /// Titanium Kα's band, and strontium Lα's, in a second of sound from `start`.
        static func bands(_ sound: [Float], from start: Int) -> (titanium: Double, strontium: Double) {
            let steady = sound[(start + Int(0.3 * rate))..<(start + Int(1.3 * rate))]
            return (
                Spectrum.amplitude(steady, at: frequency(keV: 4.51), sampleRate: rate),
                Spectrum.amplitude(steady, at: frequency(keV: 1.806), sampleRate: rate)
            )
        }

        @Test(.disabled(if: SharedFormats.skip, "the real microscope files are not beside the repository"))
        func thePenOnTwoCompositionsSoundsTwoSpectraAsHeardAndRendered() throws {
            try withServers("spectrum-play") { display, sound, folder in
                let imagePath = SharedFormats.folder + "/spectra/synthetic_eds_si.hspy"
                let session = try RunningPlay(
                    image: imagePath, display: display, sound: sound, folder: folder, arguments: ["--element", "Ti"])
                defer { session.stop() }
                let view = try session.waitUntilShown()
                try session.waitForGreeting()
                let greeting = try session.spokenTexts().first ?? ""
                #expect(greeting.contains("Window 4.4 to 4.63 kilo electron volts, titanium K alpha."), "\(greeting)")
                let window = try #require(try session.records(ofType: "window").first)
                #expect(window["start"] as? Double ?? 0 > 4.39 && window["end"] as? Double ?? 0 < 4.63, "\(window)")
                func screen(_ x: Double, _ y: Double) -> (Double, Double) { view.screen(x, y) }
                // The spectrum mode comes after the default profile's four.
                try display.key("5")
                try waitFor("the spectrum mode", timeout: 5) {
                    (try? session.spokenTexts())?.last == "Mode 5, spectrum."
                }
                _ = try sound.waitForSilence()

                // Half pressure: the spectra within 2 pixels, on the left half and then on the right.
                let left = screen(10, 20), right = screen(37, 20)
                let leftMark = sound.recordedSampleCount()
                try display.down(left.0, left.1, pressure: 0.5)
                usleep(1_500_000)
                let rightMark = sound.recordedSampleCount()
                try display.move(right.0, right.1)
                usleep(1_500_000)
                try display.key("space")
                try waitFor("where am I", timeout: 5) {
                    (try? session.spokenTexts())?.last?.contains("Peak") == true
                }
                let said = try session.spokenTexts().last ?? ""
                #expect(said.contains("strontium L alpha") && !said.contains("titanium"), "\(said)")
                try display.up()
                _ = try sound.waitForSilence()

                // The window keys: up by its width, then wider around its middle; each change spoken, and logged once
                // its map is made (a change that comes first would take the place of a map still being made).
                for key in ["bracketright", "braceright"] {
                    let (spokenBefore, windowsBefore) = (
                        try session.spokenTexts().count, try session.records(ofType: "window").count
                    )
                    try display.key(key)
                    try waitFor("the window after \(key)", timeout: 5) {
                        (try? session.spokenTexts())?.dropFirst(spokenBefore).contains { $0.hasPrefix("Window ") }
                            == true
                    }
                    try waitFor("the window's map after \(key)", timeout: 20) {
                        ((try? session.records(ofType: "window")) ?? []).count > windowsBefore
                    }
                }
                let windows = try session.records(ofType: "window").compactMap { record in
                    (record["start"] as? Double).flatMap { start in (record["end"] as? Double).map { (start, $0) } }
                }
                #expect(windows.count == 3, "\(windows)")
                if windows.count == 3 {
                    let widths = windows.map { $0.1 - $0.0 }, middles = windows.map { ($0.0 + $0.1) / 2 }
                    #expect(abs(windows[1].0 - windows[0].1) < 1e-9 && abs(widths[1] - widths[0]) < 1e-9, "\(windows)")
                    #expect(abs(middles[2] - middles[1]) < 0.011 && widths[2] > widths[1] * 1.2, "\(windows)")
                }
                _ = try sound.waitForSilence()
                #expect(try session.quitWithKey() == 0)

                // Heard: titanium's band louder on the left, strontium's on the right.
                let (heardLeft, heardRight) = try sound.stereoRecording()
                let heard = zip(heardLeft, heardRight).map { ($0 + $1) / 2 }
                let onLeft = Self.bands(heard, from: leftMark), onRight = Self.bands(heard, from: rightMark)
                #expect(onLeft.titanium > 2 * onRight.titanium, "\(onLeft) against \(onRight)")
                #expect(onRight.strontium > 1.5 * onLeft.strontium, "\(onRight) against \(onLeft)")
                #expect(onLeft.titanium > 0.005, "\(onLeft)")
                let spectra = try session.records(ofType: "spectrum")
                #expect(spectra.first?["px"] as? Int == 10 && spectra.first?["radius"] as? Int == 2, "\(spectra)")
                #expect(spectra.contains { $0["px"] as? Int == 37 }, "\(spectra)")

                // Rendered from the log: the same bands, as loud.
                let wavPath = folder + "/session.wav"
                let rendered = try Subprocess.run(
                    Fixtures.binary, ["render", imagePath, "--session", session.logPath, "--out", wavPath])
                #expect(rendered.status == 0, "\(rendered.output)")
                let wav = try WAVFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: wavPath))))
                let mono = zip(wav.channel(0), wav.channel(1)).map { ($0 + $1) / 2 }
                let start = try #require(try session.records(ofType: "start").first?["t"] as? Double)
                let touches = try session.records(ofType: "pen").filter {
                    ($0["buttons"] as? [Int])?.contains(1) == true
                }
                func frame(firstWhere isHere: (Double) -> Bool) throws -> Int {
                    let pen = try #require(touches.first { isHere($0["ix"] as? Double ?? -1) })
                    return Int(((pen["t"] as? Double ?? 0) - start) * Self.rate)
                }
                let renderedLeft = Self.bands(mono, from: try frame { $0 < 24 })
                let renderedRight = Self.bands(mono, from: try frame { $0 >= 24 })
                for (live, replayed) in [(onLeft, renderedLeft), (onRight, renderedRight)] {
                    #expect(abs(replayed.titanium / live.titanium - 1) < 0.15, "\(replayed) against \(live)")
                    #expect(abs(replayed.strontium / live.strontium - 1) < 0.15, "\(replayed) against \(live)")
                }
            }
        }
    }
}
