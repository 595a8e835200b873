import Foundation
import SonicCore
import Synchronization

/// The session's sound output, kept playing: when its server goes away (crashed, or restarted by the
/// user to fix their sound), the output is let go and a new one is tried every half second, with
/// the same settings, until the server is back. Where the server's buffer can be resized (PulseAudio's), it
/// grows when the sound runs dry or nearly does, and comes back after quiet (`BufferLength`). The main loop polls it; opening
/// is tried on a thread of its own, so the loop never waits for a server.
public final class LiveSound: @unchecked Sendable {
    /// A change in whether the sound plays, for the main loop to act on.
    public enum Change: Sendable, Equatable {
        /// The server went away, for this reason: nothing is heard until it is back.
        case lost(String)
        /// A server plays again.
        case back(AudioServer)
        /// The server keeps this many seconds of sound ahead of the speaker from now on.
        case buffer(Double)
    }

    /// How long between tries to open the output again.
    public static let retryInterval = 0.5

    /// Opens an output to the server that played before, with the session's settings.
    private let reopen: @Sendable (AudioServer) throws(AudioError) -> any AudioOutput
    /// The server that plays: the one waited for while it is away.
    private let server: AudioServer
    /// The output playing now; nil while the server is away. Main loop only.
    private var output: (any AudioOutput)?
    /// Dropouts of the outputs let go, so the count runs on over the session.
    private var earlierDropouts = 0
    private var earlierLastDropout: Double?
    /// The output's buffer, and the output's dropouts it has been told of.
    private var buffer: BufferLength
    private var dropoutsSeen = 0
    /// Whether the output has been given the buffer's length since it opened.
    private var lengthApplied = false
    /// What the reopening thread hands over: written there before `handedOver` is set, read here after.
    private var reopened: (any AudioOutput)?
    private let handedOver = Atomic<Bool>(false)
    /// Whether the reopening thread should stop trying.
    private let stopping = Atomic<Bool>(false)

    /// Opens the output `choice` asks for (see `AudioOutputs.open`) and starts playing `renderer`.
    public init(
        _ choice: AudioChoice, renderer: AudioRenderer, sampleRate: Int, latency: Double, streamName: String,
        notice: @escaping @Sendable (String) -> Void, now: Double
    ) throws(AudioError) {
        buffer = BufferLength(asked: latency, now: now, longerAtStart: true)
        (output, server) = try AudioOutputs.open(
            choice, renderer: renderer, sampleRate: sampleRate, latency: latency, streamName: streamName,
            notice: notice)
        nonisolated(unsafe) let renderer = renderer
        reopen = { server throws(AudioError) -> any AudioOutput in
            // The same server, not the other: while a restarted server is still starting, the other (as
            // PipeWire's PulseAudio service) may answer first.
            try AudioOutputs.open(
                server, renderer: renderer, sampleRate: sampleRate, latency: latency, streamName: streamName,
                notice: notice)
        }
    }

    /// Whether the sound plays (false while its server is away).
    public var isPlaying: Bool { output != nil }

    /// The sound kept ahead of the speaker, in seconds (0 while the server is away).
    public var grantedLatency: Double { output?.grantedLatency ?? 0 }

    /// How many times the sound has run dry this session, over every output it played through.
    public var dropoutCount: Int { earlierDropouts + (output?.dropoutCount ?? 0) }
    public var lastDropoutTime: Double? { output?.lastDropoutTime ?? earlierLastDropout }

    /// How long after it is asked for a change sounds, as the output last timed one (0 while the
    /// server is away).
    public var changeDelay: Double { output?.changeDelay ?? 0 }

    /// Called by the main loop after each batch of events, `now` in CLOCK_MONOTONIC seconds: what changed since
    /// the last call, if anything.
    public func poll(at now: Double) -> Change? {
        if let output {
            guard let reason = output.lossReason else { return resize(output, at: now) }
            earlierDropouts += output.dropoutCount
            earlierLastDropout = output.lastDropoutTime ?? earlierLastDropout
            // Let go before another output can open: two would share the renderer.
            self.output = nil
            startReopening()
            return .lost(reason)
        }
        guard handedOver.load(ordering: .acquiring), let output = reopened else { return nil }
        reopened = nil
        handedOver.store(false, ordering: .relaxed)
        self.output = output
        // A new stream, started as the first was.
        buffer = BufferLength(asked: buffer.asked, now: now, longerAtStart: true)
        lengthApplied = false
        dropoutsSeen = 0
        return .back(server)
    }

    /// Grows the buffer of an output that can be resized when its sound ran dry or nearly did since the last
    /// poll, and shortens it after quiet.
    private func resize(_ output: any AudioOutput, at now: Double) -> Change? {
        guard let resizable = output as? any ResizableAudioOutput else { return nil }
        let dropouts = output.dropoutCount
        let wait = resizable.takeLongestWait()
        let length: Double?
        if !lengthApplied {
            // The stream opened at the asked latency: the start's longer buffer, at the first poll.
            lengthApplied = true
            length = buffer.current
        } else if dropouts > dropoutsSeen {
            dropoutsSeen = dropouts
            length = buffer.ranDry(at: now)
        } else {
            length = buffer.serverWaited(wait, at: now) ?? buffer.quiet(at: now)
        }
        guard let length else { return nil }
        resizable.resizeBuffer(to: length)
        return .buffer(length)
    }

    /// Stops trying to open the output again (the session is ending).
    public func stop() { stopping.store(true, ordering: .relaxed) }

    private func startReopening() {
        let server = server
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: Self.retryInterval)
                guard !stopping.load(ordering: .relaxed), let opened = try? reopen(server) else { continue }
                reopened = opened
                handedOver.store(true, ordering: .releasing)
                return
            }
        }
        thread.name = "sound-reopening"
        thread.start()
    }
}
