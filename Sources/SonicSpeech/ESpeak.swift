import CEspeakNG
import Glibc
import SonicCore

public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// eSpeak-NG, used synchronously. The library keeps its state in globals, so there is one per
/// process and every call must come from the same thread.
final class ESpeak {
    /// eSpeak's output rate (22 050 Hz).
    let sampleRate: Double
    /// Set when the requested voice was missing and English stands in.
    let warning: String?

    init(settings: Profile.SpeechSettings) throws(SpeechError) {
        // The library reports missing data on stderr itself; our one line says it better.
        let rate = Self.withStandardErrorSilenced {
            espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        }
        guard rate > 0 else {
            let path = getenv("ESPEAK_DATA_PATH").map { String(cString: $0) }
            throw SpeechError(
                message: "no speech: the eSpeak-NG voice data was not found"
                    + (path.map { " in \($0)" } ?? "") + " (install espeak-ng-data)")
        }
        sampleRate = Double(rate)
        espeak_SetSynthCallback(deliverSamples)
        if espeak_SetVoiceByName(settings.voice) == EE_OK {
            warning = nil
        } else {
            guard espeak_SetVoiceByName("en") == EE_OK else {
                throw SpeechError(
                    message: "no speech: neither the voice \"\(settings.voice)\" nor English is available")
            }
            warning = "the voice \"\(settings.voice)\" is not available; speaking English"
        }
        espeak_SetParameter(espeakRATE, Int32(settings.rate), 0)
        espeak_SetParameter(espeakPITCH, Int32(settings.pitch), 0)
    }

    /// Speaks `text` into `deliver`, chunk by chunk (mono, `sampleRate`), until done or until
    /// `deliver` returns false.
    func synthesize(_ text: String, _ deliver: @escaping (UnsafeBufferPointer<Int16>) -> Bool) {
        let sink = SampleSink(deliver: deliver)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var identifier: UInt32 = 0
        text.withCString { chars in
            _ = espeak_Synth(
                chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), &identifier,
                context.toOpaque())
        }
    }

    private static func withStandardErrorSilenced<T>(_ body: () -> T) -> T {
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 { dup2(null, 2); close(null) }
        defer { if saved >= 0 { dup2(saved, 2); close(saved) } }
        return body()
    }
}

/// Where one synthesis's samples go.
private final class SampleSink {
    let deliver: (UnsafeBufferPointer<Int16>) -> Bool
    init(deliver: @escaping (UnsafeBufferPointer<Int16>) -> Bool) { self.deliver = deliver }
}

/// eSpeak's callback (a plain function: it runs on whatever thread called espeak_Synth).
/// Returning 1 stops the synthesis — the only reliable way to interrupt it.
private func deliverSamples(
    _ samples: UnsafeMutablePointer<Int16>?, _ count: Int32,
    _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let events, let context = events.pointee.user_data else { return 0 }
    guard let samples, count > 0 else { return 0 }
    let sink = Unmanaged<SampleSink>.fromOpaque(context).takeUnretainedValue()
    return sink.deliver(UnsafeBufferPointer(start: samples, count: Int(count))) ? 0 : 1
}
