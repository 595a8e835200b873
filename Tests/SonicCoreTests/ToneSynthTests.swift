import Testing
import TestSupport
@testable import SonicCore

@Suite struct ToneSynthTests {
    let rate = 48_000.0

    /// Renders `seconds` of mono from the synth.
    func render(_ synth: ToneSynth, seconds: Double) -> [Float] {
        let frames = Int(seconds * rate)
        var out = [Float](repeating: 0, count: frames * 2)
        var done = 0
        // Blocks of 128 like an audio callback.
        while done < frames {
            let n = min(128, frames - done)
            out.withUnsafeMutableBufferPointer { synth.render(into: $0.baseAddress! + done * 2, frames: n, channels: 2) }
            done += n
        }
        return stride(from: 0, to: out.count, by: 2).map { out[$0] }
    }

    @Test(arguments: [110.0, 277.18, 440, 1760])
    func toneHasTheSetFrequencyAndAmplitude(frequency: Double) {
        let controls = SynthControls()
        let synth = ToneSynth(sampleRate: rate, controls: controls)
        controls.set(frequency: frequency, amplitude: 0.5)
        let x = render(synth, seconds: 0.5)
        let steady = x[2400...]
        let measured = SignalAnalysis.zeroCrossingFrequency(steady, sampleRate: rate)!
        #expect(abs(measured / frequency - 1) < 0.0005)
        #expect(abs(SignalAnalysis.peak(steady) - 0.5) < 0.001)
    }

    @Test func silentUntilToldAndFadesOutWithinTenMilliseconds() {
        let controls = SynthControls()
        let synth = ToneSynth(sampleRate: rate, controls: controls)
        #expect(SignalAnalysis.peak(render(synth, seconds: 0.05)[...]) == 0)
        controls.set(frequency: 440, amplitude: 0.5)
        _ = render(synth, seconds: 0.1)
        controls.set(frequency: 0, amplitude: 0)
        let tail = render(synth, seconds: 0.05)
        // After 10 ms: exact silence (the ramp lands on 0).
        #expect(SignalAnalysis.peak(tail[480...]) == 0)
        // And the fade is a ramp, not a cut: the first millisecond still sounds.
        #expect(SignalAnalysis.peak(tail[0..<48]) > 0.3)
    }

    @Test func changesNeverJumpMoreThanTheRampedSignalWould() {
        let controls = SynthControls()
        let synth = ToneSynth(sampleRate: rate, controls: controls)
        var x: [Float] = []
        var random = SeededRandom(seed: 5)
        for _ in 0..<200 {
            // Random targets every 5 ms, including from and to silence.
            let on = random.next() % 4 != 0
            controls.set(frequency: on ? 110 + random.unitInterval() * 1650 : 0, amplitude: on ? 0.5 : 0)
            x += render(synth, seconds: 0.005)
        }
        // The largest possible step of a sine at ≤1760 Hz and amplitude 0.5 is 0.5·2π·1760/48000 ≈ 0.115,
        // plus the amplitude ramp's step 0.5/240.
        let limit = Float(0.5 * 2 * Double.pi * 1760 / rate + 0.5 / 240) * 1.01
        let largest = zip(x, x.dropFirst()).map { abs($1 - $0) }.max()!
        #expect(largest <= limit)
    }

    @Test func aNoteFromSilenceStartsAtItsOwnPitch() {
        let controls = SynthControls()
        let synth = ToneSynth(sampleRate: rate, controls: controls)
        controls.set(frequency: 110, amplitude: 0.5)
        _ = render(synth, seconds: 0.05)
        controls.set(frequency: 0, amplitude: 0)
        _ = render(synth, seconds: 0.05)
        controls.set(frequency: 1760, amplitude: 0.5)
        let x = render(synth, seconds: 0.02)
        // Already 1760 Hz within the 5 ms fade-in: no glide up from 110 Hz.
        let early = SignalAnalysis.zeroCrossingFrequency(x[0..<480], sampleRate: rate)!
        #expect(abs(early / 1760 - 1) < 0.01)
    }

    @Test func rampLandsExactlyOnItsTarget() {
        var ramp = LinearRamp(value: 0, duration: 3)
        ramp.glide(to: 1)
        let values = (0..<5).map { _ in ramp.next() }
        #expect(values == [0, 1.0 / 3, 2.0 / 3, 1, 1])
        #expect(!ramp.isGliding)
    }
}
