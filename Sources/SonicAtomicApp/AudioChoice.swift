import ArgumentParser
import SonicAudio
import SonicCore

extension AudioChoice: ExpressibleByArgument {}

extension SessionOptions {
    /// The sound output `--audio` asks for, or the other server, said in one line, when that one
    /// cannot play; status 4 when neither can. Kept playing should its server go away and come back.
    func openAudio(renderer: AudioRenderer, streamName: String) throws -> LiveSound {
        do {
            return try LiveSound(
                audio, renderer: renderer, sampleRate: AudioFormat.sampleRate, latency: latency / 1000,
                streamName: streamName, notice: { warn($0) }, now: monotonicSeconds())
        } catch {
            throw fail(error.description, status: ExitStatus.noSound)
        }
    }
}
