import ArgumentParser
import Foundation
import Glibc
import SonicCore
import SonicImageFiles
import SonicSpeech

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a session log through the sound engine and write what it sounds like to a WAV file.",
        discussion: """
            The log's pen events go through the same instrument and sound engine as they did live, at their logged \
            times, so with the session's own profile the file holds what was heard. Rendering the same input \
            twice gives the same bytes. The log is read twice, first to check every record and the times \
            (nothing is written for a damaged log), then to render, streaming: any length of session renders \
            in the same small memory. Files past 4 GiB are written as RF64.
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
        var checked = SessionLogCheck()
        do {
            try SessionLogReader(path: session).forEachRecord { record, line throws(RenderError) in
                do throws(SessionLogError) { try checked.admit(record, place: "\(session):\(line)") } catch {
                    throw .log(error)
                }
            }
        } catch { throw fail(error.message, status: .badInput) }
        guard let start = checked.start else { throw fail("\(session): no start record", status: .badInput) }
        let chosen = try loadProfile(profile ?? start.profile)
        // The image of the file the session played, the stack whose frames it stepped through, and its spectra for
        // the spectra it played.
        let opened = try openImage(image, number: start.imageNumber, frames: start.frames, summedSpectrum: true)
        let frameCount = opened.frames?.stack.count ?? 0
        guard checked.highestFrame <= frameCount else {
            throw fail(
                "the session played frame \(checked.highestFrame), and image \(start.imageNumber) of \(image) has "
                    + (frameCount == 0 ? "no frames" : "\(frameCount)"), status: .badInput)
        }
        let picture = opened.image
        let spectra = opened.entry.spectra.map { SpectrumVoice(cube: $0, profile: chosen) }
        if checked.playsSpectra && spectra == nil {
            throw fail(
                "the session played spectra or energy windows, and image \(start.imageNumber) of \(image) holds none",
                status: .badInput)
        }
        guard picture.width == start.width, picture.height == start.height else {
            throw fail(
                "the session played a \(start.width) × \(start.height) image, \(image) is "
                    + "\(picture.width) × \(picture.height)", status: .badInput)
        }
        // Speak as the session did, whatever the profile says.
        var spoken = chosen.speech
        if let voice = start.voice { spoken.voice = voice }
        if let rate = start.rate { spoken.rate = rate }
        let voice = checked.speaks ? speech(spoken) : nil
        let replay = SessionReplay(
            image: picture, profile: chosen, sampleRate: AudioFormat.sampleRate, speech: voice, start: start,
            spectra: spectra, stack: opened.frames?.stack)
        let format: WAVEncoder.Format = float ? .float32 : .pcm16
        let mostFrames = replay.frame(at: checked.lastTime) + replay.maximumTailFrames
        let output: WAVStream
        do {
            output = try WAVStream(
                path: out, mostFrames: mostFrames, sampleRate: AudioFormat.sampleRate, format: format)
        } catch { throw fail(error.message, status: .badInput) }
        let progress = RenderProgress(
            total: Double(replay.frame(at: checked.lastTime)) / Double(AudioFormat.sampleRate))
        do {
            try SessionLogReader(path: session).forEachRecord { record, _ throws(RenderError) in
                try replay.play(record) { sound throws(RenderError) in try output.write(sound) }
                progress?.show(seconds: Double(replay.frames) / Double(AudioFormat.sampleRate))
            }
            try replay.finish { sound throws(RenderError) in try output.write(sound) }
            progress?.finish()
            try output.close(frames: replay.frames)
        } catch {
            progress?.finish()
            output.discard()
            throw fail(error.message, status: .badInput)
        }
    }

    /// The voice for the logged announcements; without one the render goes on, silent where it spoke.
    private func speech(_ settings: Profile.SpeechSettings) -> OfflineSpeech? {
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

/// Why a render stopped: the session log could not be read, or the WAV file could not be written.
enum RenderError: Error {
    case log(SessionLogError)
    case wav(String)

    var message: String {
        switch self {
        case .log(let error): error.message
        case .wav(let message): message
        }
    }
}

/// A WAV file written as the sound is made. A file is written beside the target and renamed over it
/// when complete, so a failed render leaves nothing half-written; a device, a pipe or a link
/// (/dev/stdout into a player) is written through, its header saying "as long as it goes" unless it
/// can seek back.
final class WAVStream {
    private let path: String
    /// Where the bytes go: a temporary file, or the target itself when that is not a regular file.
    private let written: String
    private let file: UnsafeMutablePointer<FILE>
    private let format: WAVEncoder.Format
    private let sampleRate: Int
    private let large: Bool
    private var bytes: [UInt8] = []

    /// `mostFrames` bounds the file: it chooses RF64 past 4 GiB, and the disk must have room for it.
    init(path: String, mostFrames: Int, sampleRate: Int, format: WAVEncoder.Format) throws(RenderError) {
        self.path = path
        self.format = format
        self.sampleRate = sampleRate
        let mostBytes = mostFrames * 2 * format.bytesPerSample + 80
        large = mostBytes > Int(UInt32.max)
        // Only a plain file (or none yet) is replaced by renaming; anything else — a device, a pipe, a
        // link such as /dev/stdout — is written through.
        var target = stat()
        let inPlace = lstat(path, &target) == 0 && target.st_mode & S_IFMT != S_IFREG
        if !inPlace {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var disk = statvfs()
            if statvfs(folder, &disk) == 0 {
                let free = Int(disk.f_bavail) * Int(disk.f_frsize)
                guard mostBytes <= free else {
                    throw RenderError.wav(
                        "cannot write \(path): it could take \(Self.gigabytes(mostBytes)) and "
                            + "\(folder) has \(Self.gigabytes(free)) free")
                }
            }
        }
        written = inPlace ? path : path + ".part-\(getpid())"
        guard let file = fopen(written, "w") else {
            throw RenderError.wav("cannot write \(path): \(String(cString: strerror(errno)).lowercased())")
        }
        self.file = file
        try put(WAVEncoder.header(frames: nil, channels: 2, sampleRate: sampleRate, format: format, large: large))
    }

    func write(_ sound: UnsafeBufferPointer<Float>) throws(RenderError) {
        bytes.removeAll(keepingCapacity: true)
        WAVEncoder.append(sound, format: format, to: &bytes)
        try put(bytes)
    }

    /// Writes the header's final sizes where the output can seek back, and puts a file in place.
    func close(frames: Int) throws(RenderError) {
        if fseek(file, 0, SEEK_SET) == 0 {
            try put(
                WAVEncoder.header(frames: frames, channels: 2, sampleRate: sampleRate, format: format, large: large))
        }
        let closed = fclose(file) == 0
        guard written != path else {
            guard closed else { throw failure() }
            return
        }
        guard closed, rename(written, path) == 0 else {
            let error = failure()
            unlink(written)
            throw error
        }
    }

    func discard() {
        fclose(file)
        if written != path { unlink(written) }
    }

    private func put(_ data: [UInt8]) throws(RenderError) {
        guard data.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == data.count else { throw failure() }
    }

    private func failure() -> RenderError {
        .wav("cannot write \(path): \(String(cString: strerror(errno)).lowercased())")
    }

    private static func gigabytes(_ bytes: Int) -> String { String(format: "%.1f GB", Double(bytes) / 1e9) }
}

/// "rendering 12:30 of 60:00, 120× real time" on stderr, a few times a second — only when stderr is a terminal.
final class RenderProgress {
    private let total: Double
    private let started = monotonicSeconds()
    private var shown = 0.0

    init?(total: Double) {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        self.total = total
    }

    func show(seconds: Double) {
        let now = monotonicSeconds()
        guard now - shown >= 0.25 else { return }
        shown = now
        let factor = seconds / max(1e-6, now - started)
        let line = "rendering \(Self.clock(seconds)) of \(Self.clock(total)), \(Int(factor))× real time"
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }

    /// Clears the line.
    func finish() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }

    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds)
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
