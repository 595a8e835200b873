import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct SpeechTests {
    func drain(_ buffer: SpeechBuffer, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        let n = out.withUnsafeMutableBufferPointer {
            buffer.mix(into: $0.baseAddress!, frames: frames, channels: 1, gain: 1)
        }
        return Array(out[0..<n])
    }

    @Test func bufferPassesSamplesInOrderAcrossTheWrap() {
        let buffer = SpeechBuffer(capacity: 10)
        var next: Float = 0
        var received: [Float] = []
        for _ in 0..<20 {
            let chunk = (0..<7).map { Float($0) + next }
            let written = chunk.withUnsafeBufferPointer { buffer.write($0) }
            next += Float(written)
            received += drain(buffer, frames: 4)
        }
        received += drain(buffer, frames: 100)
        #expect(received == (0..<received.count).map(Float.init))
        #expect(received.count == Int(next) && buffer.isDrained && !buffer.hasQueuedSamples)
    }

    @Test func bufferRefusesWhatDoesNotFit() {
        let buffer = SpeechBuffer(capacity: 8)
        #expect([Float](repeating: 1, count: 12).withUnsafeBufferPointer { buffer.write($0) } == 8)
        _ = drain(buffer, frames: 3)
        #expect([Float](repeating: 2, count: 12).withUnsafeBufferPointer { buffer.write($0) } == 3)
    }

    @Test func discardSkipsTheOldAnnouncement() {
        let buffer = SpeechBuffer(capacity: 100)
        _ = [Float](repeating: 1, count: 50).withUnsafeBufferPointer { buffer.write($0) }
        _ = drain(buffer, frames: 10)
        buffer.discardQueued()
        _ = [Float](repeating: 2, count: 5).withUnsafeBufferPointer { buffer.write($0) }
        #expect(drain(buffer, frames: 100) == [2, 2, 2, 2, 2])
    }

    @Test func resamplingKeepsPitchAndLevel() {
        var resampler = Resampler(from: 22_050, to: 48_000)
        let input = (0..<22_050).map { Float(0.8 * sin(2 * Double.pi * 1000 * Double($0) / 22_050)) }
        var output: [Float] = []
        // In uneven chunks, as eSpeak delivers them.
        var offset = 0
        for size in [1, 100, 3000, 7, 10_000] {
            output += input[offset..<(offset + size)].withUnsafeBufferPointer { resampler.process($0) }
            offset += size
        }
        output += input[offset...].withUnsafeBufferPointer { resampler.process($0) }
        output += resampler.finish()
        #expect(abs(output.count - 48_000) <= 3)
        let f = SignalAnalysis.zeroCrossingFrequency(output[1000..<47_000], sampleRate: 48_000)!
        #expect(abs(f - 1000) < 0.1)
        #expect(abs(Spectrum.amplitude(output[1000..<47_000], at: 1000, sampleRate: 48_000) - 0.8) < 0.01)
    }

    @Test func theInstrumentDucksWhileTheVoiceSpeaksAndComesBack() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: 48_000, controls: controls)
        let buffer = SpeechBuffer(capacity: 48_000)
        let renderer = VoicedRenderer(engine: engine, speech: buffer, duckDecibels: 12, volume: 0.5)
        controls.set(SynthTargets(frequency: 1000, amplitude: 0.5), at: SynthControls.immediately)
        func render(_ seconds: Double) -> [Float] {
            var out = [Float](repeating: 0, count: Int(seconds * 48_000))
            out.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frames: $0.count, channels: 1) }
            return out
        }
        let before = render(0.2)
        // Half a second of "voice" at 300 Hz, amplitude 1.
        _ = (0..<24_000).map { Float(sin(2 * Double.pi * 300 * Double($0) / 48_000)) }.withUnsafeBufferPointer {
            buffer.write($0)
        }
        let during = render(0.5)
        let after = render(0.3)
        let tone = { (x: ArraySlice<Float>) in Spectrum.amplitude(x, at: 1000, sampleRate: 48_000) }
        #expect(abs(20 * log10(tone(before[4800...]) / tone(during[4800...])) - 12) < 0.1)
        // The voice at its volume.
        #expect(abs(Spectrum.amplitude(during[4800...], at: 300, sampleRate: 48_000) - 0.5) < 0.01)
        // Back to full level once the voice has finished (after a 0.1 s hold and a 10 ms ramp).
        #expect(abs(tone(after[9600...]) - 0.5) < 0.005)
    }

    @Test func theInstrumentDucksWhileAnOutsideVoiceSpeaksAndComesBack() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: 48_000, controls: controls)
        let activity = SpeechActivity()
        let renderer = VoicedRenderer(
            engine: engine, speech: SpeechBuffer(capacity: 48_000), activity: activity, duckDecibels: 12, volume: 0.5)
        controls.set(SynthTargets(frequency: 1000, amplitude: 0.5), at: SynthControls.immediately)
        func render(_ seconds: Double) -> [Float] {
            var out = [Float](repeating: 0, count: Int(seconds * 48_000))
            out.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frames: $0.count, channels: 1) }
            return out
        }
        let tone = { (x: ArraySlice<Float>) in Spectrum.amplitude(x, at: 1000, sampleRate: 48_000) }
        let before = render(0.2)
        activity.began(message: 7)
        let during = render(0.5)
        activity.ended(message: 7)
        let after = render(0.3)
        #expect(abs(20 * log10(tone(before[4800...]) / tone(during[4800...])) - 12) < 0.1)
        // Nothing of the outside voice is in this stream.
        #expect(Spectrum.amplitude(during[4800...], at: 300, sampleRate: 48_000) < 0.001)
        // Back to full level after the 0.1 s hold and a 10 ms ramp.
        #expect(abs(tone(after[9600...]) - 0.5) < 0.005)
    }

    @Test func anOutsideVoiceIsSpeakingFromAMessagesStartToItsEnd() {
        let activity = SpeechActivity()
        #expect(!activity.isSpeaking)
        activity.began(message: 1)
        #expect(activity.isSpeaking)
        // The next message starts before the first one's end is reported: that late end changes nothing.
        activity.began(message: 2)
        activity.ended(message: 1)
        #expect(activity.isSpeaking)
        activity.ended(message: 2)
        #expect(!activity.isSpeaking)
        // An end for a message never begun (cancelled while queued) leaves it quiet.
        activity.ended(message: 3)
        #expect(!activity.isSpeaking)
    }

    /// A stand-in voice for the replay: 0.3 s of 300 Hz per announcement.
    struct Beeper: SpeechSynthesis {
        func samples(for text: String, sampleRate: Double) -> [Float] {
            (0..<Int(0.3 * sampleRate)).map { Float(0.8 * sin(2 * Double.pi * 300 * Double($0) / sampleRate)) }
        }
    }

    @Test func replaySpeaksAndSwitchesModesWhereTheLogSays() {
        let image = GrayImage(width: 2, height: 1, bitDepth: 16, samples: [1000, 60000])
        let start = StartRecord(
            t: 10, image: "/x.png", width: 2, height: 1, bitDepth: 16, sampleType: "uint16", profile: "default",
            sampleRate: 48000)
        var tip = PenButtons()
        tip.insert(1)
        func pen(_ t: Double, pressure: Double, tip down: Bool = true) -> SessionRecord {
            .pen(
                PenRecord(
                    t: t, rootX: 150, rootY: 50, imageX: 1, imageY: 0, inImage: true, sample: 60000, level: 1,
                    pressure: pressure, tiltX: 0, tiltY: 0, buttons: down ? tip : PenButtons(), mode: "",
                    frequency: 0, amplitude: 0))
        }
        let records: [SessionRecord] = [
            .start(start), .viewport(t: 10, Viewport(originX: 0, originY: 0, scale: 100)),
            .speech(t: 10.2, text: "hello"),
            pen(11.0, pressure: 0.3), .mode(t: 11.5, .pressureAmplitude), pen(12.0, pressure: 0.3, tip: false)
        ]
        let stereo = replayed(records, start: start, image: image, speech: Beeper())
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        // The voice at 0.2 s, for 0.3 s, at the profile's volume.
        #expect(SignalAnalysis.peak(left[0..<9600]) == 0)
        #expect(abs(Spectrum.amplitude(left[10_000..<24_000], at: 300, sampleRate: 48_000) - 0.8 * 0.8) < 0.01)
        // Touching from 1.0 s: the fixed level, then from 1.5 s pressure-amplitude's quieter one.
        let fixed = Spectrum.amplitude(left[50_000..<70_000], at: 1760, sampleRate: 48_000)
        let pressed = Spectrum.amplitude(left[74_000..<94_000], at: 1760, sampleRate: 48_000)
        let p = Profile.plainMapping.pressure
        #expect(abs(fixed - 0.5) < 0.005)
        #expect(abs(pressed - p.fullLevel * (0.3 - p.threshold) / (1 - p.threshold)) < 0.005)
    }

    @Test func anAnnouncementReplacesWhatWaitsAndOneSaidAfterJoinsIt() {
        var waiting: [Utterance] = []
        waiting.queue(Utterance(text: "Mode 2.", after: false))
        waiting.queue(Utterance(text: "Square lattice.", after: true))
        #expect(waiting.map(\.text) == ["Mode 2.", "Square lattice."])
        waiting.queue(Utterance(text: "Mode 3.", after: false))
        #expect(waiting == [Utterance(text: "Mode 3.", after: false)])
    }
}
