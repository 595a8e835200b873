internal import CPipeWire
import SonicCore
import Synchronization

/// The stream's side of each graph cycle, on PipeWire's real-time data thread: take a buffer, fill
/// it, hand it back, and check the graph's clock for missed cycles. Nothing here allocates, locks
/// or makes a system call: PipeWire's buffer and time calls are made for this thread, and the
/// renderer keeps the same rules.
final class RenderCycle {
    let renderer: AudioRenderer
    let sampleRate: Int
    /// Set once, before the stream is connected and so before the first cycle.
    var stream: OpaquePointer?
    /// What other threads read.
    let shared = CycleCounters()
    private var watch = CycleWatch()

    init(renderer: AudioRenderer, sampleRate: Int) {
        self.renderer = renderer
        self.sampleRate = sampleRate
    }

    func run() {
        guard let stream else { return }
        var time = pw_time()
        let clocked =
            pw_stream_get_time_n(stream, &time, MemoryLayout<pw_time>.size) == 0 && time.rate.num > 0
            && time.rate.denom > 0
        guard let buffer = pw_stream_dequeue_buffer(stream) else {
            // The cycle goes out without this stream's sound.
            shared.dropouts.note(atNanoseconds: clocked ? time.now : 0)
            return
        }
        let frameBytes = PipeWireOutput.channels * MemoryLayout<Float>.size
        var frames = 0
        if let spaBuffer = buffer.pointee.buffer, spaBuffer.pointee.n_datas > 0, let data = spaBuffer.pointee.datas {
            frames = min(Int(buffer.pointee.requested), Int(data.pointee.maxsize) / frameBytes)
            if let samples = data.pointee.data, frames > 0 {
                // The cycle's frames follow one another from the graph's time for the cycle; a change
                // asked for at t sounds at t + one period and a margin, within whichever cycle that falls.
                let delay = Double(frames) / Double(sampleRate) + ChangeTiming.margin
                shared.delay.store(delay.bitPattern, ordering: .relaxed)
                renderer.render(
                    into: samples.assumingMemoryBound(to: Float.self), frames: frames,
                    channels: PipeWireOutput.channels, at: clocked ? Double(time.now) / 1e9 - delay : nil)
            }
            if let chunk = data.pointee.chunk {
                chunk.pointee.offset = 0
                chunk.pointee.stride = Int32(frameBytes)
                chunk.pointee.size = UInt32(frames * frameBytes)
            }
        }
        pw_stream_queue_buffer(stream, buffer)
        guard frames > 0 else { return }
        shared.periodFrames.store(frames, ordering: .relaxed)
        guard clocked else { return }
        // The graph counts in its own frames, which differ from the stream's when it runs at another rate.
        let length = UInt64(frames) * UInt64(time.rate.denom) / (UInt64(time.rate.num) * UInt64(sampleRate))
        if watch.missedCycles(position: time.ticks, length: length) { shared.dropouts.note(atNanoseconds: time.now) }
    }
}

final class CycleCounters: Sendable {
    /// Each noticed at the graph's time for its cycle.
    let dropouts = DropoutTally()
    /// The frames of the last cycle: the graph's period, in the stream's frames.
    let periodFrames = Atomic<Int>(0)
    /// The delay the last cycle timed its changes with: a `Double`'s bits.
    let delay = Atomic<UInt64>(0)
}

/// The stream's `process` event, on PipeWire's data thread, once per graph cycle.
func renderCycle(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<RenderCycle>.fromOpaque(data).takeUnretainedValue().run()
}
