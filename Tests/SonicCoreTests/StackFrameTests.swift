import TestSupport
import Testing

@testable import SonicCore

/// A stack stepped through with the keys: the frame played and shown, what is said, the one stretch, the log and the
/// render.
@Suite struct StackFrameTests {
    /// Three frames of 2 × 1 pixels: the left pixel brightens from frame to frame, the right one dims.
    static let frames: [GrayImage] = [(1000, 60000), (30000, 30000), (60000, 1000)].map {
        GrayImage(width: 2, height: 1, bitDepth: 16, samples: [UInt16($0.0), UInt16($0.1)])
    }
    static let stack = FrameStack(count: 3, width: 2, height: 1, sampleType: .uint16) { frames[$0] }
    static let time = SignalAxis(name: "time", size: 3, scale: 0.5, units: "s", navigation: true)

    /// A session on the stack's first frame, the image 100 screen pixels a pixel.
    func session(_ frames: SessionFrames? = SessionFrames(stack: stack, axis: time)) -> (TestPlayer, SessionController)
    {
        let player = TestPlayer(Self.frames[0], scale: 100)
        return (player, player.controller(frames: frames))
    }

    func spoken(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    /// A key, with the frame it asks for read and handed back at once, as the session's reader does a moment later.
    func press(_ key: String, at time: Double, on controller: SessionController, stack: FrameStack = stack)
        -> [ControllerOutput]
    {
        var outputs = controller.handle(key: key, at: time)
        for case .readFrame(let index) in outputs {
            do throws(ImageFileError) {
                let frame = controller.instrument.preparation.prepare(try stack.frame(index), ownStretch: false)
                outputs += controller.frameRead(frame, index: index, at: time)
            } catch {
                outputs += controller.frameUnreadable(index: index, error)
            }
        }
        return outputs
    }

    func framePlayed(_ outputs: [ControllerOutput]) -> Int? {
        outputs.lazy.compactMap { if case .frame(let index, _) = $0 { index } else { nil } }.first
    }

    @Test func phrasesSayTheFrameAndItsPlaceInTheAxissUnits() {
        #expect(Phrases.frame(3, of: 12, at: "1.5 seconds") == "Frame 3 of 12, 1.5 seconds.")
        #expect(Phrases.frame(3, of: 12, at: nil) == "Frame 3 of 12.")
        #expect(Phrases.position(3, on: Self.time) == "1.5 seconds")
        #expect(Phrases.position(2, on: Self.time) == "1 second")
        #expect(Phrases.position(0, on: Self.time) == "0 seconds")
        let focus = SignalAxis(name: "defocus", size: 9, scale: 10, offset: -40, units: "nm", navigation: true)
        #expect(Phrases.position(2, on: focus) == "-20 nanometres")
        let odd = SignalAxis(name: "dose", size: 9, scale: 2, units: "e/Å²", navigation: true)
        #expect(Phrases.position(1, on: odd) == "2 e/Å²")
        // Uncalibrated frames are only counted.
        #expect(Phrases.position(4, on: SignalAxis(name: "z", size: 9, navigation: true)) == nil)
    }

    @Test func theKeysStepThroughTheFramesAndSayTheEnds() {
        let (_, controller) = session()
        #expect(spoken(press("PageUp", at: 1, on: controller)) == ["First frame."])
        let next = press("PageDown", at: 2, on: controller)
        #expect(framePlayed(next) == 1 && spoken(next) == ["Frame 2 of 3, 0.5 seconds."])
        #expect(controller.frame == 1)
        let last = press("End", at: 3, on: controller)
        #expect(framePlayed(last) == 2 && spoken(last) == ["Frame 3 of 3, 1 second."])
        #expect(spoken(press("PageDown", at: 4, on: controller)) == ["Last frame."])
        // At the last frame, End says it again and plays nothing new.
        let again = press("End", at: 5, on: controller)
        #expect(framePlayed(again) == nil && spoken(again) == ["Frame 3 of 3, 1 second."])
        let first = press("Home", at: 6, on: controller)
        #expect(framePlayed(first) == 0 && spoken(first) == ["Frame 1 of 3, 0 seconds."])
        #expect(framePlayed(press("PageDown", at: 7, on: controller)) == 1)
        #expect(controller.instrument.image == Self.frames[1], "the frame played is the stack's own")
    }

    /// Frames are read away from the event loop: keys pressed before a frame is read step on from the frame asked
    /// for, and only a frame read plays.
    @Test func keysStepOnFromTheFrameAskedForBeforeItIsRead() {
        let (_, controller) = session()
        let first = controller.handle(key: "PageDown", at: 1)
        #expect(first == [.speak("Frame 2 of 3, 0.5 seconds."), .readFrame(index: 1)])
        let second = controller.handle(key: "PageDown", at: 2)
        #expect(second == [.speak("Frame 3 of 3, 1 second."), .readFrame(index: 2)])
        #expect(controller.frame == 0 && controller.instrument.image == Self.frames[0])
        let frame = controller.instrument.preparation.prepare(Self.frames[2], ownStretch: false)
        #expect(framePlayed(controller.frameRead(frame, index: 2, at: 3)) == 2)
        #expect(controller.frame == 2 && controller.instrument.image == Self.frames[2])
        #expect(spoken(controller.handle(key: "PageDown", at: 4)) == ["Last frame."])
    }

    @Test func whereAmIAndTheStatusPanelNameTheFramePlayed() {
        let (_, controller) = session()
        var buttons = PenButtons()
        buttons.insert(PenButtons.tip)
        _ = controller.handle(
            PenEvent(time: 1, rootX: 50, rootY: 50, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: buttons, inWindow: true)
        )
        #expect(spoken(controller.handle(key: "Space", at: 2)).first?.contains(", frame 1 of 3") == true)
        _ = press("End", at: 3, on: controller)
        let here = spoken(controller.handle(key: "Space", at: 4))
        #expect(here.first?.contains(", frame 3 of 3") == true, "\(here)")
        _ = controller.handle(key: "H", at: 5)
        #expect(controller.overlay.status.contains("Frame 3 of 3"), "\(controller.overlay.status)")
        // An image has no frame to name.
        let (_, image) = session(nil)
        _ = image.handle(
            PenEvent(time: 1, rootX: 50, rootY: 50, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: buttons, inWindow: true)
        )
        #expect(spoken(image.handle(key: "Space", at: 2)).first?.contains("frame") == false)
    }

    @Test func anImageOrAStackPlayedCombinedHasNoFramesToStepTo() {
        let (_, image) = session(nil)
        for key in ["PageDown", "PageUp", "Home", "End"] {
            #expect(spoken(image.handle(key: key, at: 1)) == ["No frames: this image is not a stack."])
        }
        let (_, summed) = session(SessionFrames(stack: Self.stack, axis: Self.time, combination: .sum))
        let outputs = summed.handle(key: "PageDown", at: 1)
        #expect(framePlayed(outputs) == nil)
        #expect(
            spoken(outputs) == [
                "This plays the sum of all 3 frames: to step through them, play the file without the frames option."
            ])
    }

    @Test func aFrameThatCannotBeReadIsSaidAndTheFramePlayedStays() {
        let broken = FrameStack(count: 2, width: 2, height: 1, sampleType: .uint16) { index throws(ImageFileError) in
            guard index == 0 else { throw ImageFileError("the data ends early") }
            return Self.frames[0]
        }
        let (_, controller) = session(SessionFrames(stack: broken, axis: nil))
        let outputs = press("PageDown", at: 1, on: controller, stack: broken)
        #expect(
            framePlayed(outputs) == nil
                && spoken(outputs) == ["Frame 2 of 2.", "Frame 2 cannot be read: the data ends early."])
        #expect(controller.frame == 0)
    }

    /// Every frame plays through the first frame's stretch: the left pixel, brighter in each frame, sounds higher;
    /// the still pen sounds the new frame at once, and the columns found are gone with the frame they were found in.
    @Test func thePenPlaysEachFrameThroughTheFirstFramesStretch() throws {
        let (player, controller) = session()
        let stretch = player.instrument.stretch
        let touch = PenEvent(
            time: 1, rootX: 50, rootY: 50, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: PenButtons(bits: 1),
            inWindow: true)
        _ = controller.handle(touch)
        let frequencies = try (0..<3).map { frame -> Double in
            let outputs = frame == 0 ? [] : press("PageDown", at: 2 + Double(frame), on: controller)
            if frame > 0 {
                let record = try #require(
                    outputs.lazy.compactMap { if case .pen(let record) = $0 { record } else { nil } }.first)
                #expect(record.sample == Double(Self.frames[frame][0, 0]))
            }
            #expect(player.instrument.stretch == stretch)
            return player.targets.frequency
        }
        #expect(frequencies[0] < frequencies[1] && frequencies[1] < frequencies[2], "\(frequencies)")
        // 1000 is the stretch's floor and 60000 its top: the lowest and highest pitch.
        #expect(abs(frequencies[0] - 110) < 0.5 && abs(frequencies[2] - 1760) < 0.5, "\(frequencies)")

        _ = controller.setColumns([ImagePoint(x: 0, y: 0)], lattice: nil)
        #expect(controller.columns != nil)
        _ = press("Home", at: 9, on: controller)
        #expect(controller.columns == nil && controller.state.lattice == nil && controller.state.overview == nil)
    }

    /// The sweeps play the frame played: tables handed to the engine while it runs.
    @Test func theSweepsPlayTheFramePlayed() {
        let dark = GrayImage(width: 64, height: 48, bitDepth: 16, samples: .init(repeating: 0, count: 64 * 48))
        let bright = GrayImage(width: 64, height: 48, bitDepth: 16, samples: .init(repeating: 60000, count: 64 * 48))
        let stack = SoundStack(profile: .plainMapping, sampleRate: 48000, speechSeconds: 1)
        // A stretch from the dark and the bright image both, so that bright is loud.
        let both = GrayImage(width: 64, height: 96, sampleType: .uint16, samples: dark.samples + bright.samples)
        let sound = SessionSound(
            instrument: Instrument(image: dark, profile: .plainMapping, statistics: SampleStatistics(both)),
            controls: stack.controls)
        stack.controls.sweepTables.offer(sound.instrument.sweepTables)
        var state = sound.instrument.initialState
        func sweepPeak() -> Double {
            sound.apply(.sweep(.image), to: &state, at: SynthControls.immediately)
            var out = [Float](repeating: 0, count: 4800 * 2)
            out.withUnsafeMutableBufferPointer {
                stack.renderer.render(into: $0.baseAddress!, frames: 4800, channels: 2)
            }
            sound.apply(.sweep(nil), to: &state, at: SynthControls.immediately)
            return SignalAnalysis.peak(out[4800...])
        }
        #expect(sweepPeak() == 0)
        sound.apply(.playedImage(sound.instrument.preparation.prepare(bright, ownStretch: false)), to: &state, at: 0)
        #expect(sweepPeak() > 0.01)
    }

    @Test func frameRecordsGoThroughTheLogAndBadOnesAreRefused() throws {
        func decode(_ line: String) throws(SessionLogError) -> SessionRecord? {
            try decodeLogLine(line, name: "s.jsonl", number: 3)
        }
        let record = SessionRecord.frame(t: 12.5, number: 3)
        #expect(record.jsonLine == #"{"type":"frame","t":12.5,"number":3}"#)
        #expect(try decode(record.jsonLine) == record)
        let start = SessionRecord.start(
            StartRecord(
                t: 1, image: "/s.hspy", width: 2, height: 1, bitDepth: 32, sampleType: "float32", profile: "default",
                sampleRate: 48000, frames: .mean))
        #expect(start.jsonLine.contains(#""sampleRate":48000,"frames":"mean""#))
        #expect(try decode(start.jsonLine) == start)
        for (line, fault) in [
            (#"{"type":"frame","t":12.5}"#, #"s.jsonl:3: "number" must be a number"#),
            (#"{"type":"frame","t":12.5,"number":0}"#, #"s.jsonl:3: "number" must be between 1 and 1000000"#),
            (#"{"type":"frame","t":12.5,"number":1.5}"#, #"s.jsonl:3: "number" must be a whole number"#),
            (#"{"type":"frame","number":2}"#, #"s.jsonl:3: "t" must be a number"#),
            (
                #"{"type":"start","t":1,"image":"x","width":2,"height":1,"bitDepth":16,"profile":"p","sampleRate":48000,"frames":"max"}"#,
                #"s.jsonl:3: "frames" must be "sum" or "mean""#
            )
        ] {
            #expect(throws: SessionLogError(message: fault)) { try decode(line) }
        }
        // A frame stepped to in a session that played the frames combined is damage.
        var check = SessionLogCheck()
        try check.admit(start, place: "s.jsonl:1")
        #expect(throws: SessionLogError(message: "s.jsonl:2: a frame played, but the frames were played combined")) {
            try check.admit(.frame(t: 2, number: 2), place: "s.jsonl:2")
        }
        var stepped = SessionLogCheck()
        try stepped.admit(
            .start(
                StartRecord(
                    t: 1, image: "/s", width: 2, height: 1, bitDepth: 16, sampleType: "uint16", profile: "p",
                    sampleRate: 48000)), place: "1")
        try stepped.admit(.frame(t: 2, number: 3), place: "2")
        try stepped.admit(.frame(t: 3, number: 2), place: "3")
        #expect(stepped.highestFrame == 3)
    }

    /// The render steps to the logged frame at its logged time: the still pen over the left pixel, dark in the first
    /// frame and bright in the last, sounds low, then high.
    @Test func renderPlaysTheLoggedFrameFromItsTime() {
        let start = StartRecord(
            t: 100, image: "/s.hspy", width: 2, height: 1, bitDepth: 16, sampleType: "uint16", profile: "default",
            sampleRate: 48000)
        func pen(_ t: Double, tip: Bool) -> SessionRecord {
            .pen(
                PenRecord(
                    t: t, rootX: 50, rootY: 50, imageX: 0, imageY: 0, inImage: true, sample: 0, level: 0,
                    pressure: tip ? 0.5 : 0, tiltX: 0, tiltY: 0, buttons: PenButtons(bits: tip ? 1 : 0),
                    mode: "intensity-pitch",
                    frequency: 0, amplitude: 0))
        }
        let records: [SessionRecord] = [
            .start(start), .viewport(t: 100.1, Viewport(originX: 0, originY: 0, scale: 100)), pen(100.5, tip: true),
            .frame(t: 101, number: 3), pen(101, tip: true), pen(101.5, tip: false)
        ]
        let replay = SessionReplay(
            image: Self.frames[0], profile: .plainMapping, sampleRate: 48000, speech: nil, start: start,
            stack: Self.stack)
        var stereo: [Float] = []
        for record in records { replay.play(record) { stereo += $0 } }
        replay.finish { stereo += $0 }
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let low = SignalAnalysis.zeroCrossingFrequency(left[25_000..<47_000], sampleRate: 48000)!
        let high = SignalAnalysis.zeroCrossingFrequency(left[49_000..<71_000], sampleRate: 48000)!
        #expect(abs(low / 110 - 1) < 0.001 && abs(high / 1760 - 1) < 0.001, "\(low) \(high)")
    }
}
