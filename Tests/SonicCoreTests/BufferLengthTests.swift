import Testing

@testable import SonicCore

/// The buffer a live output keeps grows a step when the sound runs dry, not again while the longer one fills,
/// never beyond its longest, and comes back a step at a time after quiet minutes, never below the asked.
@Suite struct BufferLengthTests {
    @Test func eachDropoutLengthensTheBufferByHalfTheAskedUpToFourTimesIt() {
        var buffer = BufferLength(asked: 0.010, now: 0, longerAtStart: false)
        #expect(buffer.ranDry(at: 5) == 0.015)
        #expect(buffer.ranDry(at: 5.4) == nil, "the longer buffer has not filled yet")
        #expect(buffer.current == 0.015)
        #expect(buffer.ranDry(at: 7) == 0.020)
        for k in 0..<10 { _ = buffer.ranDry(at: 10 + Double(k) * 2) }
        #expect(abs(buffer.current - 0.040) < 1e-12)
        #expect(buffer.ranDry(at: 40) == nil, "no longer than its longest")
    }

    /// A session's stream starts at twice the asked and comes back to it once the start has passed; one
    /// that runs dry in the start keeps the longer buffer, grown a step, as after any dropout.
    @Test func theStartIsPlayedWithTwiceTheAskedBuffer() {
        var buffer = BufferLength(asked: 0.010, now: 100, longerAtStart: true)
        #expect(buffer.current == 0.020)
        #expect(buffer.quiet(at: 104.9) == nil)
        #expect(buffer.quiet(at: 105) == 0.010)
        #expect(buffer.quiet(at: 106) == nil)
        var dry = BufferLength(asked: 0.010, now: 100, longerAtStart: true)
        #expect(dry.ranDry(at: 101) == 0.025)
        #expect(dry.quiet(at: 105) == nil, "kept a minute, as any grown buffer")
        #expect(dry.quiet(at: 161) == 0.020)
    }

    @Test func aQuietMinuteShortensItAStepBackTowardsTheAsked() {
        var buffer = BufferLength(asked: 0.010, now: 0, longerAtStart: false)
        #expect(buffer.quiet(at: 100) == nil, "never shorter than asked")
        _ = buffer.ranDry(at: 100)
        _ = buffer.ranDry(at: 102)
        #expect(buffer.current == 0.020)
        #expect(buffer.quiet(at: 161) == nil, "a minute has not passed since the last dropout")
        #expect(buffer.quiet(at: 162) == 0.015)
        #expect(buffer.quiet(at: 200) == nil, "a minute after the last change")
        _ = buffer.ranDry(at: 210)
        #expect(buffer.current == 0.020)
        #expect(buffer.quiet(at: 269) == nil)
        #expect(buffer.quiet(at: 270) == 0.015)
        #expect(buffer.quiet(at: 330) == 0.010)
        #expect(buffer.quiet(at: 400) == nil)
    }

    /// A server late to ask for more, using most of the buffer's margin, lengthens it as a dropout would,
    /// before the sound runs dry; on time, or late by less, it does not. In the start, a wait that would be a
    /// near miss for the asked keeps the start's length, and quiet comes a minute after the last near miss.
    @Test func aNearMissLengthensTheBufferBeforeTheSoundRunsDry() {
        var buffer = BufferLength(asked: 0.010, now: 0, longerAtStart: false)
        #expect(buffer.serverWaited(0, at: 1) == nil)
        #expect(buffer.serverWaited(0.6, at: 2) == nil)
        #expect(buffer.serverWaited(0.7, at: 3) == 0.015)
        #expect(buffer.serverWaited(0.9, at: 3.5) == nil, "the longer buffer has not filled yet")
        #expect(buffer.ranDry(at: 3.8) == nil, "nor for a dropout")
        #expect(buffer.serverWaited(0.8, at: 5) == 0.020)
        #expect(buffer.quiet(at: 64) == nil, "a minute has not passed since the near miss")
        #expect(buffer.quiet(at: 65) == 0.015)

        var start = BufferLength(asked: 0.010, now: 100, longerAtStart: true)
        #expect(start.serverWaited(0.3, at: 101) == nil)
        #expect(start.quiet(at: 105) == 0.010, "late by less than a near miss for the asked")
        var kept = BufferLength(asked: 0.010, now: 100, longerAtStart: true)
        #expect(kept.serverWaited(0.4, at: 102) == nil)
        #expect(kept.quiet(at: 105) == nil, "kept: the asked would have nearly run dry")
        #expect(kept.current == 0.020)
        #expect(kept.quiet(at: 162) == 0.015)
    }
}
