import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// Each DSP unit measured on what it renders.
@Suite struct DSPUnitTests {
    static let rate = 48_000.0
    static let ramp = 240

    /// A unit driven block by block (128 frames), as the engine drives it.
    static func blocks(_ total: Int, _ body: (_ offset: Int, _ count: Int) -> Void) {
        var done = 0
        while done < total {
            let n = min(128, total - done)
            body(done, n)
            done += n
        }
    }

    /// Runs a unit over a stereo pair, block by block (128 frames) as the engine does, from `offset`.
    static func run(
        _ unit: any SoundUnit, _ left: inout [Float], _ right: inout [Float], from offset: Int = 0,
        count: Int? = nil
    ) {
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                let audio = StereoBuffer(left: l.baseAddress! + offset, right: r.baseAddress! + offset)
                blocks(count ?? l.count - offset) { unit.process(audio.advanced(by: $0), frames: $1) }
            }
        }
    }

    /// What a source adds to silence: its signal, on both channels.
    static func render(_ unit: any SoundUnit, count: Int) -> (left: [Float], right: [Float]) {
        var left = [Float](repeating: 0, count: count), right = left
        run(unit, &left, &right)
        return (left, right)
    }

    static func sine(_ frequency: Double, amplitude: Float = 0.1, count: Int) -> [Float] {
        (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    // MARK: Oscillator

    @Test(arguments: [27.5, 110, 440.0, 1000, 1760, 7040, 15000])
    func oscillatorFrequencyErrorIsBelowFiveHundredthsOfAPercent(frequency: Double) {
        let oscillator = FMOscillator(sampleRate: Self.rate, rampSamples: Self.ramp, carrierFrequency: frequency)
        let x = Self.render(oscillator, count: 96_000).left
        let measured = SignalAnalysis.zeroCrossingFrequency(x[...], sampleRate: Self.rate)!
        #expect(abs(measured / frequency - 1) < 0.0005, "measured \(measured) Hz")
        // And it is a clean sine: nothing at the second or third harmonic.
        if frequency * 3 < Self.rate / 2 {
            #expect(Spectrum.amplitude(x[...], at: frequency * 2, sampleRate: Self.rate) < 1e-5)
            #expect(Spectrum.amplitude(x[...], at: frequency * 3, sampleRate: Self.rate) < 1e-5)
        }
    }

    @Test func frequencyModulationMakesBesselSidebands() {
        // Carrier 1000 Hz, modulator 3500 Hz, index 1: components at 1000 (J0), 4500 and 2500 (J1),
        // 8000 and 6000 (J2) — amplitudes from the Bessel functions of the first kind.
        let oscillator = FMOscillator(
            sampleRate: Self.rate, rampSamples: Self.ramp, carrierFrequency: 1000,
            modulatorRatio: 3.5, index: 1)
        let x = Self.render(oscillator, count: 48_000).left
        let expected: [(Double, Double)] = [
            (1000, 0.7651977), (4500, 0.4400506), (2500, 0.4400506),
            (8000, 0.1149035), (6000, 0.1149035)
        ]
        for (frequency, amplitude) in expected {
            let measured = Spectrum.amplitude(x[...], at: frequency, sampleRate: Self.rate)
            #expect(abs(measured - amplitude) < 0.005, "at \(frequency) Hz: \(measured), expected \(amplitude)")
        }
    }

    // MARK: Mixing, loudness and the panner

    @Test func sourcesMixAtTheirLevelsUnderTheFader() {
        let count = 4800
        var out = [Float](repeating: 0, count: count), right = out
        for unit: any SoundUnit in [
            FMOscillator(sampleRate: Self.rate, rampSamples: Self.ramp, carrierFrequency: 500, level: 0.25),
            FMOscillator(sampleRate: Self.rate, rampSamples: Self.ramp, carrierFrequency: 1300, level: 0.6),
            Fader(rampSamples: Self.ramp, gain: 0.5)
        ] {
            Self.run(unit, &out, &right)
        }
        #expect(abs(Spectrum.amplitude(out[...], at: 500, sampleRate: Self.rate) - 0.125) < 0.001)
        #expect(abs(Spectrum.amplitude(out[...], at: 1300, sampleRate: Self.rate) - 0.3) < 0.001)
    }

    @Test(arguments: [-1.0, -0.5, 0, 0.3, 1])
    func pannerKeepsPowerConstant(pan: Double) {
        let panner = Panner(rampSamples: Self.ramp, pan: pan)
        var left = [Float](repeating: 1, count: 256), right = [Float](repeating: 0, count: 256)
        Self.run(panner, &left, &right)
        let theta = (pan + 1) * Double.pi / 4
        #expect(abs(Double(left[100]) - cos(theta)) < 1e-6 && abs(Double(right[100]) - sin(theta)) < 1e-6)
        #expect(abs(Double(left[100] * left[100] + right[100] * right[100]) - 1) < 1e-6)
    }

    // MARK: Delay

    @Test func delayEchoesAtATenthOfASecondEachThreeTenthsOfTheLast() {
        let delay = FeedbackDelay(sampleRate: Self.rate, rampSamples: Self.ramp, time: 0.1, feedback: 0.3, mix: 1)
        var x = [Float](repeating: 0, count: 48_000)
        x[0] = 1
        var right = x
        Self.run(delay, &x, &right)
        #expect(x == right)
        // Find the echoes from the output alone: the local peaks above the noise floor.
        let echoes = x.indices.filter {
            abs(x[$0]) > 1e-4 && ($0 == 0 || abs(x[$0]) > abs(x[$0 - 1]))
                && abs(x[$0]) >= abs(x[min($0 + 1, x.count - 1)])
        }
        #expect(echoes.count >= 5)
        for (n, index) in echoes.prefix(5).enumerated() {
            #expect(abs(index - 4800 * (n + 1)) <= 1, "echo \(n + 1) at sample \(index)")
            #expect(abs(Double(x[index]) - pow(0.3, Double(n))) < 1e-5, "echo \(n + 1) is \(x[index])")
        }
    }

    // MARK: Reverb

    func reverbImpulse(feedback: Double, cutoff: Double, seconds: Double = 3) -> (left: [Float], right: [Float]) {
        let reverb = CostelloReverb(sampleRate: Self.rate, rampSamples: Self.ramp, feedback: feedback, cutoff: cutoff)
        let count = Int(seconds * Self.rate)
        var left = [Float](repeating: 0, count: count), right = [Float](repeating: 0, count: count)
        left[0] = 1; right[0] = 1
        Self.run(reverb, &left, &right)
        return (left, right)
    }

    /// Seconds for the tail's level to fall by 30 dB (×2 gives RT60), from 50 ms windows.
    func decayTime(_ x: [Float]) -> Double {
        let window = 2400
        let levels = stride(from: 0, to: x.count - window, by: window).map { SignalAnalysis.dBFS(x[$0..<$0 + window]) }
        let loudest = levels.max()!
        let start = levels.firstIndex(of: loudest)!
        let end = levels[start...].firstIndex { $0 < loudest - 30 } ?? levels.count
        return Double(end - start) * Double(window) / Self.rate
    }

    @Test func reverbTailDecaysLongerWithMoreFeedbackAndDarkerWithLowerCutoff() {
        let short = reverbImpulse(feedback: 0.5, cutoff: 8000), long = reverbImpulse(feedback: 0.9, cutoff: 8000)
        #expect(decayTime(long.left) > 2 * decayTime(short.left), "\(decayTime(long.left)) vs \(decayTime(short.left))")
        let bright = reverbImpulse(feedback: 0.8, cutoff: 10_000, seconds: 1)
        let dark = reverbImpulse(feedback: 0.8, cutoff: 1000, seconds: 1)
        let tail = 4800..<48_000
        #expect(
            Spectrum.centroid(dark.left[tail], sampleRate: Self.rate) < 0.6
                * Spectrum.centroid(bright.left[tail], sampleRate: Self.rate))
        // Stereo: the two sides are different reflections of the same impulse.
        let l = long.left[tail], r = long.right[tail]
        let correlation =
            zip(l, r).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            / (l.reduce(0.0) { $0 + Double($1 * $1) } * r.reduce(0.0) { $0 + Double($1 * $1) }).squareRoot()
        #expect(abs(correlation) < 0.5)
    }

    @Test func reverbFirstReflectionsArriveAtTheLineDelays() {
        let (left, _) = reverbImpulse(feedback: 0.6, cutoff: 20_000, seconds: 0.2)
        // Nothing before the shortest line (1933/44100 s minus its 0.6 ms drift), something right after.
        let earliest = Int((1933.0 / 44100 - 0.0006) * Self.rate) - 2
        #expect(SignalAnalysis.peak(left[1..<earliest]) == 0)
        #expect(SignalAnalysis.peak(left[earliest..<(earliest + 400)]) > 0.01)
    }

    // MARK: Dry/wet

    /// A unit that replaces its input by a constant pair.
    final class Constant: SoundUnit {
        let left: Float, right: Float
        init(left: Float, right: Float) { self.left = left; self.right = right }
        func process(_ audio: StereoBuffer, frames: Int) {
            audio.left.update(repeating: left, count: frames)
            audio.right.update(repeating: right, count: frames)
        }
    }

    @Test func dryWetCrossfadesLinearly() {
        for balance in [0.0, 0.25, 0.5, 1] {
            // Dry 1 and 1, wet −1 and 3.
            let mixer = DryWetMixer(
                Constant(left: -1, right: 3), rampSamples: Self.ramp, balance: balance, capacity: 64)
            var mix = [Float](repeating: 1, count: 64), mixR = [Float](repeating: 1, count: 64)
            Self.run(mixer, &mix, &mixR)
            #expect(abs(Double(mix[10]) - (1 - 2 * balance)) < 1e-6 && abs(Double(mixR[10]) - (1 + 2 * balance)) < 1e-6)
        }
    }

    @Test func dryWetWorksThroughBlocksLongerThanItHolds() {
        func mix(capacity: Int) -> [Float] {
            let mixer = DryWetMixer(
                MoogLadder(sampleRate: Self.rate, rampSamples: Self.ramp, cutoff: 500),
                rampSamples: Self.ramp, balance: 0.3, capacity: capacity)
            mixer.balance.glide(to: 0.8)
            var left = Self.sine(700, count: 4096), right = Self.sine(1100, count: 4096)
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    mixer.process(StereoBuffer(left: l.baseAddress!, right: r.baseAddress!), frames: 4096)
                }
            }
            return left + right
        }
        #expect(mix(capacity: 100) == mix(capacity: 4096))
    }

    // MARK: Moog ladder

    /// Steady-state gain of the ladder for a sine at `frequency` (output amplitude / input amplitude).
    func ladderGain(cutoff: Double, resonance: Double = 0, at frequency: Double) -> Double {
        let ladder = MoogLadder(sampleRate: Self.rate, rampSamples: Self.ramp, cutoff: cutoff, resonance: resonance)
        let count = 48_000
        var left = Self.sine(frequency, amplitude: 0.05, count: count), right = left
        Self.run(ladder, &left, &right)
        return Spectrum.amplitude(left[24_000...], at: frequency, sampleRate: Self.rate) / 0.05
    }

    @Test(arguments: [50.0, 200, 500, 1000, 2000, 3500, 4900])
    func ladderIsThreeDecibelsDownAtItsCutoff(cutoff: Double) {
        // Find the −3 dB point from measured gains by bisection on a log scale.
        let target = pow(10, -3.0 / 20)
        var low = cutoff / 4, high = cutoff * 4
        for _ in 0..<18 {
            let middle = (low * high).squareRoot()
            if ladderGain(cutoff: cutoff, at: middle) > target { low = middle } else { high = middle }
        }
        let measured = (low * high).squareRoot()
        #expect(abs(measured / cutoff - 1) < 0.05, "−3 dB at \(measured) Hz for cutoff \(cutoff)")
    }

    @Test func ladderFallsTwentyFourDecibelsPerOctave() {
        // Far above the poles (which sit at cutoff / 0.435): one octave apart.
        let cutoff = 50.0, poles = cutoff / MoogLadder.minus3dBRatio
        let a = ladderGain(cutoff: cutoff, at: 8 * poles), b = ladderGain(cutoff: cutoff, at: 16 * poles)
        let slope = 20 * log10(a / b)
        #expect(abs(slope - 24) < 1, "slope \(slope) dB/octave")
    }

    @Test func resonancePeaksNearThePolesAndSelfOscillatesBounded() {
        let poles = 1000 / MoogLadder.minus3dBRatio
        #expect(
            ladderGain(cutoff: 1000, resonance: 0.9, at: poles) > 3 * ladderGain(cutoff: 1000, resonance: 0, at: poles))
        // Resonance 1 with a single kick: it rings on by itself, at a bounded level.
        let ladder = MoogLadder(sampleRate: Self.rate, rampSamples: Self.ramp, cutoff: 1000, resonance: 1)
        var left = [Float](repeating: 0, count: 96_000), right = left
        left[0] = 0.5; right[0] = 0.5
        Self.run(ladder, &left, &right)
        // Still ringing two seconds later, at a steady, bounded level.
        let late = SignalAnalysis.peak(left[90_000...]), earlier = SignalAnalysis.peak(left[48_000..<54_000])
        #expect(late > 0.1 && abs(late / earlier - 1) < 0.1, "\(earlier) then \(late)")
        #expect(left.allSatisfy { $0.isFinite && abs($0) < 2 })
    }

    // MARK: Limiter

    @Test func limiterIsTransparentBelowThresholdAndBoundedAbove() {
        let limiter = SoftLimiter(threshold: 0.9)
        var x: [Float] = [0, 0.5, -0.89, 0.95, -2, 10, 1e30, -.infinity, .nan, .greatestFiniteMagnitude]
        var y = x.reversed() as [Float]
        Self.run(limiter, &x, &y)
        #expect(zip(x, y.reversed()).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) })
        #expect(x[0] == 0 && x[1] == 0.5 && x[2] == -0.89)
        #expect(x[3] > 0.9 && x[3] < 0.95 && x[4] < -0.9)
        #expect(x.allSatisfy { $0.isFinite && abs($0) <= 1 })
        #expect(x[7] == 0 && x[8] == 0)
        // Monotonic: louder in, louder (or equal) out.
        var ramp = (0..<1000).map { Float($0) / 100 }, rampR = ramp
        Self.run(limiter, &ramp, &rampR)
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 <= $1 })
    }
}

extension DSPUnitTests {
    @Test func anOpenLadderPassesNormalLevelsUnchanged() {
        // The tilt ladder sits wide open in the other modes: it must not colour or compress the tone.
        let ladder = MoogLadder(sampleRate: Self.rate, rampSamples: Self.ramp, cutoff: 20_000, resonance: 0)
        var left = Self.sine(1760, amplitude: 0.5, count: 48_000), right = left
        Self.run(ladder, &left, &right)
        #expect(abs(Spectrum.amplitude(left[24_000...], at: 1760, sampleRate: Self.rate) - 0.5) < 0.001)
        #expect(Spectrum.amplitude(left[24_000...], at: 5280, sampleRate: Self.rate) < 1e-5)
    }
}

extension DSPUnitTests {
    // MARK: Tick

    @Test func tickIsAShortSoftBurstAboveThePitchRange() {
        let tick = Tick(sampleRate: Self.rate, level: 0.25)
        var left = [Float](repeating: 0, count: 4800), right = left
        func run(_ range: Range<Int>) { Self.run(tick, &left, &right, from: range.lowerBound, count: range.count) }
        run(0..<480)
        #expect(SignalAnalysis.peak(left[0..<480]) == 0 && !tick.isRinging)
        tick.trigger()
        run(480..<4800)
        #expect(left == right)
        // It rises over half a millisecond (no click) to its level, and is gone 50 ms later.
        #expect(SignalAnalysis.peak(left[480..<484]) < 0.05)
        #expect(abs(SignalAnalysis.peak(left[480..<720]) - 0.25) < 0.01)
        #expect(SignalAnalysis.peak(left[2880...]) == 0 && !tick.isRinging)
        // Its pitch is 3.2 kHz, clear of the default's top note (1760 Hz).
        let burst = left[480..<1440]
        #expect(
            Spectrum.amplitude(burst, at: 3200, sampleRate: Self.rate)
                > 20 * Spectrum.amplitude(burst, at: 1760, sampleRate: Self.rate))
        // It adds to what is there.
        left = [Float](repeating: 0.5, count: 4800)
        run(0..<4800)
        #expect(left.allSatisfy { $0 == 0.5 })
    }

    // MARK: Waiting pulse

    @Test func waitingPulseSwellsOnceASecondWhileAWaitLastsAndStopsAfter() {
        let rate = Int(Self.rate)
        let pulse = WaitingPulse(sampleRate: Self.rate, level: 0.04)
        var left = [Float](repeating: 0, count: 4 * rate), right = left
        func run(_ range: Range<Int>) { Self.run(pulse, &left, &right, from: range.lowerBound, count: range.count) }
        // Nobody waits: silence, at no cost.
        run(0..<(rate / 2))
        #expect(SignalAnalysis.peak(left[0..<(rate / 2)]) == 0 && !pulse.isSounding)
        pulse.isOn = true
        let start = rate / 2, swell = Int(WaitingPulse.swellTime * Self.rate)
        // Switched off in the middle of the third swell.
        let end = start + 2 * rate + swell / 2 + 64
        run(start..<end)
        pulse.isOn = false
        run(end..<(4 * rate))
        #expect(left == right)
        for second in 0..<2 {
            let first = start + second * rate
            // A swell at its level, then quiet until the next second.
            #expect(abs(SignalAnalysis.peak(left[first..<(first + swell)]) - 0.04) < 0.002)
            #expect(SignalAnalysis.peak(left[(first + swell)..<(first + rate)]) == 0)
            // It swells in: no click at its start.
            #expect(SignalAnalysis.peak(left[first..<(first + rate / 100)]) < 0.002)
        }
        // Low, at its pitch: a G4.
        let heard = left[start..<(start + swell)]
        #expect(
            Spectrum.amplitude(heard, at: 392, sampleRate: Self.rate)
                > 20 * Spectrum.amplitude(heard, at: 784, sampleRate: Self.rate))
        // Stopped, it fades out within its fade time, never in a step, and then is silent.
        let steps = zip(left[start...].dropFirst(), left[start...]).map { abs($0 - $1) }
        #expect(steps.max()! < Float(2 * Double.pi * 392 / Self.rate * 0.04 * 1.2))
        let faded = end + Int(WaitingPulse.fadeTime * Self.rate) + 128
        #expect(SignalAnalysis.peak(left[end..<(end + 64)]) > 0.01)
        #expect(SignalAnalysis.peak(left[faded...]) == 0 && !pulse.isSounding)
        // It adds to what is there; at level 0 it is never heard.
        let none = WaitingPulse(sampleRate: Self.rate, level: 0)
        none.isOn = true
        var ones = [Float](repeating: 0.5, count: rate), others = ones
        Self.run(none, &ones, &others)
        #expect(ones.allSatisfy { $0 == 0.5 } && !none.isSounding)
    }

    @Test func fastSineMatchesSineEverywhereItIsUsed() {
        var random = SeededRandom(seed: 42)
        var worst = 0.0
        for _ in 0..<100_000 {
            // Oscillator phases, FM-modulated phases (negative too), panner angles.
            let phase = (random.unitInterval() - 0.3) * 40
            worst = max(worst, abs(Double(FastMath.sine(cycles: phase)) - sin(2 * Double.pi * phase)))
        }
        for phase in [0.0, 0.25, 0.5, 0.75, 1, -0.25, 123.125, 1e9 + 0.25] {
            worst = max(worst, abs(Double(FastMath.sine(cycles: phase)) - sin(2 * Double.pi * phase)))
        }
        // Float rounding of the result is 6e-8 at most; the polynomial adds about as much.
        #expect(worst < 1.2e-7)
        #expect(
            FastMath.nearestInteger(2.5) == 2 && FastMath.nearestInteger(-1.4) == -1
                && FastMath.nearestInteger(7.6) == 8)
    }
}

extension DSPUnitTests {
    // MARK: Square oscillator

    @Test func squareWaveHasOddHarmonicsAndLittleAliasing() {
        let oscillator = SquareOscillator(sampleRate: 48_000, rampSamples: 240, frequency: 1000)
        let x = DSPUnitTests.render(oscillator, count: 48_000).left
        // 4/(πn) for odd n; the band-limiting tapers the upper ones a little (7 % at 7 kHz).
        for (n, tolerance) in [(1, 0.01), (3, 0.02), (5, 0.05), (7, 0.1)] {
            let expected = 4 / (Double.pi * Double(n))
            #expect(
                abs(Spectrum.amplitude(x[...], at: 1000 * Double(n), sampleRate: 48_000) / expected - 1) < tolerance,
                "harmonic \(n)")
        }
        #expect(Spectrum.amplitude(x[...], at: 2000, sampleRate: 48_000) < 0.005)
        // A naive square aliases the 25th harmonic (25 kHz) down to 23 kHz; band-limited, it is small.
        #expect(Spectrum.amplitude(x[...], at: 23_000, sampleRate: 48_000) < 0.01)
    }
}
