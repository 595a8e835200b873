import Glibc
import Synchronization

/// Set from a signal handler (SIGINT, SIGTERM, SIGHUP) so the event loop ends cleanly: the log is
/// flushed and the tone fades instead of cutting off.
let quitSignalled = Atomic<Bool>(false)

func installQuitSignals() {
    for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, requestQuit) }
}

/// A signal handler may only do async-signal-safe work; a lock-free atomic store is.
private func requestQuit(_ signal: Int32) {
    quitSignalled.store(true, ordering: .relaxed)
}
