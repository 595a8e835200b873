import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// A whole WAV file in memory, as the render command streams it.
func wav(_ samples: [Float], format: WAVEncoder.Format, large: Bool = false) -> [UInt8] {
    var bytes = WAVEncoder.header(
        frames: samples.count / 2, channels: 2, sampleRate: 48000, format: format, large: large)
    samples.withUnsafeBufferPointer { WAVEncoder.append($0, format: format, to: &bytes) }
    return bytes
}

/// A session replayed whole, its sound collected.
func replayed(
    _ records: [SessionRecord], start: StartRecord, image: GrayImage, profile: Profile = .plainMapping,
    speech: SpeechSynthesis? = nil
) -> [Float] {
    let replay = SessionReplay(image: image, profile: profile, sampleRate: 48000, speech: speech, start: start)
    var sound: [Float] = []
    for record in records { replay.play(record) { sound += $0 } }
    replay.finish { sound += $0 }
    return sound
}

@Suite struct RenderTests {
    @Test func wavFilesCarryTheSamplesExactly() throws {
        let samples: [Float] = [0, 0.5, -0.5, 1, -1, 0.25, 2, -3]
        let float = try WAVFile(bytes: wav(samples, format: .float32))
        #expect(float.isFloat && float.channels == 2 && float.sampleRate == 48000 && float.bitsPerSample == 32)
        #expect(float.samples == samples)
        let pcm = try WAVFile(bytes: wav(samples, format: .pcm16))
        #expect(!pcm.isFloat && pcm.bitsPerSample == 16)
        // Rounded to 1/32767, beyond ±1 clipped.
        #expect(zip(pcm.samples, [0, 0.5, -0.5, 1, -1, 0.25, 1, -1]).allSatisfy { abs($0 - $1) <= 0.5 / 32767 })
    }

    /// A 2×1 image (1000, 60000), shown at scale 100 from (0, 0): x 0…100 is pixel 0, 100…200 pixel 1.
    let image = GrayImage(width: 2, height: 1, bitDepth: 16, samples: [1000, 60000])
    let start = StartRecord(
        t: 100, image: "/x.png", width: 2, height: 1, bitDepth: 16, sampleType: "uint16", profile: "default",
        sampleRate: 48000)

    func pen(_ t: Double, x: Double, tip: Bool, inImage: Bool = true) -> SessionRecord {
        var buttons = PenButtons()
        if tip { buttons.insert(1) }
        return .pen(
            PenRecord(
                t: t, rootX: x, rootY: 50, imageX: 0, imageY: 0, inImage: inImage, sample: 0, level: 0,
                pressure: tip ? 0.5 : 0, tiltX: 0, tiltY: 0, buttons: buttons, mode: "intensity-pitch",
                frequency: 0, amplitude: 0))
    }

    var session: [SessionRecord] {
        [
            .start(start), .viewport(t: 100.1, Viewport(originX: 0, originY: 0, scale: 100)),
            pen(100.5, x: 50, tip: true), pen(101.0, x: 150, tip: true), pen(101.5, x: 150, tip: false)
        ]
    }

    @Test func replayPlaysEachEventAtItsLoggedTime() {
        let stereo = replayed(session, start: start, image: image)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let rate = 48_000.0
        // Silent until 0.5 s; the dark pixel (110 Hz) until 1.0 s; the bright one (1760 Hz) until 1.5 s.
        #expect(SignalAnalysis.peak(left[0..<24_000]) == 0)
        #expect(SignalAnalysis.peak(left[24_000..<24_048]) > 0)
        let low = SignalAnalysis.zeroCrossingFrequency(left[25_000..<47_000], sampleRate: rate)!
        let high = SignalAnalysis.zeroCrossingFrequency(left[49_000..<71_000], sampleRate: rate)!
        #expect(abs(low / 110 - 1) < 0.001 && abs(high / 1760 - 1) < 0.001)
        // Lifted at 1.5 s: silent 10 ms later, and the file ends after 0.1 s of silence.
        #expect(SignalAnalysis.peak(left[72_480...]) == 0)
        #expect(left.count >= 72_000 + 4800 && left.count < 72_000 + 4800 + 600)
    }

    /// While the sound server was away nothing was heard and the engine stood still: the render is silent
    /// there, says nothing asked for meanwhile, and plays on from where it stood once the server was back.
    @Test func replayIsSilentWhileTheSoundServerWasAway() {
        let records =
            session + [
                pen(102.0, x: 50, tip: true), .sound(t: 102.5, .lost(reason: "gone")), pen(102.7, x: 150, tip: true),
                .speech(t: 102.8, text: "x 1, y 0"), .sound(t: 103.5, .back(server: "PulseAudio"))
            ]
        let stereo = replayed(records, start: start, image: image, speech: ToneSpeech())
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let rate = 48_000.0
        #expect(SignalAnalysis.peak(left[96_000..<120_000]) > 0.4)
        #expect(SignalAnalysis.peak(left[120_000..<168_000]) == 0)
        // Back: the bright pixel, which the pen moved to while nothing was heard; nothing said.
        let after = SignalAnalysis.zeroCrossingFrequency(left[170_000..<190_000], sampleRate: rate) ?? 0
        #expect(abs(after / 1760 - 1) < 0.001, "\(after) Hz")
    }

    @Test func replayIsDeterministic() {
        #expect(replayed(session, start: start, image: image) == replayed(session, start: start, image: image))
    }

    @Test func leavingTheWindowOverTheImageIsSilentInReplayToo() {
        // Logged "not in image" at a position over the image: the pen had left the window.
        let records = [
            session[0], session[1], pen(100.5, x: 50, tip: true), pen(100.8, x: 50, tip: true, inImage: false)
        ]
        let stereo = replayed(records, start: start, image: image)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        #expect(SignalAnalysis.peak(left[25_000..<38_000]) > 0.4)
        #expect(SignalAnalysis.peak(left[(38_400 + 480)...]) == 0)
    }

    @Test func replayTicksWhereTheLoggedCellSaysAndOnlyWhileTicksAreOn() throws {
        // A 20×10 image at scale 10, and a cell 4 pixels wide: its boundaries at screen x 50, 90, 130, 170.
        let wide = GrayImage(width: 20, height: 10, bitDepth: 16, samples: (0..<200).map { UInt16($0 % 20 * 3000) })
        let cell = try #require(
            UnitCell(
                origin: ImagePoint(x: 0.5, y: -5), vectorA: ImagePoint(x: 4, y: 0),
                vectorB: ImagePoint(x: 0, y: 20)))
        var records: [SessionRecord] = [
            .start(start), .viewport(t: 100.1, Viewport(originX: 0, originY: 0, scale: 10)),
            .cell(t: 100.2, cell, ticks: true)
        ]
        // Across the image in a second, then back with the ticks off.
        records += (0...100).map { pen(100.5 + Double($0) * 0.01, x: 15 + Double($0) * 1.7, tip: true) }
        records.append(.cell(t: 101.6, cell, ticks: false))
        records += (0...100).map { pen(101.7 + Double($0) * 0.01, x: 185 - Double($0) * 1.7, tip: true) }
        let stereo = replayed(records, start: start, image: wide)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let onsets = Spectrum.burstOnsets(left, at: 3200, sampleRate: 48000, threshold: 0.05)
        // The pen reports every 10 ms: the first report past x 50, 90, 130, 170 — by the margin that
        // keeps a trembling pen from chattering (0.02 of a cell, 0.8 screen pixels) — ticks.
        let expected = [50.0, 90, 130, 170].map { 0.5 + ((($0 + 0.8 - 15) / 1.7).rounded(.up)) * 0.01 }
        #expect(onsets.count == 4, "\(onsets)")
        for (onset, time) in zip(onsets, expected) {
            #expect(
                abs(Double(onset) / 48000 - time) < 0.005, "tick at \(Double(onset) / 48000) s, crossing at \(time) s")
        }
    }
}

/// Sweeps, the guide and speech that follows, replayed from the log.
@Suite struct OverviewReplayTests {
    /// A 2×1 image (1000, 60000), shown at scale 100 from (0, 0), swept in a second.
    let image = GrayImage(width: 2, height: 1, bitDepth: 16, samples: [1000, 60000])
    let start = StartRecord(
        t: 100, image: "/x.png", width: 2, height: 1, bitDepth: 16, sampleType: "uint16", profile: "default",
        sampleRate: 48000)
    var profile: Profile {
        var profile = Profile.plainMapping
        profile.chain.sweepLength = 1
        return profile
    }

    func hover(_ t: Double, x: Double) -> SessionRecord {
        .pen(
            PenRecord(
                t: t, rootX: x, rootY: 50, imageX: 0, imageY: 0, inImage: true, sample: 0, level: 0, pressure: 0,
                tiltX: 0, tiltY: 0, buttons: PenButtons(), mode: "intensity-pitch", frequency: 0, amplitude: 0))
    }

    func stereo(_ records: [SessionRecord], speech: SpeechSynthesis? = nil) -> (left: [Float], right: [Float]) {
        let x = replayed(
            [.start(start), .viewport(t: 100.05, Viewport(originX: 0, originY: 0, scale: 100))] + records,
            start: start, image: image, profile: profile, speech: speech)
        return (stride(from: 0, to: x.count, by: 2).map { x[$0] }, stride(from: 1, to: x.count, by: 2).map { x[$0] })
    }

    /// Seconds `from` to `to` after the start.
    func piece(_ x: [Float], _ from: Double, _ to: Double) -> ArraySlice<Float> {
        x[Int(from * 48_000)..<min(x.count, Int(to * 48_000))]
    }

    @Test func aLoggedRowSweepPlaysTheRowOverTheSweepsLengthUntilStopped() {
        let (left, _) = stereo([.sweep(t: 100.5, .row(0)), .sweep(t: 102, .row(0)), .sweep(t: 102.2, nil)])
        let dark = SignalAnalysis.zeroCrossingFrequency(piece(left, 0.55, 0.95), sampleRate: 48_000) ?? 0
        let bright = SignalAnalysis.zeroCrossingFrequency(piece(left, 1.05, 1.45), sampleRate: 48_000) ?? 0
        #expect(abs(dark / 110 - 1) < 0.001 && abs(bright / 1760 - 1) < 0.001, "\(dark) Hz, \(bright) Hz")
        #expect(SignalAnalysis.peak(piece(left, 1.51, 1.99)) == 0, "over at its length")
        #expect(SignalAnalysis.peak(piece(left, 2.05, 2.19)) > 0.4)
        #expect(SignalAnalysis.peak(piece(left, 2.21, 2.5)) == 0, "stopped")
    }

    @Test func aLoggedImageSweepSoundsUntilStopped() {
        // The dark pixel is silence; the bright one every band, coming in over the sweep's second half.
        let (left, right) = stereo([.sweep(t: 100.5, .image), .sweep(t: 101.3, nil)])
        #expect(SignalAnalysis.peak(piece(left, 0.5, 0.75)) == 0)
        #expect(SignalAnalysis.rms(piece(right, 1.05, 1.25)) > 0.01)
        #expect(SignalAnalysis.rms(piece(right, 1.05, 1.25)) > SignalAnalysis.rms(piece(left, 1.05, 1.25)))
        #expect(SignalAnalysis.peak(piece(left, 1.32, 1.6)) == 0 && SignalAnalysis.peak(piece(right, 1.32, 1.6)) == 0)
    }

    /// The guide beeps from where the logged pen is to the logged place, until the guidance ends.
    @Test func aLoggedGuideBeepsFromThePenToThePlace() {
        let place = Guidance(target: ImagePoint(x: 1, y: 0), radius: 0.2)
        let (left, right) = stereo([
            hover(100.4, x: 50), .guide(t: 100.5, place), hover(101, x: 60), .guide(t: 101.5, nil)
        ])
        let centre = GuideBeeps.frequencyDef.defaultValue
        // The place is to the right: heard on the right.
        #expect(Spectrum.amplitude(piece(right, 0.5, 1.4), at: centre, sampleRate: 48_000) > 0.002)
        #expect(Spectrum.amplitude(piece(left, 0.5, 1.4), at: centre, sampleRate: 48_000) < 0.0005)
        #expect(SignalAnalysis.peak(piece(right, 1.6, 2.5)) == 0)
    }

    /// An announcement logged to follow is heard after the one before; one that is not cuts it off.
    @Test func whatFollowsIsHeardAfterWhatCameBefore() {
        let (followed, _) = stereo(
            [.speech(t: 100.5, text: "a"), .speech(t: 100.7, text: "b", after: true)], speech: ToneSpeech())
        let voice = { (x: [Float], from: Double, to: Double) in
            Spectrum.amplitude(self.piece(x, from, to), at: 300, sampleRate: 48_000)
        }
        #expect(voice(followed, 2.1, 2.45) > 0.3, "the second second: the one that followed")
        #expect(voice(followed, 2.55, 2.9) < 0.01)
        let (cut, _) = stereo([.speech(t: 100.5, text: "a"), .speech(t: 100.7, text: "b")], speech: ToneSpeech())
        #expect(voice(cut, 1.45, 1.65) > 0.3)
        #expect(voice(cut, 1.75, 2.1) < 0.01, "cut off, and the second said once")
    }
}

/// A voice that "speaks" every text as a loud 300 Hz tone of a second.
struct ToneSpeech: SpeechSynthesis {
    func samples(for text: String, sampleRate: Double) -> [Float] {
        (0..<Int(sampleRate)).map { Float(0.8 * sin(2 * Double.pi * 300 * Double($0) / sampleRate)) }
    }
}
