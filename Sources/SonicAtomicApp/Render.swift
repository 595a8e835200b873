import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles
import SonicSpeech

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a session log through the sound engine and write what it sounds like to a WAV file.",
        discussion: """
            The log's pen events go through the same controller and engine as they did live, at their logged \
            times, so with the session's own profile the file holds what was heard. Rendering the same input \
            twice gives the same bytes.
            """)

    @Argument(help: "The image file the session played (the log says which of its images).")
    var image: String

    @Option(help: "The session log written by `play --events`.")
    var session: String

    @Option(help: "The WAV file to write (48 kHz stereo).")
    var out: String

    @Option(help: "A profile name or path (default: the session's own).")
    var profile: String?

    @Flag(help: "Write 32-bit float samples instead of 16-bit.")
    var float = false

    func run() throws {
        let log: (start: StartRecord, records: [SessionRecord])
        do { log = try SessionLogReader.read(path: session) } catch {
            throw fail("\(error)", status: ExitStatus.badInput)
        }
        let chosen: Profile
        do { chosen = try Installation.loadProfile(profile ?? log.start.profile) } catch let error as ProfileError {
            throw fail(error.description, status: ExitStatus.badInput)
        }
        // The image of the file the session played.
        let picture: GrayImage
        do { picture = try ImageFiles.open(image, number: log.start.imageNumber).image } catch {
            throw fail("cannot read image \(image): \(error)", status: ExitStatus.badInput)
        }
        guard picture.width == log.start.width, picture.height == log.start.height else {
            throw fail("the session played a \(log.start.width) × \(log.start.height) image, \(image) is "
                       + "\(picture.width) × \(picture.height)", status: ExitStatus.badInput)
        }
        // Speak as the session did, whatever the profile says.
        var spoken = chosen.speech
        if let voice = log.start.voice { spoken.voice = voice }
        if let rate = log.start.rate { spoken.rate = rate }
        let voice = speech(spoken, needed: log.records.contains { if case .speech = $0 { true } else { false } })
        let samples = SessionReplay(image: picture, profile: chosen, sampleRate: Play.sampleRate, speech: voice)
            .render(log.records, start: log.start)
        let bytes = WAVEncoder.encode(samples, channels: 2, sampleRate: Play.sampleRate, format: float ? .float32 : .pcm16)
        guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else {
            throw fail("cannot write \(out)", status: ExitStatus.badInput)
        }
    }

    /// The voice for the logged announcements; without one the render goes on, silent where it spoke.
    private func speech(_ settings: Profile.SpeechSettings, needed: Bool) -> OfflineSpeech? {
        guard needed else { return nil }
        do {
            let voice = try OfflineSpeech(settings: settings)
            if let warning = voice.warning { warn(warning) }
            return voice
        } catch {
            warn("\(error); rendering without it")
            return nil
        }
    }
}
