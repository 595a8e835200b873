import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct SynthEngineTests {
    let rate = 48_000.0

    static let prototype = SoundChain(
        oscillators: [
            .init(ratio: 1, modulatorRatio: 1, index: 1, level: 0.5),
            .init(ratio: 2, modulatorRatio: 0.5, index: 0.8, level: 0.35)
        ],
        effects: [
            .delay(time: 0.1, feedback: 0.3, mix: 0.5), .reverb(feedback: 0.6, cutoff: 4000, mix: 0.5),
            .ladder(cutoff: 2000, resonance: 0.6)
        ])

    /// Renders `seconds` of stereo in 128-frame blocks, as an audio callback would; returns (left, right).
    func render(_ engine: SynthEngine, seconds: Double) -> (left: [Float], right: [Float]) {
        let frames = Int(seconds * rate)
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: frames, channels: 2) }
        return (
            stride(from: 0, to: out.count, by: 2).map { out[$0] }, stride(from: 1, to: out.count, by: 2).map { out[$0] }
        )
    }

    func mono(_ engine: SynthEngine, seconds: Double) -> [Float] { render(engine, seconds: seconds).left }

    // MARK: The plain tone (default profile)

    @Test(arguments: [110.0, 277.18, 440, 1760])
    func plainToneHasTheSetFrequencyAndAmplitude(frequency: Double) {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: rate, controls: controls)
        controls.set(SynthTargets(frequency: frequency, amplitude: 0.5), at: SynthControls.immediately)
        let (left, right) = render(engine, seconds: 0.5)
        let steady = left[2400...]
        let measured = SignalAnalysis.zeroCrossingFrequency(steady, sampleRate: rate)!
        #expect(abs(measured / frequency - 1) < 0.0005)
        #expect(abs(SignalAnalysis.peak(steady) - 0.5) < 0.001)
        #expect(left == right)
    }

    @Test func theWaitingPulseSoundsWhileAWaitIsToldAndFadesAfter() {
        let controls = SynthControls()
        var chain = SoundChain.plainTone
        chain.waitingLevel = 0.05
        let engine = SynthEngine(chain: chain, sampleRate: rate, controls: controls)
        #expect(SignalAnalysis.peak(mono(engine, seconds: 0.5)[...]) == 0)
        controls.setWaiting(true)
        let waited = mono(engine, seconds: 2)
        // A swell a second, at its level and pitch, the pen's tone silent.
        for second in 0..<2 {
            let swell = waited[(second * Int(rate))..<(second * Int(rate) + Int(0.45 * rate))]
            #expect(abs(SignalAnalysis.peak(swell) - 0.05) < 0.003)
            #expect(Spectrum.amplitude(swell, at: 392, sampleRate: rate) > 0.01)
        }
        controls.setWaiting(false)
        #expect(SignalAnalysis.peak(mono(engine, seconds: 0.5)[2400...]) == 0)
    }

    @Test func silentUntilToldAndFadesOutWithinTenMilliseconds() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: rate, controls: controls)
        #expect(SignalAnalysis.peak(mono(engine, seconds: 0.05)[...]) == 0)
        controls.set(SynthTargets(frequency: 440, amplitude: 0.5), at: SynthControls.immediately)
        _ = mono(engine, seconds: 0.1)
        controls.set(SynthTargets(frequency: 0, amplitude: 0), at: SynthControls.immediately)
        let tail = mono(engine, seconds: 0.05)
        // After 10 ms: exact silence (the ramp lands on 0).
        #expect(SignalAnalysis.peak(tail[480...]) == 0)
        // And the fade is a ramp, not a cut: the first millisecond still sounds.
        #expect(SignalAnalysis.peak(tail[0..<48]) > 0.3)
    }

    @Test func eachTickAskedForSoundsOverTheTone() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: rate, controls: controls)
        controls.set(SynthTargets(frequency: 1760, amplitude: 0.5), at: SynthControls.immediately)
        var x = mono(engine, seconds: 0.1)
        controls.tick(at: SynthControls.immediately)
        x += mono(engine, seconds: 0.1)
        // Two asked for within one block sound as one.
        controls.tick(at: SynthControls.immediately)
        controls.tick(at: SynthControls.immediately)
        x += mono(engine, seconds: 0.1)
        let onsets = Spectrum.burstOnsets(x, at: 3200, sampleRate: rate, threshold: 0.05)
        #expect(onsets.count == 2, "\(onsets)")
        #expect(onsets.count == 2 && abs(onsets[0] - 4800) <= 192 && abs(onsets[1] - 9600) <= 192, "\(onsets)")
        // The tone itself stays where it was.
        #expect(abs(SignalAnalysis.peak(x[2400..<4800]) - 0.5) < 0.001)
    }

    @Test func aNoteFromSilenceStartsAtItsOwnPitch() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: rate, controls: controls)
        controls.set(SynthTargets(frequency: 110, amplitude: 0.5), at: SynthControls.immediately)
        _ = mono(engine, seconds: 0.05)
        controls.set(SynthTargets(frequency: 0, amplitude: 0), at: SynthControls.immediately)
        _ = mono(engine, seconds: 0.05)
        controls.set(SynthTargets(frequency: 1760, amplitude: 0.5), at: SynthControls.immediately)
        let x = mono(engine, seconds: 0.02)
        let early = SignalAnalysis.zeroCrossingFrequency(x[0..<480], sampleRate: rate)!
        #expect(abs(early / 1760 - 1) < 0.01)
    }

    // MARK: Steps never click

    /// The largest sample-to-sample change in `x[range]`.
    func largestStep(_ x: [Float], _ range: Range<Int>) -> Float {
        range.dropFirst().map { abs(x[$0] - x[$0 - 1]) }.max() ?? 0
    }

    struct Setting {
        var frequency: Double, amplitude: Double, cutoff: Double
        /// Part way from `self` to `other`: frequencies in octaves, loudness in a straight line.
        func toward(_ other: Setting, _ u: Double) -> Setting {
            Setting(
                frequency: frequency * pow(other.frequency / frequency, u),
                amplitude: amplitude + (other.amplitude - amplitude) * u,
                cutoff: cutoff * pow(other.cutoff / cutoff, u))
        }
        func apply(_ controls: SynthControls) {
            controls.set(
                SynthTargets(frequency: frequency, amplitude: amplitude, cutoff: cutoff), at: SynthControls.immediately)
        }
    }

    /// The largest sample-to-sample change while going from `a` to `b`: at once (the engine's own
    /// glide) or slowly, in small steps over half a second. Also the settled signal before and after.
    func transition(_ chain: SoundChain, from a: Setting, to b: Setting, slowly: Bool) -> (
        during: Float, settled: Float
    ) {
        let controls = SynthControls()
        let engine = SynthEngine(chain: chain, sampleRate: rate, controls: controls)
        a.apply(controls)
        let before = mono(engine, seconds: 0.3)
        var during: [Float] = []
        if slowly {
            for step in 1...500 {
                a.toward(b, Double(step) / 500).apply(controls)
                during += mono(engine, seconds: 0.001)
            }
        } else {
            b.apply(controls)
            during = mono(engine, seconds: 0.1)
        }
        let after = mono(engine, seconds: 0.3)
        return (
            largestStep(during, 0..<during.count),
            max(largestStep(before, 4800..<before.count), largestStep(after, 4800..<after.count))
        )
    }

    /// A click is a jump many times the signal's own slope. A change made at once may move a little
    /// faster than the same change made slowly (a filter swept in 20 ms sharpens the wave it
    /// passes), but never by more than a quarter — plus, for loudness, one step of its ramp.
    func expectNoClick(_ name: String, _ chain: SoundChain, from a: Setting, to b: Setting, rampAllowance: Float = 0) {
        let sudden = transition(chain, from: a, to: b, slowly: false)
        let gradual = transition(chain, from: a, to: b, slowly: true)
        let bound = max(gradual.during, gradual.settled, sudden.settled)
        #expect(sudden.during <= 1.25 * bound + rampAllowance, "\(name): \(sudden.during) vs \(bound) ramped")
    }

    @Test(arguments: ["plain", "prototype", "resonant ladder"])
    func eachControlStepDoesNotClick(chainName: String) {
        let chain = [
            "plain": SoundChain.plainTone, "prototype": Self.prototype,
            "resonant ladder": SoundChain(effects: [.ladder(cutoff: 2000, resonance: 0.6)])
        ][chainName]!
        let base = Setting(frequency: 220, amplitude: 0.5, cutoff: 2000)
        func with(_ change: (inout Setting) -> Void) -> Setting { var s = base; change(&s); return s }
        // One control at a time, to each extreme and back.
        let cases: [(String, Setting, Setting, Float)] = [
            ("pitch up", with { $0.frequency = 110 }, with { $0.frequency = 1760 }, 0),
            ("pitch down", with { $0.frequency = 1760 }, with { $0.frequency = 110 }, 0),
            ("cutoff up", with { $0.cutoff = 100 }, with { $0.cutoff = 12_000 }, 0),
            ("cutoff down", with { $0.cutoff = 12_000 }, with { $0.cutoff = 100 }, 0),
            // Loudness: allow one step of the amplitude ramp (0.5 over 240 samples).
            ("loudness up", with { $0.amplitude = 0 }, base, 0.5 / 240),
            ("loudness down", base, with { $0.amplitude = 0 }, 0.5 / 240)
        ]
        for (name, from, to, allowance) in cases {
            expectNoClick("\(chainName) \(name)", chain, from: from, to: to, rampAllowance: allowance)
        }
    }

    @Test func everyUnitParameterStepIsRamped() {
        // Each unit's own parameters, stepped directly from one extreme to the other mid-signal.
        let count = 24_000
        func run(_ unit: any SoundUnit, step: () -> Void) -> (before: Float, change: Float, after: Float) {
            var left = DSPUnitTests.sine(330, amplitude: 0.5, count: count), right = left
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    let audio = StereoBuffer(left: l.baseAddress!, right: r.baseAddress!)
                    DSPUnitTests.blocks(count) { offset, n in
                        if offset == 9600 { step() }
                        unit.process(audio.advanced(by: offset), frames: n)
                    }
                }
            }
            return (largestStep(left, 4800..<9600), largestStep(left, 9600..<10_200), largestStep(left, 14_400..<count))
        }
        // As in expectNoClick: at most a quarter faster than the settled signal.
        func expectSmooth(_ name: String, _ r: (before: Float, change: Float, after: Float)) {
            #expect(r.change <= max(r.before, r.after) * 1.25 + 1e-4, "\(name): \(r)")
        }
        var ladder = MoogLadder(sampleRate: rate, rampSamples: 960, cutoff: 200, resonance: 0)
        expectSmooth("ladder cutoff", run(ladder, step: { ladder.cutoff.glide(to: 15_000) }))
        ladder = MoogLadder(sampleRate: rate, rampSamples: 240, cutoff: 1000, resonance: 0)
        expectSmooth("ladder resonance", run(ladder, step: { ladder.resonance.glide(to: 0.95) }))
        let panner = Panner(rampSamples: 240, pan: -1)
        expectSmooth("pan", run(panner, step: { panner.pan.glide(to: 1) }))
        // Wet is the signal inverted: a cut between them would jump by twice the signal.
        let dryWet = DryWetMixer(Inverter(), rampSamples: 240, balance: 0, capacity: 128)
        expectSmooth("dry/wet", run(dryWet, step: { dryWet.balance.glide(to: 1) }))
        let delay = FeedbackDelay(sampleRate: rate, rampSamples: 240, time: 0.01, feedback: 0, mix: 0)
        expectSmooth("delay mix", run(delay, step: { delay.mix.glide(to: 1) }))
        let reverb = CostelloReverb(sampleRate: rate, rampSamples: 240, feedback: 0.2, cutoff: 500)
        expectSmooth(
            "reverb feedback and cutoff",
            run(
                reverb,
                step: {
                    reverb.feedback.glide(to: 0.95); reverb.cutoff.glide(to: 15_000)
                }))
        let loudness = Fader(rampSamples: 240, gain: 0.2)
        expectSmooth("loudness", run(loudness, step: { loudness.gain.glide(to: 1) }))
    }

    /// A unit that turns its input upside down.
    final class Inverter: SoundUnit {
        func process(_ audio: StereoBuffer, frames: Int) {
            for i in 0..<frames { audio.left[i] = -audio.left[i]; audio.right[i] = -audio.right[i] }
        }
    }

    // MARK: Anything goes: extremes, jumps, silence

    @Test func extremeSettingsAndJumpsStayFiniteAndBounded() {
        var extremes = SoundChain(
            oscillators: [
                .init(ratio: 16, modulatorRatio: 16, index: 20, level: 1),
                .init(ratio: 0.01, modulatorRatio: 0, index: 20, level: 1)
            ],
            effects: [
                .delay(time: 0.001, feedback: 0.99, mix: 1), .reverb(feedback: 0.999, cutoff: 20_000, mix: 1),
                .ladder(cutoff: 20_000, resonance: 1), .delay(time: 2, feedback: -0.99, mix: 1)
            ])
        extremes.panned = true
        for chain in [extremes, Self.prototype] {
            let controls = SynthControls()
            let engine = SynthEngine(chain: chain, sampleRate: rate, controls: controls)
            var random = SeededRandom(seed: 77)
            var peak: Float = 0
            for _ in 0..<400 {
                // A random jump every 10 ms, including nonsense the engine must shrug off.
                let choices: [Double] = [0, 1e-9, 20, 440, 19_000, 30_000, 1e12, -5, .nan, .infinity]
                controls.set(
                    SynthTargets(
                        frequency: choices[Int(random.next() % 10)],
                        amplitude: [0, 0.5, 1, 7, -1, .nan][Int(random.next() % 6)],
                        cutoff: choices[Int(random.next() % 10)], resonance: choices[Int(random.next() % 10)],
                        pan: choices[Int(random.next() % 10)], timbre: choices[Int(random.next() % 10)]),
                    at: SynthControls.immediately)
                let (l, r) = render(engine, seconds: 0.01)
                for v in l + r {
                    #expect(v.isFinite)
                    peak = max(peak, abs(v))
                }
            }
            #expect(peak <= 1)
        }
    }

    @Test func silenceAfterSoundReachesTrueZeroWithoutSubnormals() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: Self.prototype, sampleRate: rate, controls: controls)
        controls.set(SynthTargets(frequency: 440, amplitude: 0.5), at: SynthControls.immediately)
        _ = render(engine, seconds: 0.5)
        controls.set(SynthTargets(frequency: 0, amplitude: 0), at: SynthControls.immediately)
        var tail: [Float] = []
        for _ in 0..<60 { tail += render(engine, seconds: 1).left }
        // Never a subnormal on the way down (they make the FPU crawl), and true silence at the end.
        #expect(tail.allSatisfy { $0 == 0 || $0.isNormal })
        #expect(SignalAnalysis.peak(tail[(tail.count - 48_000)...]) == 0)
    }

    @Test func prototypeChainSoundsAtThePitchWithEchoes() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: Self.prototype, sampleRate: rate, controls: controls)
        controls.set(SynthTargets(frequency: 220, amplitude: 0.5), at: SynthControls.immediately)
        let tone = render(engine, seconds: 1).left
        #expect(Spectrum.amplitude(tone[24_000...], at: 220, sampleRate: rate) > 0.05)
        controls.set(SynthTargets(frequency: 0, amplitude: 0), at: SynthControls.immediately)
        let tail = render(engine, seconds: 1).left
        // After the note: the echo 0.1 s later is still there, well above the reverb floor at 0.9 s.
        #expect(SignalAnalysis.rms(tail[4800..<9600]) > 10 * SignalAnalysis.rms(tail[43_200...]))
    }

    @Test func renderingIsDeterministic() {
        func run() -> [Float] {
            let controls = SynthControls()
            let engine = SynthEngine(chain: Self.prototype, sampleRate: rate, controls: controls)
            controls.set(SynthTargets(frequency: 330, amplitude: 0.4, cutoff: 900), at: SynthControls.immediately)
            return render(engine, seconds: 0.5).left
        }
        #expect(run() == run())
    }
}

extension SynthEngineTests {
    @Test func notesAreShortAndDistinct() {
        var chain = SoundChain(oscillators: [.init(waveform: .square, level: 0.5)])
        chain.noteLength = 0.12
        let controls = SynthControls()
        let engine = SynthEngine(chain: chain, sampleRate: 48_000, controls: controls)
        controls.set(SynthTargets(frequency: 440, amplitude: 1, note: 1), at: SynthControls.immediately)
        var out = [Float](repeating: 0, count: 48_000)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 24_000, channels: 2) }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let sounding = SignalAnalysis.bursts(left, threshold: 0.05, window: 48, minimumGap: 480)
        #expect(sounding.count == 1)
        #expect(abs(Double(sounding[0].count) / 48_000 - 0.12) < 0.01)
        #expect(abs(SignalAnalysis.zeroCrossingFrequency(left[500..<5000], sampleRate: 48_000)! / 440 - 1) < 0.002)
    }
}

extension SynthEngineTests {
    @Test func aFilteredChainWithoutALadderGetsAnOpenOneForTheCutoffToClose() {
        func level(filtered: Bool, cutoff: Double?) -> Double {
            var chain = SoundChain.plainTone
            chain.filtered = filtered
            let controls = SynthControls()
            let engine = SynthEngine(chain: chain, sampleRate: rate, controls: controls)
            controls.set(SynthTargets(frequency: 1760, amplitude: 0.5, cutoff: cutoff), at: SynthControls.immediately)
            let tone = render(engine, seconds: 1).left
            return Spectrum.amplitude(tone[24_000...], at: 1760, sampleRate: rate)
        }
        // Open, it leaves the tone as it is; three octaves below the tone, it takes it down by more than 40 dB.
        #expect(abs(level(filtered: true, cutoff: nil) - 0.5) < 0.001)
        #expect(level(filtered: true, cutoff: 220) < 0.005)
        // Unfiltered, there is no ladder for the cutoff to close.
        #expect(abs(level(filtered: false, cutoff: 220) - 0.5) < 0.001)
    }
}
