import Foundation
import SonicCore
import Synchronization

/// Speech for rendering: whole utterances at once, on the calling thread.
public final class OfflineSpeech: SpeechSynthesis {
    private let espeak: ESpeak
    public var warning: String? { espeak.warning }

    public init(settings: Profile.SpeechSettings) throws(SpeechError) {
        espeak = try ESpeak(settings: settings)
    }

    public func samples(for text: String, sampleRate: Double) -> [Float] {
        var resampler = Resampler(from: espeak.sampleRate, to: sampleRate)
        var output: [Float] = []
        espeak.synthesize(text) { chunk in
            let floats = chunk.map { Float($0) / 32768 }
            output += floats.withUnsafeBufferPointer { resampler.process($0) }
            return true
        }
        return output + resampler.finish()
    }
}

/// The live voice: speaks on its own thread into the speech buffer the audio thread plays from.
/// A new announcement interrupts the one being spoken, or follows it.
public final class LiveVoice: Announcer, @unchecked Sendable {
    /// Set when the requested voice was missing and English stands in.
    public private(set) var warning: String?
    private let buffer: SpeechBuffer
    private let outputRate: Double
    /// Guards `pending`, `busy` and `stopping`; the worker waits on it.
    private let condition = NSCondition()
    /// What is yet to be said, in order.
    private var pending: [Utterance] = []
    private var stopping = false
    private var busy = false
    /// Read by the synthesis callback: stop the current utterance.
    private let interrupt = Atomic<Bool>(false)

    /// Starts the speech thread and initialises eSpeak-NG on it; throws if it has no voice.
    public init(settings: Profile.SpeechSettings, buffer: SpeechBuffer, outputRate: Double) throws(SpeechError) {
        self.buffer = buffer
        self.outputRate = outputRate
        // The thread reports how eSpeak started before it begins listening.
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: SpeechError?
        let thread = Thread { [self] in
            let espeak: ESpeak
            do throws(SpeechError) { espeak = try ESpeak(settings: settings) } catch {
                failure = error
                ready.signal()
                return
            }
            warning = espeak.warning
            ready.signal()
            run(espeak)
        }
        thread.name = "speech"
        thread.start()
        ready.wait()
        if let failure { throw failure }
    }

    /// Says `text`, cutting off whatever is being said or waits to be.
    public func say(_ text: String) { queue(Utterance(text: text, after: false)) }

    /// Says `text` after what is being said and waits to be.
    public func sayAfter(_ text: String) { queue(Utterance(text: text, after: true)) }

    private func queue(_ utterance: Utterance) {
        condition.lock()
        pending.queue(utterance)
        busy = true
        if !utterance.after { interrupt.store(true, ordering: .relaxed) }
        condition.signal()
        condition.unlock()
    }

    /// Waits until everything said has been played (or `timeout` seconds pass).
    public func waitUntilQuiet(timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            condition.lock()
            let speaking = busy || !pending.isEmpty
            condition.unlock()
            if !speaking && buffer.isDrained { return }
            usleep(10_000)
        }
    }

    /// Stops the speech thread.
    public func stop() {
        condition.lock()
        stopping = true
        interrupt.store(true, ordering: .relaxed)
        condition.signal()
        condition.unlock()
    }

    private func run(_ espeak: ESpeak) {
        while true {
            condition.lock()
            while pending.isEmpty && !stopping { condition.wait() }
            if stopping { condition.unlock(); return }
            let next = pending.removeFirst()
            interrupt.store(false, ordering: .relaxed)
            condition.unlock()

            // What follows leaves the last words to be played out; anything else cuts them off.
            if !next.after { buffer.discardQueued() }
            let text = next.text
            if !text.isEmpty {
                var resampler = Resampler(from: espeak.sampleRate, to: outputRate)
                espeak.synthesize(text) { chunk in
                    let floats = chunk.map { Float($0) / 32768 }
                    return self.enqueue(floats.withUnsafeBufferPointer { resampler.process($0) })
                }
                if !interrupt.load(ordering: .relaxed) { _ = enqueue(resampler.finish()) }
            }

            condition.lock()
            if pending.isEmpty { busy = false }
            condition.unlock()
        }
    }

    /// Hands samples to the audio thread, waiting for room; false once interrupted.
    private func enqueue(_ samples: [Float]) -> Bool {
        var offset = 0
        while offset < samples.count {
            if interrupt.load(ordering: .relaxed) { return false }
            offset += samples[offset...].withUnsafeBufferPointer { buffer.write($0) }
            if offset < samples.count { usleep(5_000) }
        }
        return !interrupt.load(ordering: .relaxed)
    }
}
