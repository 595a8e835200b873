import Dispatch
import SonicCore
import Synchronization

/// Reads the spectrum under the pen on a thread of its own and reduces it to the spectrum bank's amplitudes, so the
/// event loop — and every other mode's sound — never waits for the file. Only the latest request counts: one asked
/// for while another is read replaces any still waiting, and only the latest result is kept.
final class SpectrumFetcher: Sendable {
    private struct Work {
        var waiting: SpectrumRequest?
        var reading = false
        var finished: SpectrumLevels?
    }

    private let voice: SpectrumVoice
    private let queue = DispatchQueue(label: "spectra")
    private let work = Mutex(Work())

    init(_ voice: SpectrumVoice) { self.voice = voice }

    func submit(_ request: SpectrumRequest) {
        let start = work.withLock { work in
            work.waiting = request
            defer { work.reading = true }
            return !work.reading
        }
        if start { queue.async { [self] in readWaiting() } }
    }

    /// Whether a spectrum is still being read.
    var isBusy: Bool { work.withLock { $0.reading } }

    /// The latest spectrum read since the last call, if any.
    func takeFinished() -> SpectrumLevels? {
        work.withLock { work in
            defer { work.finished = nil }
            return work.finished
        }
    }

    /// Reads requests until none waits; a spectrum that cannot be read is silence.
    private func readWaiting() {
        while let request = work.withLock({ work -> SpectrumRequest? in
            defer { work.waiting = nil }
            if work.waiting == nil { work.reading = false }
            return work.waiting
        }) {
            let levels = (try? voice.levels(request)) ?? SpectrumLevels(request: request, amplitudes: [])
            work.withLock { $0.finished = levels }
        }
    }
}
