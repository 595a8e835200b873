import ArgumentParser
import Foundation
import SonicCore
import SonicSpeech
import SonicSpeechDispatcher

extension Profile.SpeechEngine: ExpressibleByArgument {}

/// The live voice: the one the profile or `--speech` names, eSpeak-NG when speech-dispatcher cannot be
/// reached, or none at all (the instrument plays on without it). Each thing worked around is one
/// line on stderr and a note the greeting ends with.
enum SpeechChoice {
    static func start(_ settings: Profile.SpeechSettings, sound: SoundStack) -> (
        voice: (any Announcer)?, notes: [String]
    ) {
        var notes: [String] = []
        if settings.engine == .dispatcher {
            let voice = DispatcherWithStandIn {
                var unheard: [String] = [] // too late for the greeting: on stderr only
                return eSpeak(settings, sound: sound, notes: &unheard)
            }
            do {
                voice.dispatcher = try DispatcherVoice(
                    activity: sound.speechActivity, lost: { [voice] unsaid in voice.standIn(unsaid: unsaid) },
                    back: { [voice] in voice.dispatcherBack() })
                return (voice, [])
            } catch {
                warn("\(error); speaking with eSpeak-NG")
                notes.append(Phrases.voiceNote(Phrases.dispatcherUnreachable))
            }
        }
        return (eSpeak(settings, sound: sound, notes: &notes), notes)
    }

    /// eSpeak-NG, its warnings on stderr and in `notes`; nil (said on stderr) when it cannot start.
    private static func eSpeak(_ settings: Profile.SpeechSettings, sound: SoundStack, notes: inout [String])
        -> LiveVoice?
    {
        do {
            let voice = try LiveVoice(
                settings: settings, buffer: sound.speech, outputRate: Double(AudioFormat.sampleRate))
            if let warning = voice.warning {
                warn(warning)
                notes.append(Phrases.voiceNote(warning))
            }
            return voice
        } catch {
            warn("\(error); continuing without a voice")
            return nil
        }
    }
}

/// speech-dispatcher, with eSpeak-NG standing in while the daemon is away for more than a moment:
/// said on stderr and aloud, followed by what was still to be said; and speech-dispatcher again
/// once it is back.
private final class DispatcherWithStandIn: Announcer, @unchecked Sendable {
    private let lock = NSLock()
    private let makeStandIn: () -> (any Announcer)?
    /// Set once, before the first announcement.
    var dispatcher: DispatcherVoice?
    /// Made the first time it is needed, and kept for the next.
    private var standInVoice: (any Announcer)?
    private var standing = false

    init(makeStandIn: @escaping () -> (any Announcer)?) { self.makeStandIn = makeStandIn }

    /// The voice speaking now; waits while eSpeak-NG takes over, so nothing said meanwhile is lost.
    private var current: (any Announcer)? { lock.withLock { standing ? standInVoice : dispatcher } }

    func say(_ text: String) { current?.say(text) }

    func sayAfter(_ text: String) { current?.sayAfter(text) }

    func waitUntilQuiet(timeout: Double) { current?.waitUntilQuiet(timeout: timeout) }

    func stop() {
        dispatcher?.stop()
        lock.withLock { standInVoice }?.stop()
    }

    /// Called on the dispatcher's thread when the daemon has stayed away.
    func standIn(unsaid: String?) {
        warn("speech-dispatcher has stopped; speaking with eSpeak-NG")
        lock.lock()
        defer { lock.unlock() }
        if standInVoice == nil { standInVoice = makeStandIn() }
        standing = true
        standInVoice?.say(Phrases.dispatcherLost + (unsaid.map { " " + $0 } ?? ""))
    }

    /// Called on the dispatcher's thread when the daemon is back (it then says so itself).
    func dispatcherBack() {
        warn("speech-dispatcher is back")
        lock.lock()
        defer { lock.unlock() }
        standing = false
        standInVoice?.say("")
    }
}
