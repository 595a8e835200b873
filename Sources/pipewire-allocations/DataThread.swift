import Glibc
import SonicCore
import Synchronization

/// The thread PipeWire renders on, as the renderer last saw it (0 before the first cycle).
let dataThread = Atomic<UInt>(0)
let cycles = Atomic<Int>(0)
let allocationsOnDataThread = Atomic<Int>(0)

/// Renders through `inner`, noting the thread it is called on.
final class ThreadNotingRenderer: AudioRenderer {
    let inner: AudioRenderer

    init(_ inner: AudioRenderer) { self.inner = inner }

    func render(into buffer: UnsafeMutablePointer<Float>, frames: Int, channels: Int, at time: Double?) {
        dataThread.store(UInt(pthread_self()), ordering: .relaxed)
        cycles.add(1, ordering: .relaxed)
        inner.render(into: buffer, frames: frames, channels: channels, at: time)
    }
}

/// The allocation counter's hook, inside the allocator on the allocating thread: it counts only
/// the data thread's allocations, and allocates nothing itself.
func countOnDataThread(_ bytes: Int) {
    if UInt(pthread_self()) == dataThread.load(ordering: .relaxed) {
        allocationsOnDataThread.add(1, ordering: .relaxed)
    }
}
