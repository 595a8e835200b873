import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// The sweeps of the image and the guide's beeps, measured on what they render.
@Suite struct SweepTests {
    static let rate = 48_000.0

    /// A 128 × 96 image, black but for a bright upper left quarter: the default stretch makes it level 1 there.
    static let quarter = GrayImage(
        width: 128, height: 96, bitDepth: 16,
        samples: (0..<(128 * 96)).map { $0 % 128 < 64 && $0 / 128 < 48 ? 60_000 : 0 })

    static func instrument(_ image: GrayImage, length: Double) -> Instrument {
        var profile = Profile.plainMapping
        profile.chain.sweepLength = length
        return Instrument(image: image, profile: profile, statistics: SampleStatistics(image))
    }

    /// `seconds` of a unit's sound on silence, in blocks as the engine renders it.
    static func render(_ unit: any SoundUnit, seconds: Double) -> (left: [Float], right: [Float]) {
        var left = [Float](repeating: 0, count: Int(seconds * rate)), right = left
        DSPUnitTests.run(unit, &left, &right)
        return (left, right)
    }

    static func engine(_ image: GrayImage, length: Double) -> (SynthEngine, SynthControls) {
        let controls = SynthControls()
        var chain = SoundChain.plainTone
        chain.sweepLength = length
        let engine = SynthEngine(chain: chain, sampleRate: rate, controls: controls)
        engine.load(instrument(image, length: length).sweepTables)
        return (engine, controls)
    }

    static func render(_ engine: SynthEngine, seconds: Double) -> (left: [Float], right: [Float]) {
        let frames = Int(seconds * rate)
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: frames, channels: 2) }
        return (
            stride(from: 0, to: out.count, by: 2).map { out[$0] }, stride(from: 1, to: out.count, by: 2).map { out[$0] }
        )
    }

    // MARK: The image sweep

    @Test func theTableHoldsEachBoxsBrightnessWithinThePeakAndThePensLoudness() {
        // Two seconds: 128 steps at 64 a second, one a column of the image.
        let table = Self.instrument(Self.quarter, length: 2).sweepTables.image
        #expect(table.steps == 128)
        let peak = Profile.plainMapping.chain.limiterThreshold
        for s in 0..<table.steps {
            let amplitudes = (0..<ImageSweep.bands).map { Double(table.amplitude(step: s, band: $0)) }
            // The upper left quarter: the left half of the steps, the top half of the bands.
            for (b, a) in amplitudes.enumerated() { #expect((a > 0) == (s < 64 && b < 24), "step \(s), band \(b)") }
            #expect(amplitudes.reduce(0, +) <= peak + 1e-6)
        }
        // A white image: every band alike, its sum at most the peak, and no louder than the pen's tone.
        let white = ImageSweep.Table(
            levels: [Float](repeating: 1, count: ImageSweep.bands), steps: 1,
            toneAmplitude: Profile.plainMapping.amplitude, peak: peak)
        let bright = (0..<ImageSweep.bands).map { Double(white.amplitude(step: 0, band: $0)) }
        #expect(bright.reduce(0, +) <= peak + 1e-6)
        let tonePower = Profile.plainMapping.amplitude * Profile.plainMapping.amplitude / 2
        #expect(bright.reduce(0) { $0 + $1 * $1 / 2 } <= tonePower)
        // Without the peak to hold it, exactly as loud as the pen's tone.
        let unheld = ImageSweep.Table(
            levels: [Float](repeating: 1, count: ImageSweep.bands), steps: 1,
            toneAmplitude: Profile.plainMapping.amplitude, peak: 100)
        let power = (0..<ImageSweep.bands).reduce(0.0) { $0 + pow(Double(unheld.amplitude(step: 0, band: $1)), 2) / 2 }
        #expect(abs(power - tonePower) < 1e-6)
        // One bright band alone: as loud as the pen's tone spread over the bands.
        let single = ImageSweep.Table(
            levels: (0..<ImageSweep.bands).map { $0 == 5 ? 1 : 0 }, steps: 1, toneAmplitude: 0.5, peak: 0.9)
        #expect(abs(Double(single.amplitude(step: 0, band: 5)) - 0.5 / Double(ImageSweep.bands).squareRoot()) < 1e-6)
    }

    @Test func theBandsRunFromHighAtTheTopToLowAtTheBottomEvenlyInOctaves() {
        #expect(abs(ImageSweep.frequency(band: 0) - ImageSweep.highest) < 1e-9)
        #expect(abs(ImageSweep.frequency(band: ImageSweep.bands - 1) - ImageSweep.lowest) < 1e-9)
        let ratios = (1..<ImageSweep.bands).map { ImageSweep.frequency(band: $0 - 1) / ImageSweep.frequency(band: $0) }
        #expect(ratios.allSatisfy { abs($0 - ratios[0]) < 1e-9 })
    }

    /// A bright spot high on the left sounds high and on the left, early; one low on the right, low and on the right,
    /// late; the sweep lasts its length and ends in silence.
    @Test func aSpotSoundsWhereItIsHighOrLowLeftOrRightEarlyOrLate() {
        let steps = 64
        var levels = [Float](repeating: 0, count: steps * ImageSweep.bands)
        // High left: steps 4–11, band 3. Low right: steps 52–59, band 43.
        for s in 4..<12 { levels[s * ImageSweep.bands + 3] = 1 }
        for s in 52..<60 { levels[s * ImageSweep.bands + 43] = 1 }
        let sweep = ImageSweep(sampleRate: Self.rate, length: 1)
        sweep.load(ImageSweep.Table(levels: levels, steps: steps, toneAmplitude: 0.5, peak: 0.9))
        sweep.start()
        let (left, right) = Self.render(sweep, seconds: 1.2)
        let mono = zip(left, right).map { ($0 + $1) / 2 }
        func piece(_ from: Double, _ to: Double) -> ArraySlice<Float> {
            mono[Int(from * Self.rate)..<Int(to * Self.rate)]
        }
        let high = ImageSweep.frequency(band: 3), low = ImageSweep.frequency(band: 43)
        // Steps 4–11 of 64 in a second: 62.5–187.5 ms; 52–59: 812.5–937.5 ms.
        let early = piece(0.08, 0.17), late = piece(0.83, 0.92)
        #expect(Spectrum.amplitude(early, at: high, sampleRate: Self.rate) > 0.02)
        #expect(Spectrum.amplitude(early, at: low, sampleRate: Self.rate) < 0.002)
        #expect(Spectrum.amplitude(late, at: low, sampleRate: Self.rate) > 0.02)
        #expect(Spectrum.amplitude(late, at: high, sampleRate: Self.rate) < 0.002)
        #expect(SignalAnalysis.rms(piece(0.3, 0.7)) < 1e-4, "between the spots, quiet")
        func balance(_ from: Double, _ to: Double) -> Double {
            let range = Int(from * Self.rate)..<Int(to * Self.rate)
            return SignalAnalysis.rms(left[range]) / SignalAnalysis.rms(right[range])
        }
        #expect(balance(0.08, 0.17) > 2, "early: on the left")
        #expect(balance(0.83, 0.92) < 0.5, "late: on the right")
        #expect(SignalAnalysis.peak(mono[Int(Self.rate)...]) == 0, "over at its length")
    }

    @Test func aStoppedSweepFadesOutWithinTenMilliseconds() {
        let sweep = ImageSweep(sampleRate: Self.rate, length: 1)
        sweep.load(
            ImageSweep.Table(
                levels: [Float](repeating: 1, count: 8 * ImageSweep.bands), steps: 8, toneAmplitude: 0.5, peak: 0.9))
        sweep.start()
        _ = Self.render(sweep, seconds: 0.3)
        sweep.stop()
        let (left, _) = Self.render(sweep, seconds: 0.1)
        #expect(SignalAnalysis.peak(left[0..<48]) > 0.01, "a fade, not a cut")
        #expect(SignalAnalysis.peak(left[480...]) == 0)
    }

    // MARK: The line sweep

    /// The row through the bright quarter plays the pen's pitch for level 1 (1760 Hz) over its left half and level 0
    /// (110 Hz) over its right, over the sweep's length; then the pen (silent) has the sound back.
    @Test func aRowPlaysThePensPitchesAlongItOverTheSweepsLength() {
        let (engine, controls) = Self.engine(Self.quarter, length: 1)
        controls.sweep(.row(20), at: SynthControls.immediately)
        let (left, _) = Self.render(engine, seconds: 1.2)
        let first = SignalAnalysis.zeroCrossingFrequency(left[2400..<21_600], sampleRate: Self.rate) ?? 0
        let second = SignalAnalysis.zeroCrossingFrequency(left[26_400..<45_600], sampleRate: Self.rate) ?? 0
        #expect(abs(first / 1760 - 1) < 0.001, "\(first) Hz")
        #expect(abs(second / 110 - 1) < 0.001, "\(second) Hz")
        #expect(abs(SignalAnalysis.peak(left[2400..<21_600]) - Profile.plainMapping.amplitude) < 0.01)
        #expect(SignalAnalysis.peak(left[(48_000 + 480)...]) == 0, "over at its length")
        // The column through the quarter: bright over its top half.
        controls.sweep(.column(10), at: SynthControls.immediately)
        let (down, _) = Self.render(engine, seconds: 1)
        let top = SignalAnalysis.zeroCrossingFrequency(down[2400..<21_600], sampleRate: Self.rate) ?? 0
        let bottom = SignalAnalysis.zeroCrossingFrequency(down[26_400..<45_600], sampleRate: Self.rate) ?? 0
        #expect(abs(top / 1760 - 1) < 0.001 && abs(bottom / 110 - 1) < 0.001, "\(top) Hz, \(bottom) Hz")
    }

    /// The pen's own targets wait while a line plays, and sound once it is stopped.
    @Test func aStoppedLineGivesThePenItsSoundBack() {
        let (engine, controls) = Self.engine(Self.quarter, length: 1)
        controls.sweep(.row(20), at: SynthControls.immediately)
        _ = Self.render(engine, seconds: 0.1)
        controls.set(SynthTargets(frequency: 440, amplitude: 0.3), at: SynthControls.immediately)
        let (during, _) = Self.render(engine, seconds: 0.2)
        let swept = SignalAnalysis.zeroCrossingFrequency(during[480...], sampleRate: Self.rate) ?? 0
        #expect(abs(swept / 1760 - 1) < 0.001, "the line, not the pen: \(swept) Hz")
        controls.sweep(nil, at: SynthControls.immediately)
        let (after, _) = Self.render(engine, seconds: 0.2)
        let pen = SignalAnalysis.zeroCrossingFrequency(after[960...], sampleRate: Self.rate) ?? 0
        #expect(abs(pen / 440 - 1) < 0.001, "\(pen) Hz")
        #expect(abs(SignalAnalysis.peak(after[960...]) - 0.3) < 0.01)
    }

    @Test func theLineTableHoldsThePensPitchForEachBoxsMeanSample() {
        let instrument = Self.instrument(Self.quarter, length: 1)
        let lines = instrument.sweepTables.lines
        #expect(lines.rowSteps == 128 && lines.columnSteps == 96)
        #expect(lines.frequency(.row(0), step: 0) == Float(instrument.frequency(level: 1, sample: 60_000)))
        #expect(lines.frequency(.row(0), step: 100) == Float(instrument.frequency(level: 0, sample: 0)))
        #expect(lines.frequency(.column(100), step: 0) == Float(instrument.frequency(level: 0, sample: 0)))
        #expect(lines.steps(.row(96)) == 0 && lines.steps(.column(-1)) == 0)
        // A wide image's rows are boxed into the most steps a line has, each the mean of its pixels.
        let wide = GrayImage(
            width: 1024, height: 2, bitDepth: 16, samples: (0..<2048).map { UInt16($0 % 1024 < 2 ? 40_000 : 0) })
        let boxed = Self.instrument(wide, length: 1)
        let table = boxed.sweepTables.lines
        #expect(table.rowSteps == LineSweep.Table.mostSteps)
        let mean = (40_000.0 + 40_000 + 0 + 0) / 4
        #expect(
            table.frequency(.row(1), step: 0)
                == Float(boxed.frequency(level: boxed.stretch.level(value: mean), sample: mean)))
    }

    // MARK: The guide

    @Test func theGuideSaysWhichWayAndHowFar() throws {
        let guidance = Guidance(target: ImagePoint(x: 200, y: 200), radius: 20)
        func tone(_ x: Double, _ y: Double) -> GuideTone {
            guidance.tone(from: ImagePoint(x: x, y: y), width: 400, height: 400)
        }
        let centre = GuideBeeps.frequencyDef.defaultValue
        // The place to the left: heard on the left, at the middle pitch; to the right, on the right.
        #expect(tone(300, 200).pan == -1 && abs(tone(300, 200).frequency - centre) < 1e-9)
        #expect(tone(100, 200).pan == 1)
        // Above the nib: an octave higher; below: an octave lower; centred.
        #expect(abs(tone(200, 300).frequency - 2 * centre) < 1e-9 && abs(tone(200, 300).pan) < 1e-12)
        #expect(abs(tone(200, 100).frequency - centre / 2) < 1e-9)
        // Up and to the left at 45°: between.
        let diagonal = tone(250, 250)
        #expect(abs(diagonal.pan + 0.5.squareRoot()) < 1e-9)
        #expect(abs(diagonal.frequency - centre * pow(2, 0.5.squareRoot())) < 1e-6)
        // Nearer, faster: the fastest at the radius, the slowest a diagonal away.
        let rates = [400.0, 300, 250, 221].map { tone($0, 200).rate }
        #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 < $1 }, "\(rates)")
        #expect(abs(tone(220.0001, 200).rate - GuideBeeps.rateDef.range.upperBound) < 0.01)
        // A whole diagonal of the 400-pixel image away.
        #expect(abs(tone(-200, -200).rate - 1.5) < 1e-6)
        // There: the arrival cue, quieter than the beeps and unlike any of them.
        #expect(tone(210, 205) == .arrived && guidance.isReached(by: ImagePoint(x: 210, y: 205)))
        #expect(GuideTone.arrived.loudness < 0.5 && GuideTone.arrived.rate < Guidance.farthestRate * 2)
        #expect(guidance.tone(from: nil, width: 400, height: 400) == .silent)
    }

    @Test func theBeepsComeAtTheirRateWhereTheyArePlaced() {
        for rate in [2.0, 8] {
            let beeps = GuideBeeps(sampleRate: Self.rate, rampSamples: 240, rate: rate, frequency: 1000, pan: -1)
            let (left, right) = Self.render(beeps, seconds: 2)
            let onsets = Spectrum.burstOnsets(left, at: 1000, sampleRate: Self.rate, threshold: 0.01, minimumGap: 480)
            #expect(onsets.count == Int(2 * rate), "\(rate) a second: \(onsets.count) beeps")
            #expect(onsets.first.map { $0 < 480 } == true, "the first at once")
            #expect(SignalAnalysis.peak(right[...]) < 1e-6, "all on the left")
            #expect(abs(SignalAnalysis.peak(left[...]) - GuideBeeps.levelDef.defaultValue) < 0.005)
        }
        // At rate 0, nothing; a beep begun ends whole.
        let beeps = GuideBeeps(sampleRate: Self.rate, rampSamples: 240, rate: 4)
        let (begun, _) = Self.render(beeps, seconds: 0.01)
        beeps.rate.jump(to: 0)
        let (rest, _) = Self.render(beeps, seconds: 1)
        #expect(SignalAnalysis.peak(begun[...]) > 0 && SignalAnalysis.peak(rest[1920...]) == 0)
        #expect(SignalAnalysis.peak(rest[0..<960]) > 0.05)
    }

    /// Through the engine: the guide's targets travel with the pen's, whatever the pen sounds.
    @Test func theGuideBeepsThroughTheEngineBesideTheTone() {
        let (engine, controls) = Self.engine(Self.quarter, length: 1)
        controls.set(
            SynthTargets(frequency: 220, amplitude: 0.5, guide: GuideTone(rate: 4, frequency: 2000, pan: 1)),
            at: SynthControls.immediately)
        let (left, right) = Self.render(engine, seconds: 1)
        #expect(Spectrum.amplitude(right[...], at: 2000, sampleRate: Self.rate) > 0.003)
        #expect(Spectrum.amplitude(left[...], at: 2000, sampleRate: Self.rate) < 0.0005)
        #expect(abs(Spectrum.amplitude(left[...], at: 220, sampleRate: Self.rate) - 0.5) < 0.01)
    }
}
