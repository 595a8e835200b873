import CPulse
import Glibc
import SonicCore
import Synchronization

/// A low-latency PulseAudio playback stream, float32 stereo, fed by a renderer from PulseAudio's own
/// thread. Only `renderer` runs there; everything else here runs on the caller's thread.
public final class PulseOutput: ResizableAudioOutput {
    public static let channels = 2
    public let sampleRate: Int
    private var spec: pa_sample_spec
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private var stream: OpaquePointer?
    /// Kept alive here; the callback borrows it through an unretained pointer.
    private let target: RenderTarget
    /// Kept alive here too, for the underflow and state callbacks.
    private let dropouts = DropoutTally()
    private let loss = ServerLoss()

    /// Connects to the default sound server and starts playing what `renderer` produces.
    /// - Parameter latency: the buffer PulseAudio keeps ahead of the speaker, in seconds (a change
    ///   sounds about this long and a request after it was asked for).
    public init(renderer: AudioRenderer, sampleRate: Int, latency: Double, streamName: String) throws(AudioError) {
        self.sampleRate = sampleRate
        spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sampleRate), channels: UInt8(Self.channels))
        target = RenderTarget(renderer: renderer, sampleRate: sampleRate)
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw AudioError(message: "cannot start the audio thread")
        }
        self.mainloop = mainloop
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), "SonicAtomic") else {
            pa_threaded_mainloop_free(mainloop)
            throw AudioError(message: "cannot create a sound-server context")
        }
        self.context = context
        pa_threaded_mainloop_start(mainloop)

        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        // Ask for real-time scheduling on PulseAudio's thread (it renders our sound): a busy machine
        // then cannot make it miss a refill and drop out. Refused without the right, which is harmless.
        // Queued under the lock: it adds an event to the running mainloop, which the lock guards.
        pa_threaded_mainloop_once_unlocked(mainloop, raiseToRealTime, nil)
        pa_context_set_state_callback(context, contextStateChanged, Unmanaged.passUnretained(loss).toOpaque())
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0,
            waitUntil(
                { pa_context_get_state(context) == PA_CONTEXT_READY },
                failed: { PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) == 0 })
        else {
            throw AudioError(message: "cannot connect (\(errorText))", noServer: true)
        }

        guard let stream = pa_stream_new(context, streamName, &spec, nil) else {
            throw AudioError(message: "cannot create a playback stream: \(errorText)")
        }
        self.stream = stream
        pa_stream_set_write_callback(stream, writeAudio, Unmanaged.passUnretained(target).toOpaque())
        pa_stream_set_underflow_callback(stream, countDropout, Unmanaged.passUnretained(dropouts).toOpaque())
        pa_stream_set_state_callback(stream, streamStateChanged, Unmanaged.passUnretained(loss).toOpaque())
        // The server default is about 2 s of buffer; ask for `latency`.
        var attributes = bufferAttributes(seconds: latency)
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_ADJUST_LATENCY.rawValue
                | PA_STREAM_INTERPOLATE_TIMING.rawValue
                | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        guard pa_stream_connect_playback(stream, nil, &attributes, flags, nil, nil) >= 0,
            waitUntil(
                { pa_stream_get_state(stream) == PA_STREAM_READY },
                failed: { PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) == 0 })
        else {
            throw AudioError(message: "cannot open a playback stream: \(errorText)")
        }
        timeChangesForGrantedBuffer(stream, target)
    }

    /// `seconds` of sound kept in the server's buffer, topped up in quarters.
    private func bufferAttributes(seconds: Double) -> pa_buffer_attr {
        let targetBytes = UInt32(pa_usec_to_bytes(pa_usec_t(seconds * 1_000_000), &spec))
        return pa_buffer_attr(
            maxlength: .max, tlength: targetBytes, prebuf: .max, minreq: targetBytes / 4, fragsize: .max)
    }

    public func resizeBuffer(to seconds: Double) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream, !loss.happened else { return }
        target.resizedAt = monotonicSeconds()
        var attributes = bufferAttributes(seconds: seconds)
        if let operation = pa_stream_set_buffer_attr(
            stream, &attributes, bufferResized, Unmanaged.passUnretained(target).toOpaque())
        {
            pa_operation_unref(operation)
        }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        if let stream {
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_set_underflow_callback(stream, nil, nil)
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    /// The buffer the server actually granted, in seconds.
    public var grantedLatency: Double {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream, let attributes = pa_stream_get_buffer_attr(stream) else { return 0 }
        return Double(attributes.pointee.tlength) / Double(sampleRate * Self.channels * MemoryLayout<Float>.size)
    }

    /// How many times the server's buffer has run dry so far.
    public var dropoutCount: Int { dropouts.total }
    public var lastDropoutTime: Double? { dropouts.lastTime }
    public var changeDelay: Double { Double(bitPattern: target.delay.load(ordering: .relaxed)) }

    public func takeLongestWait() -> Double { Double(bitPattern: target.longestWait.exchange(0, ordering: .relaxed)) }

    public var lossReason: String? {
        guard loss.happened else { return nil }
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return "PulseAudio: the server went away (\(errorText))"
    }

    private var errorText: String { String(cString: pa_strerror(pa_context_errno(context))) }

    /// Waits (mainloop locked) for a state change, giving up after 5 s so a wedged server cannot hang us.
    private func waitUntil(_ ready: () -> Bool, failed: () -> Bool) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += 5
        while !ready() {
            if failed() { return false }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            if now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec) {
                return false
            }
            // Polling (rather than waiting for a signal) lets a silent server time out.
            pa_threaded_mainloop_unlock(mainloop)
            usleep(2_000)
            pa_threaded_mainloop_lock(mainloop)
        }
        return true
    }
}

/// The renderer as the audio callback sees it, and the stream's clock.
private final class RenderTarget {
    let renderer: AudioRenderer
    var clock: PlaybackClock
    /// The clock's delay as the last write timed its changes: a `Double`'s bits, for the main loop to read.
    let delay = Atomic<UInt64>(0)
    /// The longest wait between two requests since the main loop last looked, as a part of the buffer's
    /// margin (what it holds beyond one request): a non-negative `Double`'s bits, which order as the values do.
    let longestWait = Atomic<UInt64>(0)
    /// When the server last asked for sound, and how many times it has (up to 2); on PulseAudio's thread.
    var lastRequest = 0.0
    var requests = 0
    /// When the buffer was last resized (mainloop locked): the requests around it come at other intervals.
    var resizedAt = -Double.infinity
    init(renderer: AudioRenderer, sampleRate: Int) {
        self.renderer = renderer
        clock = PlaybackClock(sampleRate: Double(sampleRate))
    }
}

/// Changes are timed for the buffer the server granted (mainloop locked, or on its thread): a change may come
/// just after a write, whose last frame plays up to a buffer later; the clock lengthens the delay should the
/// sink hold frames longer still.
private func timeChangesForGrantedBuffer(_ stream: OpaquePointer, _ target: RenderTarget) {
    guard let granted = pa_stream_get_buffer_attr(stream), let spec = pa_stream_get_sample_spec(stream) else { return }
    target.clock.delay = Double(granted.pointee.tlength) / Double(pa_bytes_per_second(spec)) + ChangeTiming.margin
}

/// The server granted a new buffer length, on PulseAudio's thread (where the write callback runs too).
private func bufferResized(_ stream: OpaquePointer?, _ success: Int32, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata, success != 0 else { return }
    timeChangesForGrantedBuffer(stream, Unmanaged<RenderTarget>.fromOpaque(userdata).takeUnretainedValue())
}

/// The stream's timing, for the write callback: when the next frame written will be played, from
/// the stream's timing information (read without system calls: libpulse reads the clock through the
/// vDSO, as this does).
private func nextFrameTime(_ stream: OpaquePointer, _ clock: inout PlaybackClock, now: Double, frames: Int) -> Double? {
    var lead: pa_usec_t = 0
    var negative: Int32 = 0
    guard pa_stream_get_latency(stream, &lead, &negative) == 0 else { return nil }
    return clock.nextFrameTime(now: now, lead: (negative != 0 ? -1 : 1) * Double(lead) / 1e6, frames: frames)
}

/// Notes how long the server waited since its last request, on PulseAudio's thread, as a part of the margin
/// the buffer holds beyond one request: near 0 on time, 1 where it would have run dry. Not the wait after the
/// first request (the sink may not have started), nor one begun about a resize.
private func noteWait(_ stream: OpaquePointer, _ target: RenderTarget, now: Double) {
    defer {
        target.lastRequest = now
        target.requests = min(target.requests + 1, 2)
    }
    guard target.requests == 2, target.lastRequest > target.resizedAt + settlingAfterResize,
        let granted = pa_stream_get_buffer_attr(stream), let spec = pa_stream_get_sample_spec(stream)
    else { return }
    let bytesPerSecond = Double(pa_bytes_per_second(spec))
    let oneRequest = Double(granted.pointee.minreq) / bytesPerSecond
    let margin = Double(granted.pointee.tlength) / bytesPerSecond - oneRequest
    guard margin > 0 else { return }
    let part = max(0, (now - target.lastRequest - oneRequest) / margin)
    target.longestWait.max(part.bitPattern, ordering: .relaxed)
}

/// Longer than any buffer kept takes to play out: the requests before then follow the old length.
private let settlingAfterResize = 0.05

/// The connection's state, on PulseAudio's thread: failed or ended, the server is gone.
private func contextStateChanged(_ context: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let context, let userdata else { return }
    let state = pa_context_get_state(context)
    guard state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED else { return }
    Unmanaged<ServerLoss>.fromOpaque(userdata).takeUnretainedValue().note()
}

/// The stream's state, on PulseAudio's thread: a failed stream (its sink removed, or the stream
/// ended by the server) plays no more.
private func streamStateChanged(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let state = pa_stream_get_state(stream)
    guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
    Unmanaged<ServerLoss>.fromOpaque(userdata).takeUnretainedValue().note()
}

/// PulseAudio's underflow callback, on its mainloop thread: the server had nothing left to play.
private func countDropout(_ stream: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    guard let userdata else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    Unmanaged<DropoutTally>.fromOpaque(userdata).takeUnretainedValue()
        .note(atNanoseconds: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
}

private let frameBytes = PulseOutput.channels * MemoryLayout<Float>.size

/// Runs once on PulseAudio's thread, before any audio: round-robin real-time priority, modest
/// (below the sound server's own), if the process may have it.
private func raiseToRealTime(_ mainloop: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    var parameters = sched_param()
    parameters.sched_priority = 10
    _ = pthread_setschedparam(pthread_self(), SCHED_RR, &parameters)
}

/// PulseAudio's write callback, on its mainloop thread: fill every byte asked for, straight into
/// the server's buffer. No allocation, no locks, no I/O of ours.
private func writeAudio(_ stream: OpaquePointer?, _ requested: Int, _ userdata: UnsafeMutableRawPointer?) {
    guard let stream, let userdata else { return }
    let target = Unmanaged<RenderTarget>.fromOpaque(userdata).takeUnretainedValue()
    let now = monotonicSeconds()
    noteWait(stream, target, now: now)
    let start = nextFrameTime(stream, &target.clock, now: now, frames: requested / frameBytes)
    target.delay.store(target.clock.delay.bitPattern, ordering: .relaxed)
    let firstFrame = target.clock.framesWritten
    var remaining = requested
    while remaining >= frameBytes {
        var buffer: UnsafeMutableRawPointer?
        var bytes = remaining
        guard pa_stream_begin_write(stream, &buffer, &bytes) == 0, let buffer else { return }
        let frames = min(bytes, remaining) / frameBytes
        guard frames > 0 else {
            pa_stream_cancel_write(stream)
            return
        }
        let offset = Double(target.clock.framesWritten - firstFrame) / target.clock.sampleRate
        target.renderer.render(
            into: buffer.assumingMemoryBound(to: Float.self), frames: frames,
            channels: PulseOutput.channels, at: start.map { $0 + offset })
        pa_stream_write(stream, buffer, frames * frameBytes, nil, 0, PA_SEEK_RELATIVE)
        target.clock.framesWritten += frames
        remaining -= frames * frameBytes
    }
}
