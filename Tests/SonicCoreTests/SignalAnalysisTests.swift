import Foundation
import TestSupport
import Testing

/// The end-to-end tests' reading of a recorded stroke across five regions, on tones made here.
@Suite struct SignalAnalysisTests {
    static let rate = 48_000.0
    static let pitches = [110.0, 170.4, 320.7, 698.5, 1760.0]

    /// Five tones of 0.6 s, one after another, their phase running on, with `silences` (start, length in
    /// seconds) put in as a pause of the machine leaves them: the tone stops for that long and then goes
    /// on where it stopped.
    static func stroke(silences: [(Double, Double)] = []) -> [Float] {
        var phase = 0.0
        var x: [Float] = []
        for pitch in pitches {
            for _ in 0..<Int(0.6 * rate) {
                x.append(Float(0.5 * sin(phase)))
                phase += 2 * Double.pi * pitch / rate
            }
        }
        for (start, length) in silences {
            let from = Int(start * rate)
            x.replaceSubrange(from..<from, with: [Float](repeating: 0, count: Int(length * rate)))
        }
        return x
    }

    static func plateaus(_ x: [Float], machinePauses: Int = 0) -> [(frequency: Double, range: Range<Int>)] {
        SignalAnalysis.pitchPlateaus(
            x[...], sampleRate: rate, window: 2400, tolerance: 0.005, minimumLength: 9600,
            machinePauses: machinePauses)
    }

    static func exact(_ found: [(frequency: Double, range: Range<Int>)]) -> Bool {
        found.count == pitches.count && zip(found, pitches).allSatisfy { abs($0.frequency / $1 - 1) < 0.001 }
    }

    @Test func aCleanStrokeReadsEveryPitch() {
        #expect(Self.exact(Self.plateaus(Self.stroke())))
        #expect(Self.exact(Self.plateaus(Self.stroke(), machinePauses: 2)))
    }

    @Test func tonesAreReadOnTheirSteadyCyclesWhereTheMachinePaused() {
        // 10 ms of silence in the middle of the second tone, and 25 ms in the fourth.
        let broken = Self.stroke(silences: [(0.9125, 0.010), (2.1125, 0.025)])
        #expect(!Self.exact(Self.plateaus(broken)))
        let read = Self.plateaus(broken, machinePauses: 2)
        #expect(Self.exact(read) && read.allSatisfy { $0.range.count >= Int(0.5 * Self.rate) })
    }

    @Test func aSilentWindowIsBridgedAsOftenAsTheMachinePaused() {
        // 60 ms of silence, a whole window or more, in the second tone and in the fourth.
        let broken = Self.stroke(silences: [(0.9, 0.060), (2.15, 0.060)])
        #expect(!Self.exact(Self.plateaus(broken, machinePauses: 1)))
        let bridged = Self.plateaus(broken, machinePauses: 2)
        #expect(Self.exact(bridged) && bridged.allSatisfy { $0.range.count >= Int(0.5 * Self.rate) })
    }

    @Test func aWrongPitchIsNotBridgedAway() {
        // A tone that slips 3 % for 0.2 s in the middle stays three plateaus, however often the machine paused.
        var phase = 0.0
        let x = (0..<Int(1.0 * Self.rate)).map { i -> Float in
            let t = Double(i) / Self.rate
            phase += 2 * Double.pi * (t > 0.4 && t < 0.6 ? 453.2 : 440) / Self.rate
            return Float(0.5 * sin(phase))
        }
        #expect(Self.plateaus(x, machinePauses: 5).count == 3)
    }

    /// A tone of `amplitude` at 1760 Hz under a louder 1500 Hz one, for `seconds`, with a gap of `gap`
    /// seconds every `every` seconds, the phase running on across each.
    static func tone(amplitude: Double, seconds: Double, gap: Double, every: Double) -> [Float] {
        var x: [Float] = []
        var phase = 0.0, other = 0.0
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate
            if t.truncatingRemainder(dividingBy: every) < gap {
                x.append(0)
                continue
            }
            x.append(Float(amplitude * sin(phase) + 0.3 * sin(other)))
            phase += 2 * Double.pi * 1760 / rate
            other += 2 * Double.pi * 1500 / rate
        }
        return x
    }

    @Test func aToneIsMeasuredBetweenTheGapsTheMachineLeft() throws {
        // 10 ms of silence every 100 ms: no 100 ms stretch is whole, yet the tone reads true.
        let steady = Self.tone(amplitude: 0.125, seconds: 0.5, gap: 0, every: 1)
        let broken = Self.tone(amplitude: 0.125, seconds: 0.5, gap: 0.01, every: 0.1)
        let clean = try #require(Spectrum.steadyAmplitude(steady[...], at: 1760, sampleRate: Self.rate, block: 2400))
        let between = try #require(
            Spectrum.steadyAmplitude(broken[...], at: 1760, sampleRate: Self.rate, block: 2400))
        #expect(abs(clean - 0.125) < 0.001 && abs(between - 0.125) < 0.001)
        #expect(abs(Spectrum.amplitude(broken[...], at: 1760, sampleRate: Self.rate) - 0.125) > 0.01)
    }

    @Test func noWholeStretchIsNoReading() {
        let broken = Self.tone(amplitude: 0.5, seconds: 0.5, gap: 0.01, every: 0.04)
        #expect(Spectrum.steadyAmplitude(broken[...], at: 1760, sampleRate: Self.rate, block: 2400) == nil)
    }

    @Test func shortGapsAreMergedInEveryBurstTheLastToo() throws {
        // Sound, a 10 ms dip, sound, half a second of silence, sound, a 10 ms dip, sound to the end.
        let spans: [(Double, Bool)] = [
            (0.2, true), (0.01, false), (0.2, true), (0.5, false), (0.3, true), (0.01, false), (0.2, true)
        ]
        let x = spans.flatMap { seconds, loud in [Float](repeating: loud ? 0.5 : 0, count: Int(seconds * Self.rate)) }
        let found = SignalAnalysis.bursts(x, threshold: 0.01, window: 48, minimumGap: Int(0.3 * Self.rate))
        let seconds = found.map { (Double($0.lowerBound) / Self.rate, Double($0.upperBound) / Self.rate) }
        try #require(seconds.count == 2, "\(seconds)")
        #expect(abs(seconds[0].0) < 0.001 && abs(seconds[0].1 - 0.41) < 0.002, "\(seconds)")
        #expect(abs(seconds[1].0 - 0.91) < 0.002 && abs(seconds[1].1 - 1.42) < 0.001, "\(seconds)")
    }
}
