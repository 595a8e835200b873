import Testing

@testable import SonicCore

/// The sound stack play, render and the benchmark share.
@Suite struct SoundStackTests {
    @Test func theInstrumentPlaysThroughTheStackAndTheVoiceDucksIt() {
        let stack = SoundStack(profile: .plainMapping, sampleRate: 48_000, speechSeconds: 0.5)
        let image = GrayImage(width: 4, height: 4, bitDepth: 16, samples: [UInt16](repeating: 60_000, count: 16))
        let session = stack.sound(playing: image)
        var state = session.instrument.initialState
        #expect(
            state.viewport == Viewport(originX: 0, originY: 0, scale: 1) && state.mode == Profile.plainMapping.modes[0])
        var tip = PenButtons()
        tip.insert(PenButtons.tip)
        let touch = PenEvent(
            time: 0, rootX: 1, rootY: 1, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: tip, inWindow: true)
        session.apply(.pen(touch), to: &state, at: 0)
        #expect(stack.controls.targets.amplitude > 0, "the session's sound sets the stack's targets")
        let frames = 4800
        var sound = [Float](repeating: 0, count: 2 * frames)
        func loudest() -> Float {
            sound.withUnsafeMutableBufferPointer {
                stack.renderer.render(into: $0.baseAddress!, frames: frames, channels: 2)
            }
            return sound.suffix(frames).map(abs).max() ?? 0
        }
        _ = loudest()
        let alone = loudest()
        #expect(alone > 0.1, "the engine plays the instrument's tone")
        // A voice of silence still ducks the tone while it is queued: the buffer holds half a second.
        let voice = [Float](repeating: 0, count: 48_000)
        #expect(voice.withUnsafeBufferPointer { stack.speech.write($0) } == 24_000)
        _ = loudest()
        #expect(loudest() < 0.5 * alone)
    }
}
