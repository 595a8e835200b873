internal import CPipeWire
import Glibc
import SonicCore
import Synchronization

/// A native PipeWire playback stream, float32 stereo, rendered on PipeWire's real-time data thread
/// in the graph's own cycle. Only the renderer and the dropout check run there; the stream is set up
/// and torn down on the caller's thread, with PipeWire's thread loop locked.
public final class PipeWireOutput: AudioOutput {
    public static let channels = 2
    /// How long a PipeWire daemon has to answer before it counts as not running.
    private static let answerTimeout = 1.0
    /// How long the session manager has to link the stream to a sink.
    private static let linkTimeout = 5.0
    /// The shortest period when the data thread runs without real-time priority. Every cycle must be
    /// rendered within one period; an ordinary thread is sometimes kept waiting longer than a few
    /// milliseconds, and each time the sound breaks up (measured on an idle machine: 8–41 dropouts a
    /// minute in 2.7 ms periods, up to 3 in 10.7 ms ones, none in two minutes of strokes in 21 ms ones).
    private static let shortestPeriodWithoutRealTime = 0.02
    public let sampleRate: Int
    private let loop: OpaquePointer
    private let context: OpaquePointer
    private var core: OpaquePointer?
    private var stream: OpaquePointer?
    /// What the loop thread reports while the stream is set up, and after; read with the loop locked.
    private let setup: SetupState
    /// The data thread's state; the callback borrows it through an unretained pointer.
    private let cycle: RenderCycle
    /// PipeWire keeps pointers to its listeners and their event tables: they live here, unmoved.
    private let coreListener = Listener<pw_core_events>()
    private let setupListener = Listener<pw_stream_events>()
    private let renderListener = Listener<pw_stream_events>()

    /// Connects to the PipeWire daemon and starts playing what `renderer` produces.
    /// - Parameters:
    ///   - latency: the sound kept ahead of the speaker, in seconds: two of the graph's periods, the
    ///     one being played and the one being rendered.
    ///   - notice: told in one line when the stream cannot keep to that latency.
    public init(
        renderer: AudioRenderer, sampleRate: Int, latency: Double, streamName: String,
        notice: (String) -> Void = { _ in }
    ) throws(AudioError) {
        self.sampleRate = sampleRate
        pw_init(nil, nil)
        guard let loop = pw_thread_loop_new("sonic-pipewire", nil) else {
            throw AudioError(message: "cannot start its thread")
        }
        // client-rt.conf loads PipeWire's real-time module: the data thread then runs at real-time
        // priority wherever the user may have it (directly, or through RTKit).
        let contextProperties = sonic_pw_properties_new()
        pw_properties_set(contextProperties, PW_KEY_CONFIG_NAME, "client-rt.conf")
        guard let context = pw_context_new(pw_thread_loop_get_loop(loop), contextProperties, 0) else {
            let reason = String(cString: strerror(errno))
            pw_thread_loop_destroy(loop)
            throw AudioError(message: "cannot set up a client (\(reason))")
        }
        self.loop = loop
        self.context = context
        setup = SetupState(loop: loop)
        cycle = RenderCycle(renderer: renderer, sampleRate: sampleRate)
        guard pw_thread_loop_start(loop) == 0 else { throw AudioError(message: "cannot start its thread") }

        pw_thread_loop_lock(loop)
        defer { pw_thread_loop_unlock(loop) }
        try connect()
        // PipeWire rounds a period down to a power of two: ask for the one nearest half the latency
        // (10 ms: 256 frames, not 128, which would leave half the latency and half the margin).
        let period = 1 << max(0, Int(log2(max(1, latency * Double(sampleRate) / 2)).rounded()))
        let shortestPeriod = 1 << Int(log2(Self.shortestPeriodWithoutRealTime * Double(sampleRate)).rounded(.up))
        // Short periods only once the priority is there: until then a short period could run dry.
        try openStream(name: streamName, period: max(period, shortestPeriod))
        setup.playing = true
        guard period < shortestPeriod, let stream else { return }
        if dataThreadBecomesRealTime() {
            _ = sonic_pw_stream_set_latency(stream, "\(period)/\(sampleRate)")
        } else {
            let milliseconds = Double(shortestPeriod) / Double(sampleRate) * 1000
            notice(
                "PipeWire: the sound may not run at real-time priority here, so it plays in periods of "
                    + "\(Int(milliseconds)) ms (latency about \(Int(2 * milliseconds)) ms) rather than break up")
        }
    }

    deinit {
        pw_thread_loop_lock(loop)
        if let stream { pw_stream_destroy(stream) }
        if let core { pw_core_disconnect(core) }
        pw_thread_loop_unlock(loop)
        pw_thread_loop_stop(loop)
        pw_context_destroy(context)
        pw_thread_loop_destroy(loop)
    }

    /// The graph's period as last played, and the delay from the stream to the device after it.
    public var grantedLatency: Double {
        let period = Double(cycle.shared.periodFrames.load(ordering: .relaxed)) / Double(sampleRate)
        pw_thread_loop_lock(loop)
        defer { pw_thread_loop_unlock(loop) }
        var time = pw_time()
        guard let stream, pw_stream_get_time_n(stream, &time, MemoryLayout<pw_time>.size) == 0,
            time.rate.denom > 0
        else { return period }
        return period + Double(max(0, time.delay)) * Double(time.rate.num) / Double(time.rate.denom)
    }

    /// Whether PipeWire's data thread runs at real-time priority once the stream plays, or within half
    /// a second (loop locked): through RTKit the priority is granted by a message that may still be on
    /// its way. True when that cannot be told.
    private func dataThreadBecomesRealTime() -> Bool {
        wait(seconds: 0.5) { dataThreadIsRealTime != false }
    }

    /// Whether PipeWire's data thread, where the stream renders, runs at real-time priority: nil when
    /// that cannot be told.
    private var dataThreadIsRealTime: Bool? {
        guard let dataLoop = pw_context_get_data_loop(context), let thread = pw_data_loop_get_thread(dataLoop) else {
            return nil
        }
        var policy: Int32 = 0
        var parameters = sched_param()
        guard pthread_getschedparam(pthread_t(UInt(bitPattern: thread)), &policy, &parameters) == 0 else { return nil }
        // PipeWire's real-time threads also carry SCHED_RESET_ON_FORK.
        let resetOnFork: Int32 = 0x4000_0000
        return [SCHED_FIFO, SCHED_RR].contains(policy & ~resetOnFork)
    }

    /// How many times the graph ran cycles without this stream (each heard as a crackle), or had
    /// no buffer ready for it.
    public var dropoutCount: Int { cycle.shared.dropouts.total }
    public var lastDropoutTime: Double? { cycle.shared.dropouts.lastTime }
    public var changeDelay: Double { Double(bitPattern: cycle.shared.delay.load(ordering: .relaxed)) }

    public var lossReason: String? {
        guard setup.loss.happened else { return nil }
        pw_thread_loop_lock(loop)
        defer { pw_thread_loop_unlock(loop) }
        return "PipeWire: the daemon went away (\(setup.failure ?? "the stream stopped"))"
    }

    /// Connects to the daemon and waits (loop locked) for its answer to a round trip: a socket
    /// that accepts the connection is not yet a daemon that runs.
    private func connect() throws(AudioError) {
        guard let core = pw_context_connect(context, nil, 0) else {
            let code = errno
            throw AudioError(
                message: code == EHOSTDOWN ? "not running" : "cannot connect (\(String(cString: strerror(code))))",
                noServer: true)
        }
        self.core = core
        coreListener.events.pointee.version = UInt32(PW_VERSION_CORE_EVENTS)
        coreListener.events.pointee.done = coreDone
        coreListener.events.pointee.error = coreError
        _ = sonic_pw_core_add_listener(core, coreListener.hook, coreListener.events, setup.pointer)
        setup.syncSequence = sonic_pw_core_sync(core)
        guard wait(seconds: Self.answerTimeout, until: { setup.answered || setup.failure != nil }), setup.answered
        else {
            // A daemon that refuses has answered: only silence counts as no server.
            if let failure = setup.failure { throw AudioError(message: "refused the connection (\(failure))") }
            throw AudioError(message: "does not answer", noServer: true)
        }
    }

    /// Creates the stream, connects it for playback, and waits (loop locked) until it plays.
    private func openStream(name: String, period: Int) throws(AudioError) {
        guard let core else { return }
        let properties = sonic_pw_properties_new()
        for (key, value) in [
            (PW_KEY_APP_NAME, "SonicAtomic"), (PW_KEY_MEDIA_TYPE, "Audio"),
            (PW_KEY_MEDIA_CATEGORY, "Playback"), (PW_KEY_MEDIA_ROLE, "Music"),
            (PW_KEY_NODE_LATENCY, "\(period)/\(sampleRate)")
        ] {
            pw_properties_set(properties, key, value)
        }
        guard let stream = pw_stream_new(core, name, properties) else {
            throw AudioError(message: "cannot create a playback stream (\(String(cString: strerror(errno))))")
        }
        self.stream = stream
        cycle.stream = stream
        setupListener.events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        setupListener.events.pointee.state_changed = streamStateChanged
        pw_stream_add_listener(stream, setupListener.hook, setupListener.events, setup.pointer)
        renderListener.events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        renderListener.events.pointee.process = renderCycle
        pw_stream_add_listener(
            stream, renderListener.hook, renderListener.events,
            Unmanaged.passUnretained(cycle).toOpaque())
        let flags =
            PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue
            | PW_STREAM_FLAG_RT_PROCESS.rawValue
        let connected = sonic_pw_stream_connect_stereo_float(stream, UInt32(sampleRate), flags)
        guard connected >= 0 else {
            throw AudioError(message: "cannot open a playback stream (\(String(cString: strerror(-connected))))")
        }
        guard wait(seconds: Self.linkTimeout, until: { setup.streaming || setup.failure != nil }), setup.streaming
        else {
            throw AudioError(
                message: setup.failure.map { "cannot open a playback stream (\($0))" }
                    ?? "the stream was not linked to a sink within \(Int(Self.linkTimeout)) s (is WirePlumber running?)"
            )
        }
    }

    /// Waits (loop locked) for the loop thread to signal until `condition` holds; false on timeout.
    private func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        var deadline = timespec()
        pw_thread_loop_get_time(loop, &deadline, Int64(seconds * 1e9))
        while !condition() {
            if pw_thread_loop_timed_wait_full(loop, &deadline) != 0 { return condition() }
        }
        return true
    }
}

/// A listener's hook and event table, at fixed addresses for as long as the output lives.
private final class Listener<Events> {
    let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    let events = UnsafeMutablePointer<Events>.allocate(capacity: 1)

    init() {
        hook.initialize(to: spa_hook())
        // Zeroed, as C's designated initialisers leave the callbacks not set.
        UnsafeMutableRawPointer(events).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<Events>.size)
    }

    deinit {
        hook.deallocate()
        events.deallocate()
    }
}

/// What the core and the stream report, on the loop thread with the loop locked: during set-up,
/// and once the stream plays, whether the daemon has gone.
private final class SetupState {
    let loop: OpaquePointer
    var syncSequence: Int32 = 0
    var answered = false
    var streaming = false
    var failure: String?
    /// Set up and playing: from now on a failure means the daemon or the stream is gone.
    var playing = false
    let loss = ServerLoss()

    init(loop: OpaquePointer) { self.loop = loop }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> SetupState? {
        pointer.map { Unmanaged<SetupState>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The core's answer to the round trip.
private func coreDone(_ data: UnsafeMutableRawPointer?, _ id: UInt32, _ sequence: Int32) {
    guard let setup = SetupState.from(data), id == PW_ID_CORE, sequence == setup.syncSequence else { return }
    setup.answered = true
    pw_thread_loop_signal(setup.loop, false)
}

private func coreError(
    _ data: UnsafeMutableRawPointer?, _ id: UInt32, _ sequence: Int32, _ result: Int32,
    _ message: UnsafePointer<CChar>?
) {
    guard let setup = SetupState.from(data), id == PW_ID_CORE else { return }
    setup.failure = message.map { String(cString: $0) } ?? String(cString: strerror(-result))
    if setup.playing { setup.loss.note() }
    pw_thread_loop_signal(setup.loop, false)
}

private func streamStateChanged(
    _ data: UnsafeMutableRawPointer?, _ old: pw_stream_state, _ state: pw_stream_state,
    _ error: UnsafePointer<CChar>?
) {
    guard let setup = SetupState.from(data) else { return }
    setup.streaming = state == PW_STREAM_STATE_STREAMING
    if state == PW_STREAM_STATE_ERROR { setup.failure = error.map { String(cString: $0) } ?? "error" }
    if setup.playing && (state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED) { setup.loss.note() }
    pw_thread_loop_signal(setup.loop, false)
}
