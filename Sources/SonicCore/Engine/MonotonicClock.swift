import Glibc

/// CLOCK_MONOTONIC in seconds: the clock of the session log, shared with the tablet driver's timestamps. Read
/// through the vDSO, without a system call, so the audio thread may read it too.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
