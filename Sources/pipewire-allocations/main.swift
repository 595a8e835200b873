// pipewire-allocations — plays the sound engine live through native PipeWire, driven as the pen
// drives it (pitch, loudness and cutoff changing 200 times a second, ticks, the guide's beeps, an
// utterance every five seconds, a sweep of the image, a row or a column started or stopped every
// second), and counts the allocations made on PipeWire's data thread, where the stream's cycle
// and the renderer run. Needs a PipeWire daemon, and the allocation counter preloaded:
//
//   LD_PRELOAD=.build/release/libMallocInterposerSwift.so .build/release/pipewire-allocations [--seconds 10]
//       [--profile profiles/classic.toml]
import Foundation
import MallocInterposerSwift
import SonicCore
import SonicPipeWire

let arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else {
        return nil
    }
    return arguments[arguments.index(after: index)]
}
let seconds = Double(option("--seconds") ?? "10") ?? 10
let profilePath = option("--profile") ?? "profiles/classic.toml"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pipewire-allocations: \(message)\n".utf8))
    exit(1)
}

MallocInterposerSwift.initialize()
MallocInterposerSwift.hook()
let probe = [Int](repeating: 1, count: 1000)
MallocInterposerSwift.unhook()
guard MallocInterposerSwift.getStatistics().mallocCount > 0, probe.count == 1000 else {
    fail("the allocation counter is not loaded: run with LD_PRELOAD=<build>/libMallocInterposerSwift.so")
}

guard let text = try? String(contentsOfFile: profilePath, encoding: .utf8) else { fail("cannot read \(profilePath)") }
let profile: Profile
do { profile = try Profile(name: "check", file: profilePath, text: text) } catch { fail("\(error)") }
let sampleRate = AudioFormat.sampleRate
let controls = SynthControls()
let speech = SpeechBuffer(capacity: sampleRate)
let engine = SynthEngine(chain: profile.chain, sampleRate: Double(sampleRate), controls: controls)
// The sweeps' tables, as a session on the doped lattice builds them.
let lattice = OverviewSamples.defects(.low).render()
engine.load(Instrument(image: lattice, profile: profile, statistics: SampleStatistics(lattice)).sweepTables)
let renderer = ThreadNotingRenderer(
    VoicedRenderer(
        engine: engine, speech: speech, duckDecibels: profile.speech.duckDecibels, volume: profile.speech.volume))
let output: PipeWireOutput
do {
    output = try PipeWireOutput(
        renderer: renderer, sampleRate: sampleRate, latency: 0.01, streamName: "allocation check")
} catch {
    fail("PipeWire: \(error)")
}
/// Half a second of "voice" (a gliding tone).
let utterance = (0..<sampleRate / 2).map { Float(0.5 * sin(Double($0) * (0.05 + Double($0) * 1e-7))) }

/// Moves the controls as the pen would, every 5 ms for `duration` seconds.
func play(for duration: Double) {
    var random = SeededRandom(seed: 2026)
    var pitch = 440.0, cutoff = 2000.0
    for step in 0..<Int(duration * 200) {
        pitch = min(1760, max(110, pitch * (1 + 0.06 * random.gaussian())))
        cutoff = min(8000, max(200, cutoff * (1 + 0.1 * random.gaussian())))
        // Stamped as the pen's events are, so the data thread places each change at its frame.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let time = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        let guide = GuideTone(rate: pitch / 160, frequency: 2 * pitch, pan: cutoff / 4000 - 1)
        controls.set(
            SynthTargets(
                frequency: pitch, amplitude: random.next() % 50 == 0 ? 0 : 0.3, cutoff: cutoff, guide: guide), at: time)
        if step % 20 == 0 { controls.tick(at: time) }
        if step % 200 == 0 {
            let sweeps: [Sweep?] = [.image, .row(100), nil, .column(200), .row(383)]
            controls.sweep(sweeps[step / 200 % sweeps.count], at: time)
        }
        if step % 1000 == 0 {
            speech.discardQueued()
            _ = utterance.withUnsafeBufferPointer { speech.write($0) }
        }
        usleep(5_000)
    }
}

// A second first, so whatever PipeWire sets up on its thread in its first cycles is not counted.
play(for: 1)
MallocInterposerSwift.setAllocationHook(countOnDataThread)
MallocInterposerSwift.hook()
let cyclesBefore = cycles.load(ordering: .relaxed)
play(for: seconds)
MallocInterposerSwift.unhook()
MallocInterposerSwift.setAllocationHook(nil)
let counted = allocationsOnDataThread.load(ordering: .relaxed)
let played = cycles.load(ordering: .relaxed) - cyclesBefore
print(
    "allocations on PipeWire's data thread while playing: \(counted) in \(played) cycles (\(output.dropoutCount) dropouts)"
)
exit(counted == 0 && played > 0 ? 0 : 2)
