import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// Every parameter each sound unit declares, driven over its declared range and beyond while the unit renders.
@Suite struct ParameterSweepTests {
    static let rate = 48_000.0
    /// The ramps the engine makes: 5 ms (the default glide), and 20 ms for a filter's parameters.
    static let ramp = 240, filterRamp = 960
    /// An effect works on a 330 Hz sine at half scale; a source adds to silence.
    static let tone: Float = 0.5

    /// One ramped parameter of one unit, and how the test reaches it.
    struct Ramped {
        let unit: String
        let def: ParameterDef
        let rampSamples: Int
        /// Whether it glides in octaves (a frequency) rather than in a straight line.
        let inOctaves: Bool
        /// A source adds its own sound to silence; an effect works on `tone`.
        let isSource: Bool
        /// The loudest the unit can be, whatever its parameters: the reason is given where each is listed.
        let bound: Float
        /// A fresh unit with the parameter at `value`; its other parameters are set so that this one is heard.
        let make: (Double) -> any SoundUnit
        let glide: (any SoundUnit, Double) -> Void
        /// The ramp's value now, and the range it clamps its targets to.
        let state: (any SoundUnit) -> (value: Double, range: ClosedRange<Double>)
        /// The change the ramp check makes at once; the whole range unless set.
        var change: (from: Double, to: Double)?

        var name: String { "\(unit) \(def.name)" }
        var range: ClosedRange<Double> { def.range(sampleRate: ParameterSweepTests.rate) }

        /// A value `u` of the way from `a` to `b`: in octaves or in a straight line, as the ramp glides.
        func between(_ a: Double, _ b: Double, _ u: Double) -> Double {
            inOctaves ? a * pow(b / a, u) : a + (b - a) * u
        }

        /// A little below and above the range: a fifth of an octave, or a tenth of its width.
        var beyond: (below: Double, above: Double) {
            if inOctaves { return (range.lowerBound / 1.15, range.upperBound * 1.15) }
            let margin = (range.upperBound - range.lowerBound) / 10
            return (range.lowerBound - margin, range.upperBound + margin)
        }
    }

    static func linear<Unit: SoundUnit>(
        _ def: ParameterDef, _ path: ReferenceWritableKeyPath<Unit, LinearRamp>, rampSamples: Int = ramp,
        isSource: Bool = false, bound: Float, _ make: @escaping (Double) -> Unit
    ) -> Ramped {
        Ramped(
            unit: "\(Unit.self)", def: def, rampSamples: rampSamples, inOctaves: false, isSource: isSource,
            bound: bound, make: make, glide: { ($0 as! Unit)[keyPath: path].glide(to: $1) },
            state: { unit in
                let ramp = (unit as! Unit)[keyPath: path]
                return (ramp.value, ramp.range)
            })
    }

    static func exponential<Unit: SoundUnit>(
        _ def: ParameterDef, _ path: ReferenceWritableKeyPath<Unit, ExponentialRamp>, rampSamples: Int = ramp,
        isSource: Bool = false, bound: Float, _ make: @escaping (Double) -> Unit
    ) -> Ramped {
        Ramped(
            unit: "\(Unit.self)", def: def, rampSamples: rampSamples, inOctaves: true, isSource: isSource,
            bound: bound, make: make, glide: { ($0 as! Unit)[keyPath: path].glide(to: $1) },
            state: { unit in
                let ramp = (unit as! Unit)[keyPath: path]
                return (ramp.value, ramp.range)
            })
    }

    /// Every ramped parameter of every unit.
    static var ramped: [Ramped] {
        let rate = Self.rate, ramp = Self.ramp, filterRamp = Self.filterRamp
        let frequency = OscillatorParameters.frequencyDef, level = OscillatorParameters.levelDef
        // A sine at its level is at most 1. The modulator is heard with some index, the index with the modulator at
        // the carrier's frequency.
        let fm: [Ramped] = [
            exponential(frequency, \FMOscillator.carrierFrequency, isSource: true, bound: 1) {
                FMOscillator(sampleRate: rate, rampSamples: ramp, carrierFrequency: $0)
            },
            linear(FMOscillator.modulatorRatioDef, \FMOscillator.modulatorRatio, isSource: true, bound: 1) {
                FMOscillator(sampleRate: rate, rampSamples: ramp, modulatorRatio: $0, index: 2)
            },
            linear(FMOscillator.indexDef, \FMOscillator.index, isSource: true, bound: 1) {
                FMOscillator(sampleRate: rate, rampSamples: ramp, index: $0)
            },
            linear(level, \FMOscillator.level, isSource: true, bound: 1) {
                FMOscillator(sampleRate: rate, rampSamples: ramp, level: $0)
            }
        ]
        // A square is ±1 at its level, and each edge's correction is at most 1 in size; near the Nyquist frequency
        // both edges' corrections overlap: at most 3.
        let square: [Ramped] = [
            exponential(frequency, \SquareOscillator.frequency, isSource: true, bound: 3) {
                SquareOscillator(sampleRate: rate, rampSamples: ramp, frequency: $0)
            },
            linear(level, \SquareOscillator.level, isSource: true, bound: 3) {
                SquareOscillator(sampleRate: rate, rampSamples: ramp, level: $0)
            }
        ]
        // A gain, a pan and a crossfade of the tone and its inverse never give more than the tone.
        let gains: [Ramped] = [
            linear(Fader.gainDef, \Fader.gain, bound: tone) { Fader(rampSamples: ramp, gain: $0) },
            linear(Panner.panDef, \Panner.pan, bound: tone) { Panner(rampSamples: ramp, pan: $0) },
            linear(DryWetMixer.balanceDef, \DryWetMixer.balance, bound: tone) {
                DryWetMixer(
                    SynthEngineTests.Inverter(), rampSamples: ramp, balance: $0, capacity: SynthEngine.blockSize)
            }
        ]
        // Each echo is at most 0.99 of the last, so the echoes add up to at most 1 / (1 − 0.99) = 100 times the tone.
        let delayBound = tone * 100
        let delay: [Ramped] = [
            // Its time is where the echoes are read: as it glides they play faster or slower, as steeply as it
            // glides, so a change across the range is heard as a swoop, not a click. The ramp check changes it by
            // 1 ms: over the 5 ms ramp the echoes play a fifth faster, where a jump would skip 48 samples at once.
            {
                var time = linear(FeedbackDelay.timeDef, \FeedbackDelay.time, bound: delayBound) {
                    FeedbackDelay(sampleRate: rate, rampSamples: ramp, time: $0)
                }
                time.change = (from: 0.1, to: 0.101)
                return time
            }(),
            linear(FeedbackDelay.feedbackDef, \FeedbackDelay.feedback, bound: delayBound) {
                FeedbackDelay(sampleRate: rate, rampSamples: ramp, feedback: $0)
            },
            linear(FeedbackDelay.mixDef, \FeedbackDelay.mix, bound: delayBound) {
                FeedbackDelay(sampleRate: rate, rampSamples: ramp, mix: $0)
            }
        ]
        let reverbBound = Self.reverbBound
        let reverb: [Ramped] = [
            linear(CostelloReverb.feedbackDef, \CostelloReverb.feedback, rampSamples: filterRamp, bound: reverbBound) {
                CostelloReverb(sampleRate: rate, rampSamples: filterRamp, feedback: $0)
            },
            exponential(CostelloReverb.cutoffDef, \CostelloReverb.cutoff, rampSamples: filterRamp, bound: reverbBound) {
                CostelloReverb(sampleRate: rate, rampSamples: filterRamp, cutoff: $0)
            }
        ]
        let ladderBound = Self.ladderBound
        let ladder: [Ramped] = [
            exponential(MoogLadder.cutoffDef, \MoogLadder.cutoff, rampSamples: filterRamp, bound: ladderBound) {
                MoogLadder(sampleRate: rate, rampSamples: filterRamp, cutoff: $0, resonance: 0.6)
            },
            linear(MoogLadder.resonanceDef, \MoogLadder.resonance, rampSamples: filterRamp, bound: ladderBound) {
                MoogLadder(sampleRate: rate, rampSamples: filterRamp, resonance: $0)
            }
        ]
        // A beep is a sine under a sine-squared envelope, at the guide's level, panned with equal power: at most its
        // level. Each is heard beeping eight times a second.
        let beepBound = Float(GuideBeeps.levelDef.defaultValue) * 1.0001
        let guide: [Ramped] = [
            linear(GuideBeeps.rateDef, \GuideBeeps.rate, isSource: true, bound: beepBound) {
                GuideBeeps(sampleRate: rate, rampSamples: ramp, rate: $0)
            },
            exponential(GuideBeeps.frequencyDef, \GuideBeeps.frequency, isSource: true, bound: beepBound) {
                GuideBeeps(sampleRate: rate, rampSamples: ramp, rate: 8, frequency: $0)
            },
            linear(GuideBeeps.panDef, \GuideBeeps.pan, isSource: true, bound: beepBound) {
                GuideBeeps(sampleRate: rate, rampSamples: ramp, rate: 8, pan: $0)
            },
            linear(GuideBeeps.loudnessDef, \GuideBeeps.loudness, isSource: true, bound: beepBound) {
                GuideBeeps(sampleRate: rate, rampSamples: ramp, rate: 8, loudness: $0)
            }
        ]
        return fm + square + gains + delay + reverb + ladder + guide
    }

    /// The ladder gives a tone the most at its resonant peak. There its feedback is saturated, so it adds at most
    /// `maximumFeedback` in size to what the stages take in, each stage's gain is at most 1 at every frequency, and
    /// the output is raised by at most 1 + `compensation`·`maximumFeedback`: about 14.
    static let ladderBound =
        (tone + MoogLadder.maximumFeedback) * (1 + MoogLadder.compensation * MoogLadder.maximumFeedback)

    /// The reverb's lines pass what they hold round a junction that only redistributes it, each keeping at most
    /// 0.999 of it each time: a steady tone builds up in them to at most 1 / (1 − 0.999) = 1000 times, and each
    /// side is four lines at 0.35: 700.
    static let reverbBound = tone * Float(1 / (1 - CostelloReverb.feedbackDef.range.upperBound)) * 4 * 0.35

    // MARK: Rendering

    /// A unit rendered block by block as the engine renders it, on the tone or on silence, keeping both channels.
    final class Bench {
        let unit: any SoundUnit
        let isSource: Bool
        private(set) var left: [Float] = [], right: [Float] = []

        init(_ unit: any SoundUnit, isSource: Bool) { self.unit = unit; self.isSource = isSource }

        var count: Int { left.count }

        func render(_ frames: Int) {
            let start = left.count
            var l = (start..<start + frames).map { n -> Float in
                isSource ? 0 : tone * Float(sin(2 * Double.pi * 330 * Double(n) / rate))
            }
            var r = l
            DSPUnitTests.run(unit, &l, &r)
            left += l
            right += r
        }

        /// The largest sample-to-sample change on either channel within `range`.
        func largestStep(_ range: Range<Int>) -> Float {
            range.dropFirst().map { max(abs(left[$0] - left[$0 - 1]), abs(right[$0] - right[$0 - 1])) }.max() ?? 0
        }

        var peak: Float { zip(left, right).map { max(abs($0), abs($1)) }.max() ?? 0 }
        var isFinite: Bool { left.allSatisfy(\.isFinite) && right.allSatisfy(\.isFinite) }
    }

    // MARK: Over the range and beyond

    @Test(arguments: ramped.map(\.name))
    func sweptOverItsRangeAndBeyondTheUnitStaysFiniteBoundedAndClamped(name: String) throws {
        let parameter = try #require(Self.ramped.first { $0.name == name })
        let range = parameter.range
        let bench = Bench(parameter.make(parameter.def.defaultValue), isSource: parameter.isSource)
        #expect(parameter.state(bench.unit).range == range, "\(name) clamps to another range than it declares")
        let (below, above) = parameter.beyond
        // From below the range to above it and back, a new target every 10 ms, a second each way.
        let path = (0...100).map { parameter.between(below, above, Double($0) / 100) }
        for target in path + path.reversed() {
            parameter.glide(bench.unit, target)
            bench.render(480)
            #expect(range.contains(parameter.state(bench.unit).value), "\(name) left its range")
        }
        // Asked for beyond either end, it settles on that end.
        for (target, end) in [(above, range.upperBound), (below, range.lowerBound)] {
            parameter.glide(bench.unit, target)
            bench.render(Int(Self.rate))
            #expect(parameter.state(bench.unit).value == end, "\(name) asked for \(target)")
        }
        #expect(bench.isFinite, "\(name)")
        #expect(bench.peak <= parameter.bound, "\(name): peak \(bench.peak), bound \(parameter.bound)")
    }

    // MARK: Ramps

    /// The largest sample-to-sample change while the parameter goes from `a` to `b`: at once (the unit's own glide),
    /// or slowly, in small steps over half a second. Also the largest in the settled sound before and after.
    func transition(_ parameter: Ramped, from a: Double, to b: Double, slowly: Bool) -> (
        during: Float, settled: Float
    ) {
        let bench = Bench(parameter.make(a), isSource: parameter.isSource)
        // The change comes where the tone is at its peak, and a 440 Hz source most of the way to its own: a change
        // that jumped would show there at about its full size.
        bench.render(14_437)
        let before = bench.largestStep(4800..<bench.count)
        let start = bench.count
        if slowly {
            for step in 1...500 {
                parameter.glide(bench.unit, parameter.between(a, b, Double(step) / 500))
                bench.render(48)
            }
        } else {
            parameter.glide(bench.unit, b)
            bench.render(Int(0.5 * Self.rate))
        }
        let during = bench.largestStep(start..<bench.count)
        let end = bench.count
        bench.render(Int(0.3 * Self.rate))
        return (during, max(before, bench.largestStep((end + 4800)..<bench.count)))
    }

    /// As the engine's check: a change made at once may move a little faster than the same change made slowly, but
    /// never by more than a quarter — plus one step of a straight-line ramp on the sound it scales.
    @Test(arguments: ramped.map(\.name))
    func aChangeMadeAtOnceIsNoSharperThanTheSameChangeMadeSlowly(name: String) throws {
        let parameter = try #require(Self.ramped.first { $0.name == name })
        let (a, b) = parameter.change ?? (parameter.range.lowerBound, parameter.range.upperBound)
        let signal: Float = parameter.isSource ? 1 : Self.tone
        let rampStep = parameter.inOctaves ? 0 : Float(abs(b - a)) / Float(parameter.rampSamples) * signal
        for (from, to) in [(a, b), (b, a)] {
            let sudden = transition(parameter, from: from, to: to, slowly: false)
            let gradual = transition(parameter, from: from, to: to, slowly: true)
            let bound = max(gradual.during, gradual.settled, sudden.settled)
            #expect(
                sudden.during <= 1.25 * bound + rampStep,
                "\(name) from \(from) to \(to): \(sudden.during) at once, \(bound) slowly")
        }
    }

    @Test func everyRampOfEveryUnitIsSwept() {
        for (unit, swept) in Dictionary(grouping: Self.ramped, by: \.unit) {
            let instance = swept[0].make(swept[0].def.defaultValue)
            let ramps = Mirror(reflecting: instance).children.filter {
                $0.value is LinearRamp || $0.value is ExponentialRamp
            }
            #expect(ramps.count == swept.count, "\(unit) has \(ramps.count) ramps; \(swept.count) are swept")
        }
    }

    // MARK: Parameters fixed when the unit is made

    /// Each at values below, across and above its range.
    static func values(_ def: ParameterDef) -> [Double] {
        let width = def.range.upperBound - def.range.lowerBound
        return [-0.2, 0, 0.5, 1, 1.2].map { def.range.lowerBound + width * $0 }
    }

    @Test func theTicksLevelIsItsPeakWithinItsRange() {
        for level in Self.values(Tick.levelDef) {
            let tick = Tick(sampleRate: Self.rate, level: level)
            tick.trigger()
            let bench = Bench(tick, isSource: true)
            bench.render(4800)
            let expected = Float(Tick.levelDef.clamped(level))
            #expect(bench.isFinite)
            #expect(abs(bench.peak - expected) <= 0.04 * expected, "level \(level): peak \(bench.peak)")
        }
    }

    @Test func theLimitersThresholdIsWhereItStartsWithinItsRange() {
        for threshold in Self.values(SoftLimiter.thresholdDef) {
            let limiter = SoftLimiter(threshold: threshold)
            let input = (0...2000).map { Float($0) / 1000 }
            var left = input, right = input
            DSPUnitTests.run(limiter, &left, &right)
            // Untouched up to the threshold; a hundredth above it, the curve has begun.
            let start = Float(SoftLimiter.thresholdDef.clamped(threshold))
            for (x, y) in zip(input, left) where x <= start || x >= start + 0.01 {
                #expect((y == x) == (x <= start), "threshold \(threshold): \(x) became \(y)")
            }
            #expect(left.allSatisfy { $0.isFinite && $0 <= 1 })
        }
    }

    @Test func aSweepsLengthIsItsLengthWithinItsRange() {
        for length in Self.values(ImageSweep.lengthDef) {
            let sweep = ImageSweep(sampleRate: Self.rate, length: length)
            sweep.load(
                ImageSweep.Table(
                    levels: [Float](repeating: 1, count: 8 * ImageSweep.bands), steps: 8, toneAmplitude: 0.5,
                    peak: 0.9))
            sweep.start()
            let expected = ImageSweep.lengthDef.clamped(length)
            let bench = Bench(sweep, isSource: true)
            bench.render(Int((expected + 0.5) * Self.rate))
            let last = bench.left.lastIndex { $0 != 0 } ?? 0
            #expect(
                abs(Double(last + 1) / Self.rate - expected) < 0.001,
                "length \(length): \(Double(last + 1) / Self.rate) s")
            #expect(bench.isFinite && bench.peak <= 0.9)
        }
    }

    @Test func theGuidesLevelIsItsPeakWithinItsRange() {
        for level in Self.values(GuideBeeps.levelDef) {
            let bench = Bench(
                GuideBeeps(sampleRate: Self.rate, rampSamples: Self.ramp, rate: 4, level: level), isSource: true)
            bench.render(Int(Self.rate))
            // Centred: each side the level times the equal-power centre's gain.
            let expected = Float(GuideBeeps.levelDef.clamped(level) * 0.5.squareRoot())
            #expect(bench.isFinite)
            #expect(abs(bench.peak - expected) <= 0.01 * max(expected, 0.001), "level \(level): peak \(bench.peak)")
        }
    }

    @Test func aNotesLengthIsItsLengthWithinItsRange() {
        for length in Self.values(NoteEnvelope.lengthDef) {
            let envelope = NoteEnvelope(sampleRate: Self.rate, length: length)
            envelope.trigger()
            var left = [Float](repeating: 1, count: Int(3 * Self.rate)), right = left
            DSPUnitTests.run(envelope, &left, &right)
            let sounding = Double(left.filter { $0 > 0 }.count) / Self.rate
            let expected = NoteEnvelope.lengthDef.clamped(length)
            #expect(abs(sounding - expected) < 0.001, "length \(length): \(sounding) s")
            #expect(left.allSatisfy { $0 >= 0 && $0 <= 1 })
        }
    }
}
