import ArgumentParser
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
            do { return (try DispatcherVoice(activity: sound.speechActivity), []) } catch {
                warn("\(error); speaking with eSpeak-NG")
                notes.append(Phrases.voiceNote(Phrases.dispatcherUnreachable))
            }
        }
        do {
            let voice = try LiveVoice(settings: settings, buffer: sound.speech, outputRate: Double(Play.sampleRate))
            if let warning = voice.warning {
                warn(warning)
                notes.append(Phrases.voiceNote(warning))
            }
            return (voice, notes)
        } catch {
            warn("\(error); continuing without a voice")
            return (nil, [])
        }
    }
}
