import SonicCore
import Testing

@testable import SonicAudio

/// Which server plays, and what is said, for each choice and each way the servers answer.
@Suite struct AudioChoiceTests {
    /// Opens with fake servers: each either plays or fails with the given error.
    func open(_ choice: AudioChoice, pipeWire: AudioError?, pulseAudio: AudioError?) -> (
        server: AudioServer?, notices: [String], error: AudioError?, tried: [AudioServer]
    ) {
        var notices: [String] = []
        var tried: [AudioServer] = []
        do {
            let opened = try AudioOutputs.open(
                choice, notice: { notices.append($0) },
                opening: { server throws(AudioError) in
                    tried.append(server)
                    if let failure = server == .pipeWire ? pipeWire : pulseAudio { throw failure }
                    return server
                })
            #expect(opened.output == opened.server)
            return (opened.server, notices, nil, tried)
        } catch {
            return (nil, notices, error, tried)
        }
    }

    let absent = AudioError(message: "not running", noServer: true)
    let refused = AudioError(message: "cannot open a playback stream (busy)")

    @Test func autoPlaysThroughPipeWireWhenItAnswers() {
        let opened = open(.auto, pipeWire: nil, pulseAudio: nil)
        #expect(opened.server == .pipeWire && opened.notices.isEmpty && opened.tried == [.pipeWire])
    }

    @Test func autoTakesPulseAudioWithoutAWordWhenNoPipeWireRuns() {
        let opened = open(.auto, pipeWire: absent, pulseAudio: nil)
        #expect(opened.server == .pulseAudio && opened.notices.isEmpty && opened.tried == [.pipeWire, .pulseAudio])
    }

    @Test func autoSaysSoWhenARunningPipeWireCannotPlay() {
        let opened = open(.auto, pipeWire: refused, pulseAudio: nil)
        #expect(opened.server == .pulseAudio)
        #expect(
            opened.notices == ["PipeWire: cannot open a playback stream (busy); playing through PulseAudio instead"])
    }

    @Test func pipeWireFallsBackToPulseAudioInOneLine() {
        let opened = open(.pipewire, pipeWire: absent, pulseAudio: nil)
        #expect(opened.server == .pulseAudio)
        #expect(opened.notices == ["PipeWire: not running; playing through PulseAudio instead"])
    }

    @Test func pulseIsTriedFirstAndFallsBackToPipeWire() {
        #expect(open(.pulse, pipeWire: nil, pulseAudio: nil).tried == [.pulseAudio])
        let opened = open(
            .pulse, pipeWire: nil,
            pulseAudio: AudioError(message: "cannot connect (Connection refused)", noServer: true))
        #expect(opened.server == .pipeWire)
        #expect(opened.notices == ["PulseAudio: cannot connect (Connection refused); playing through PipeWire instead"])
    }

    @Test(arguments: AudioChoice.allCases)
    func neitherPlayingIsOneErrorNamingBoth(choice: AudioChoice) {
        let pulseDown = AudioError(message: "cannot connect (Connection refused)", noServer: true)
        let opened = open(choice, pipeWire: absent, pulseAudio: pulseDown)
        #expect(opened.server == nil && opened.notices.isEmpty)
        let first = choice == .pulse ? "PulseAudio: cannot connect (Connection refused)" : "PipeWire: not running"
        let second = choice == .pulse ? "PipeWire: not running" : "PulseAudio: cannot connect (Connection refused)"
        #expect(opened.error?.message == "no sound server: \(first); \(second)")
        #expect(opened.error?.noServer == true)
        #expect(open(choice, pipeWire: refused, pulseAudio: pulseDown).error?.noServer == false)
    }
}
