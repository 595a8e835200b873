import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// A change asked for at t is made at the frame where t plus a fixed delay falls in the output, not at
/// the start of whichever block comes next: the engine places it from the time the output gives for
/// its first frame, whatever the output's periods.
@Suite struct ChangeTimingTests {
    static let rate = 48_000.0

    /// Changes of pitch and loudness at irregular times over half a second, with ticks among them, each
    /// well within a frame (where a change falls on a frame's very start, rounding may put it either side).
    static let changes: [(time: Double, targets: SynthTargets?)] = {
        var random = SeededRandom(seed: 30)
        var time = 0.4 / rate
        return (0..<40).map { k in
            time += (100 + Double(random.next() % 1000)) / rate
            if k % 9 == 4 { return (time, nil) }
            let targets = SynthTargets(
                frequency: 220 * pow(2, Double(random.next() % 24) / 12), amplitude: k % 7 == 6 ? 0 : 0.4)
            return (time, targets)
        }
    }()

    static func ask(_ controls: SynthControls, _ change: (time: Double, targets: SynthTargets?), at time: Double) {
        if let targets = change.targets { controls.set(targets, at: time) } else { controls.tick(at: time) }
    }

    /// The reference: each change made at once, at the frame `frame(time)` gives, as `render` replays a log.
    static func offline(frame: (Double) -> Int, frames: Int) -> [Float] {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: rate, controls: controls)
        var out = [Float](repeating: 0, count: 2 * frames)
        var done = 0
        for change in changes {
            let at = min(frames, max(done, frame(change.time)))
            out.withUnsafeMutableBufferPointer {
                engine.render(into: $0.baseAddress! + 2 * done, frames: at - done, channels: 2)
            }
            done = at
            ask(controls, change, at: SynthControls.immediately)
        }
        out.withUnsafeMutableBufferPointer {
            engine.render(into: $0.baseAddress! + 2 * done, frames: frames - done, channels: 2)
        }
        return out
    }

    /// A graph's cycles (PipeWire): `period` frames each, the cycle starting at `origin` + its first frame's
    /// time; every change asked for before the rendering begins.
    @Test(arguments: [(32, 0.0), (128, 1234.567_891), (256, 0.000_3), (441, 77.7), (1024, 5.25)])
    func changesLandOnTheirFramesWhateverTheGraphsPeriod(period: Int, origin: Double) {
        let frames = 30_000
        let delay = Double(period) / Self.rate + ChangeTiming.margin
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: Self.rate, controls: controls)
        for change in Self.changes { Self.ask(controls, change, at: origin + change.time) }
        var live = [Float](repeating: 0, count: 2 * frames)
        var done = 0
        while done < frames {
            let n = min(period, frames - done)
            let cycleTime = origin + Double(done) / Self.rate
            live.withUnsafeMutableBufferPointer {
                engine.render(into: $0.baseAddress! + 2 * done, frames: n, channels: 2, at: cycleTime - delay)
            }
            done += n
        }
        // Each change sounds `delay` after its time: at the first frame at or after it.
        let expected = Self.offline(frame: { Int((($0 + delay) * Self.rate).rounded(.up)) }, frames: frames)
        #expect(live.count == expected.count)
        let worst = zip(live, expected).map { abs($0 - $1) }.max() ?? 0

        #expect(worst < 1e-6, "period \(period): the live sound differs by up to \(worst)")
    }

    /// A change asked for too late for its frame — that frame already played — is made at once, at the
    /// start of the next render, not dropped; and counted as late, by how late it was made.
    @Test func aLateChangeIsMadeAtTheNextFrame() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: Self.rate, controls: controls)
        var out = [Float](repeating: 0, count: 2 * 512)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256, channels: 2, at: 10) }
        controls.set(SynthTargets(frequency: 440, amplitude: 0.5), at: 10 + 100 / Self.rate)
        out.withUnsafeMutableBufferPointer {
            engine.render(into: $0.baseAddress! + 512, frames: 256, channels: 2, at: 10 + 256 / Self.rate)
        }
        #expect(SignalAnalysis.peak(out[0..<512]) == 0)
        // The loudness glides up from the first frame of the second render.
        #expect(out[512] == 0 && out[514] != 0)
        #expect(controls.lateChanges.total == 1)
        #expect(abs(controls.lateChanges.lastSeconds - 156 / Self.rate) < 1e-9)
    }

    /// A change asked for before the sound began — the stream not yet playing — is made at the first
    /// frame, and is not late: no sound could have carried it sooner. Once the sound plays, one made
    /// after its moment is late, even where the output skipped ahead over it: it is heard later than
    /// the constant delay promises.
    @Test func aChangeBeforeTheFirstSoundIsNotLate() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: Self.rate, controls: controls)
        var out = [Float](repeating: 0, count: 2 * 512)
        controls.set(SynthTargets(frequency: 440, amplitude: 0.5), at: 9.97)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256, channels: 2, at: 10) }
        #expect(out[0] == 0 && out[2] != 0)
        controls.set(SynthTargets(frequency: 330, amplitude: 0.5), at: 10 + 100 / Self.rate)
        out.withUnsafeMutableBufferPointer {
            engine.render(into: $0.baseAddress! + 512, frames: 256, channels: 2, at: 10 + 256 / Self.rate)
        }
        #expect(controls.lateChanges.total == 1)
        // The output skips 80 ms: a change in that stretch is made 30 ms after its moment.
        controls.set(SynthTargets(frequency: 220, amplitude: 0.5), at: 10.05)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256, channels: 2, at: 10.08) }
        #expect(controls.lateChanges.total == 2)
        #expect(abs(controls.lateChanges.lastSeconds - 0.03) < 1e-9)
    }

    /// Changes made on time, or at once as offline rendering makes them, are not late.
    @Test func changesOnTimeAreNotLate() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: .plainTone, sampleRate: Self.rate, controls: controls)
        var out = [Float](repeating: 0, count: 2 * 512)
        controls.set(SynthTargets(frequency: 440, amplitude: 0.5), at: 10 + 100.5 / Self.rate)
        controls.set(SynthTargets(frequency: 330, amplitude: 0.5), at: SynthControls.immediately)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256, channels: 2, at: 10) }
        controls.set(SynthTargets(frequency: 220, amplitude: 0.5), at: 3)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress! + 512, frames: 256, channels: 2) }
        #expect(controls.lateChanges.total == 0)
    }

    /// A server that asks for sound at irregular moments (PulseAudio): each write's timing report is a
    /// little off, yet the changes still land where their times give, within a frame or two.
    @Test func aServersIrregularWritesKeepTheChangesOnTheirFrames() {
        var clock = PlaybackClock(sampleRate: Self.rate)
        clock.delay = 0.0085
        // The stream's first frame plays at `origin`; the server asks for 120 to 600 frames at a time, when
        // 5 to 7.5 ms of sound are left, and reports the time left with up to ±0.3 ms of error.
        let origin = 500.25
        var random = SeededRandom(seed: 31)
        var worst = 0.0
        for _ in 0..<400 {
            let frames = 120 + Int(random.next() % 481)
            let playsAt = origin + Double(clock.framesWritten) / Self.rate
            let now = playsAt - 0.005 - 0.0025 * Double(random.next() % 1000) / 1000
            let error = 0.0003 * (Double(random.next() % 2001) / 1000 - 1)
            let time = clock.nextFrameTime(now: now, lead: playsAt - now + error, frames: frames)
            // The change due at the first frame written was asked for `delay` before it plays.
            worst = max(worst, abs(time - (playsAt - clock.delay)))
            clock.framesWritten += frames
        }
        #expect(worst < 0.0004, "placed up to \(worst * 1000) ms away")
    }

    /// When the stream ran dry and started again later, its frames play later: the clock follows at once.
    @Test func aStreamStartedAgainLaterMovesTheClock() {
        var clock = PlaybackClock(sampleRate: Self.rate)
        for k in 0..<100 {
            _ = clock.nextFrameTime(now: 10 + Double(k) * 0.005, lead: 0.006, frames: 240)
            clock.framesWritten += 240
        }
        let before = clock.nextFrameTime(now: 10.5, lead: 0.006, frames: 240)
        // 20 ms of silence, and the next write's frames play 6 ms after it, as before.
        let after = clock.nextFrameTime(now: 10.52, lead: 0.006, frames: 240)
        #expect(abs(after - before - 0.02) < 1e-9)
    }

    /// The delay covers the furthest ahead of its playing a frame is written — a sink holding frames
    /// longer than the buffer says — so that no change comes too late for its frame.
    @Test func theDelayCoversTheFurthestAheadAFrameIsWritten() {
        var clock = PlaybackClock(sampleRate: Self.rate)
        clock.delay = 0.0085
        var latest = 0.0
        for k in 0..<200 {
            // The server asks for 120 frames (2.5 ms) when 5 to 6.5 ms are left: the last frame plays up to 9 ms ahead.
            let lead = 0.005 + 0.0015 * Double(k % 7) / 6
            let now = 20 + Double(clock.framesWritten) / Self.rate - lead
            let time = clock.nextFrameTime(now: now, lead: lead, frames: 120)
            // A change asked for now is due at a frame not yet written.
            #expect(time + 120 / Self.rate <= now + clock.delay - ChangeTiming.margin + 1e-9)
            latest = max(latest, lead + 120 / Self.rate)
            clock.framesWritten += 120
        }
        #expect(abs(clock.delay - (latest + ChangeTiming.margin)) < 0.0002, "delay \(clock.delay), ahead \(latest)")
    }

    /// Changes the audio side did not take in time — its ring full, as while the sound server is away —
    /// are not lost: the latest targets are made once it reads again, and a tick that found no room sounds.
    @Test func aFullRingStillGivesTheLatestTargetsAndTheTicks() {
        func engine(_ fill: (SynthControls) -> Void) -> [Float] {
            let controls = SynthControls()
            let engine = SynthEngine(chain: .plainTone, sampleRate: Self.rate, controls: controls)
            for k in 0..<(SynthControls.capacity + 50) {
                controls.set(SynthTargets(frequency: 300 + Double(k), amplitude: 0), at: Double(k) * 1e-3)
            }
            fill(controls)
            var out = [Float](repeating: 0, count: 2 * 9600)
            out.withUnsafeMutableBufferPointer {
                engine.render(into: $0.baseAddress!, frames: 9600, channels: 2, at: 6)
            }
            #expect(controls.nextChangeTime() == nil)
            return stride(from: 0, to: out.count, by: 2).map { out[$0] }
        }
        let tone = engine { $0.set(SynthTargets(frequency: 1000, amplitude: 0.5), at: 5) }
        let pitch = SignalAnalysis.zeroCrossingFrequency(tone[4800...], sampleRate: Self.rate) ?? 0
        #expect(abs(pitch - 1000) < 2, "the latest pitch: \(pitch) Hz")
        #expect(SignalAnalysis.peak(engine { _ in }[...]) == 0)
        #expect(SignalAnalysis.peak(engine { $0.tick(at: 5) }[...]) > 0.01, "the tick sounds")
    }
}
