// engine-benchmark — renders what the audio thread renders (the profile's chain, ducked under a
// voice that speaks a tenth of the time) offline, driven by a seeded pitch / loudness / cutoff
// trajectory that changes 200 times a second (each change made part way into a block, as the
// live outputs place them), and reports the real-time factor, the time of each
// 128-frame block (median, p99), peak memory and, when the allocation counter is preloaded, how many
// allocations rendering made. With --sweeps it also sweeps a lattice — the whole image, a row, a
// column, each in turn every two seconds, stopped now and then — and the guide beeps all along. With --spectra the
// spectrum bank plays too, a new spectrum every 21 ms (as the pen moves over a spectrum image), coming and going with
// the loudness.
//
//   swift build -c release --product engine-benchmark
//   .build/release/engine-benchmark [--profile profiles/classic.toml] [--seconds 60] [--sweeps] [--spectra]
//     [--json FILE]
//   LD_PRELOAD=.build/release/libMallocInterposerSwift.so .build/release/engine-benchmark --count-allocations
import Foundation
import MallocInterposerSwift
import SonicCore

let arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else {
        return nil
    }
    return arguments[arguments.index(after: index)]
}
let seconds = Double(option("--seconds") ?? "60") ?? 60
let profilePath = option("--profile") ?? "profiles/classic.toml"
let countAllocations = arguments.contains("--count-allocations")
let sweeping = arguments.contains("--sweeps")
let playingSpectra = arguments.contains("--spectra")

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("engine-benchmark: \(message)\n".utf8))
    exit(1)
}

guard let text = try? String(contentsOfFile: profilePath, encoding: .utf8) else { fail("cannot read \(profilePath)") }
let profile: Profile
do { profile = try Profile(name: "bench", file: profilePath, text: text) } catch { fail("\(error)") }

let sampleRate = Double(AudioFormat.sampleRate)
let frames = SynthEngine.blockSize
let sound = SoundStack(profile: profile, sampleRate: Int(sampleRate), speechSeconds: 1)
let controls = sound.controls, speech = sound.speech, renderer = sound.renderer
// The sweeps' tables, built as a session on the doped lattice builds them.
let session = sweeping || playingSpectra ? sound.sound(playing: OverviewSamples.defects(.low).render()) : nil
/// What the sweeps do, one every two seconds, in turn.
let sweeps: [Sweep?] = [.image, .row(100), nil, .column(200), .row(383), .image]
/// Half a second of "voice" (a gliding tone), queued every five seconds of audio.
let utterance = (0..<Int(sampleRate / 2)).map { Float(0.5 * sin(Double($0) * (0.05 + Double($0) * 1e-7))) }
let blocks = Int(seconds * sampleRate) / frames
let output = UnsafeMutablePointer<Float>.allocate(capacity: frames * 2)
var blockNanoseconds = [UInt64](repeating: 0, count: blocks)

/// The control trajectory, precomputed so the timed loop does nothing but set targets and render:
/// a new target every 240 frames (200 Hz) — pitch wandering over four octaves, loudness with
/// lifts to silence, cutoff sweeping 200 Hz … 8 kHz.
var random = SeededRandom(seed: 2026)
let changes = Int(seconds * 200) + 1
var pitch = 440.0, cutoff = 2000.0
let trajectory: [(frequency: Double, amplitude: Double, cutoff: Double)] = (0..<changes).map { _ in
    pitch = min(1760, max(110, pitch * (1 + 0.06 * random.gaussian())))
    cutoff = min(8000, max(200, cutoff * (1 + 0.1 * random.gaussian())))
    let lifted = random.next() % 50 == 0
    return (pitch, lifted ? 0 : 0.2 + 0.3 * random.unitInterval(), cutoff)
}
let framesPerChange = Int(sampleRate / 200)
/// Spectra for the bank: a peak over a sloping continuum, the peak in another band each time.
let spectra: [[Float]] = (0..<16).map { k in
    (0..<SpectrumBank.bands).map { b in Float(0.02 / Double(1 + b)) + (b == (k * 7) % SpectrumBank.bands ? 0.3 : 0) }
}

func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Whether the counter sees allocations at all: an array must show up as one. (A function of its
/// own, so the probe is freed before counting starts.)
func allocationCounterIsLive() -> Bool {
    MallocInterposerSwift.hook()
    let probe = [Int](repeating: 1, count: 1000)
    MallocInterposerSwift.unhook()
    return MallocInterposerSwift.getStatistics().mallocCount > 0 && probe.count == 1000
}

if countAllocations {
    MallocInterposerSwift.initialize()
    guard allocationCounterIsLive() else {
        fail("the allocation counter is not loaded: run with LD_PRELOAD=<build>/libMallocInterposerSwift.so")
    }
    MallocInterposerSwift.reset()
    MallocInterposerSwift.hook()
}

var peak: Float = 0
let start = now()
for block in 0..<blocks {
    let frame = block * frames
    let change = trajectory[frame / framesPerChange]
    // Each change placed as live: stamped part way into the block, so the engine makes it at that frame.
    let blockTime = Double(frame) / sampleRate
    let changeTime = blockTime + 0.37 * Double(frames) / sampleRate
    // The guide, when sweeping: its rate, pitch and side following the pen's pitch.
    let guide =
        sweeping
        ? GuideTone(rate: change.frequency / 160, frequency: change.frequency * 2, pan: change.amplitude * 2 - 1)
        : .silent
    controls.set(
        SynthTargets(
            frequency: change.frequency, amplitude: change.amplitude, cutoff: change.cutoff, guide: guide,
            spectrum: playingSpectra && change.amplitude > 0 ? 1 : 0),
        at: changeTime)
    if playingSpectra && block % 8 == 0 { controls.setSpectrum(spectra[block / 8 % spectra.count], at: changeTime) }
    if sweeping && block % (2 * Int(sampleRate) / frames) == 0 {
        controls.sweep(sweeps[block / (2 * Int(sampleRate) / frames) % sweeps.count], at: changeTime)
    }
    // A cell boundary crossed every tenth of a second.
    if block % (Int(sampleRate) / 10 / frames) == 0 { controls.tick(at: changeTime) }
    // The speech thread's part (not in the block time): an utterance every five seconds.
    if block % (5 * Int(sampleRate) / frames) == 0 {
        speech.discardQueued()
        _ = utterance.withUnsafeBufferPointer { speech.write($0) }
    }
    let blockStart = now()
    renderer.render(into: output, frames: frames, channels: 2, at: blockTime)
    blockNanoseconds[block] = now() - blockStart
    peak = max(peak, abs(output[0]))
}
let total = Double(now() - start) / 1e9

if countAllocations {
    MallocInterposerSwift.unhook()
    let stats = MallocInterposerSwift.getStatistics()
    print(
        "allocations while rendering: \(stats.mallocCount) (\(stats.mallocBytesCount) bytes), frees: \(stats.freeCount)"
    )
    exit(stats.mallocCount == 0 && stats.freeCount == 0 ? 0 : 2)
}

var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let sorted = blockNanoseconds.sorted()
let blockDuration = Double(frames) / sampleRate
let median = Double(sorted[sorted.count / 2]) / 1e3
let p99 = Double(sorted[Int(Double(sorted.count) * 0.99)]) / 1e3
let figures: [String: Any] = [
    "profile": profilePath, "audioSeconds": Double(blocks * frames) / sampleRate,
    "realTimeFactor": (Double(blocks * frames) / sampleRate / total).rounded(),
    "blockMedianMicroseconds": (median * 100).rounded() / 100, "blockP99Microseconds": (p99 * 100).rounded() / 100,
    "blockP99PercentOfBudget": (p99 / 1e6 / blockDuration * 10000).rounded() / 100,
    "peakMemoryMiB": (Double(usage.ru_maxrss) / 1024 * 10).rounded() / 10
]
print(
    String(
        format:
            "%@: %.0f s of audio in %.2f s — %.0f× real time; 128-frame block: median %.2f µs, p99 %.2f µs (%.2f %% of its %.2f ms); peak memory %.1f MiB",
        profilePath, Double(blocks * frames) / sampleRate, total, figures["realTimeFactor"] as! Double, median, p99,
        figures["blockP99PercentOfBudget"] as! Double, blockDuration * 1000, figures["peakMemoryMiB"] as! Double))
if let json = option("--json") {
    let data = try JSONSerialization.data(withJSONObject: figures, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: json))
}
if !peak.isFinite { fail("the output went non-finite") }
