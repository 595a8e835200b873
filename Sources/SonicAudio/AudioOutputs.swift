import SonicCore
import SonicPipeWire
import SonicPulse

/// Which sound server to play through.
public enum AudioChoice: String, CaseIterable, Sendable {
    /// Native PipeWire when a PipeWire daemon answers, PulseAudio otherwise.
    case auto
    case pipewire
    /// PulseAudio, or PipeWire's PulseAudio service.
    case pulse
}

public enum AudioServer: String, Sendable {
    case pipeWire = "PipeWire"
    case pulseAudio = "PulseAudio"
}

/// The one place the live sound output is opened: the server asked for, or the other one when that
/// cannot play.
public enum AudioOutputs {
    /// Opens the output `choice` asks for and starts playing what `renderer` produces.
    /// - Parameters:
    ///   - latency: the sound kept ahead of the speaker, in seconds.
    ///   - notice: told in one line when the other server plays instead, or this one cannot keep to
    ///     `latency`.
    public static func open(
        _ choice: AudioChoice, renderer: AudioRenderer, sampleRate: Int, latency: Double,
        streamName: String, notice: (String) -> Void
    ) throws(AudioError) -> (output: any AudioOutput, server: AudioServer) {
        try open(choice, notice: notice) { server throws(AudioError) -> any AudioOutput in
            try open(
                server, renderer: renderer, sampleRate: sampleRate, latency: latency, streamName: streamName,
                notice: notice)
        }
    }

    /// Opens an output to `server` and starts playing what `renderer` produces.
    public static func open(
        _ server: AudioServer, renderer: AudioRenderer, sampleRate: Int, latency: Double, streamName: String,
        notice: (String) -> Void
    ) throws(AudioError) -> any AudioOutput {
        switch server {
        case .pipeWire:
            try PipeWireOutput(
                renderer: renderer, sampleRate: sampleRate, latency: latency, streamName: streamName, notice: notice)
        case .pulseAudio:
            try PulseOutput(renderer: renderer, sampleRate: sampleRate, latency: latency, streamName: streamName)
        }
    }

    /// Tries the server `choice` names first (PipeWire for `auto`), then the other. Falling back is
    /// said through `notice` in one line — except when `auto` finds no PipeWire daemon, which is
    /// what it is for. When neither plays, the error names both reasons.
    static func open<Output>(
        _ choice: AudioChoice, notice: (String) -> Void,
        opening: (AudioServer) throws(AudioError) -> Output
    ) throws(AudioError) -> (output: Output, server: AudioServer) {
        let (first, second): (AudioServer, AudioServer) =
            choice == .pulse ? (.pulseAudio, .pipeWire) : (.pipeWire, .pulseAudio)
        let firstFailure: AudioError
        do { return (try opening(first), first) } catch { firstFailure = error }
        let firstReason = "\(first.rawValue): \(firstFailure.message)"
        do {
            let output = try opening(second)
            if choice != .auto || !firstFailure.noServer {
                notice("\(firstReason); playing through \(second.rawValue) instead")
            }
            return (output, second)
        } catch {
            throw AudioError(
                message: "no sound server: \(firstReason); \(second.rawValue): \(error.message)",
                noServer: firstFailure.noServer && error.noServer)
        }
    }
}
