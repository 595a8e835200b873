import ArgumentParser
import SonicAudio
import SonicCore

extension AudioChoice: ExpressibleByArgument {}

extension Play {
    /// The sound output `--audio` asks for, or the other server, said in one line, when that one
    /// cannot play; status 4 when neither can.
    func openAudio(renderer: AudioRenderer, streamName: String) throws -> any AudioOutput {
        do {
            return try AudioOutputs.open(
                audio, renderer: renderer, sampleRate: Self.sampleRate, latency: latency / 1000,
                streamName: streamName, notice: warn)
        } catch {
            throw fail(error.description, status: ExitStatus.noSound)
        }
    }
}
