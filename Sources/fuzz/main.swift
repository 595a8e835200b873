// Feeds damaged inputs to the program's readers of outside data, in this process: each must give
// its result or a clean error — never a crash, a hang or a run-away allocation or output. Each input
// is written first to OUTPUT/input, so after a crash or a hang that file is the culprit (a hang is
// ended by SIGALRM after --timeout seconds).
//
//   fuzz images --count N [--seed S] [--timeout SECONDS] [--output DIR] SEED-FILE...
//       image files of every format (recognised by content): list the datasets, read every image
//   fuzz logs --count N --image IMAGE [--profile PROFILE.toml] [--seed S] ... SEED-LOG...
//       session logs: decode and check every line, and replay those that pass (without a voice)
//   fuzz surveys --count N [--seed S] ... SEED-HDF5-FILE...
//       what the HDF5 helper answers about each seed (asked once per seed), damaged as a message and
//       as the facts a hostile file would make it report: decode it and list the file's entries
//   fuzz streams --count N [--seed S] ... SEED-VELOX-FILE...
//       each seed's Velox EDS streams (read once) and their scan size and channels, damaged: decode
//       spectra at some pixels and sweep every one
//   fuzz indexes --count N [--seed S] ... SEED-HDF5-FILE...
//       the chunk index of each seed's first chunked dataset the program walks itself, walked over
//       the file's bytes damaged where the walk reads them, or with the dataset's extent damaged
//   fuzz braille --count N [--seed S] ... SEED-FILE...
//       key codes and display sizes as BrlAPI hands them over: answer each key, lay out the braille line
//   fuzz lessons --count N [--seed S] ... SEED-FILE...
//       the lesson's progress file: read it, and write back what it accepts as it was read
//
// Prints how many inputs were accepted and refused (with the commonest reasons) and the slowest input.
import Foundation
import Glibc
import SonicCore
import SonicImageFiles

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let at = arguments.firstIndex(of: name), at + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(at...(at + 1)) }
    return arguments[at + 1]
}
guard let target = arguments.first,
    ["images", "logs", "surveys", "streams", "indexes", "braille", "lessons"].contains(target)
else {
    fail("say what to fuzz: images, logs, surveys, streams, indexes, braille or lessons")
}
arguments.removeFirst()
guard let count = option("--count").flatMap(Int.init), count > 0 else { fail("--count N is needed") }
let seed = option("--seed").flatMap(UInt64.init) ?? 1
let timeout = option("--timeout").flatMap(UInt32.init) ?? 20
let output = option("--output") ?? "/dev/shm/sonic-fuzz-\(getpid())"
let imagePath = option("--image")
let profilePath = option("--profile")
guard !arguments.isEmpty else { fail("no seed files given") }
do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
    fail("cannot make \(output): \(error)")
}

let trial: any FuzzTrial
switch target {
case "images":
    trial = ImageFileTrial()
case "surveys":
    trial = SurveyTrial()
case "streams":
    trial = StreamTrial()
case "indexes":
    trial = ChunkIndexTrial()
case "braille":
    trial = BrailleTrial()
case "lessons":
    trial = LessonTrial()
default:
    guard let imagePath else { fail("fuzzing logs needs --image, the image the seed logs played") }
    do { trial = try SessionLogTrial(imagePath: imagePath, profilePath: profilePath) } catch { fail("\(error)") }
}
let seeds: [(name: String, path: String, input: [UInt8])] = arguments.map { path in
    do { return (URL(fileURLWithPath: path).lastPathComponent, path, try trial.seedInput(path)) } catch {
        fail("cannot read seed \(path): \(error)")
    }
}
// A reader that asks for absurd memory meets a refusal, not the machine's swap.
var memory = rlimit(rlim_cur: 6 << 30, rlim_max: 6 << 30)
setrlimit(Int32(RLIMIT_AS.rawValue), &memory)
signal(SIGALRM, SIG_DFL)

let inputPath = output + "/input"
var mutator = Mutator(seed: seed)
var accepted = 0
var reasons: [String: Int] = [:]
var slowest = (seconds: 0.0, seed: "")
for index in 0..<count {
    let source = seeds[index % seeds.count]
    let bytes = trial.damaged(source.input, by: &mutator)
    guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else {
        fail("cannot write \(inputPath)")
    }
    let started = Date()
    alarm(timeout)
    do {
        try trial.run(inputPath, seed: source.path)
        accepted += 1
    } catch let error as FuzzFinding {
        fail("input \(index) (from \(source.name)): \(error.message); kept in \(inputPath)")
    } catch {
        // Grouped by what went wrong, not where: the place ("input:12: ", "at byte 5372") is dropped.
        var reason = String(describing: error)
        if reason.hasPrefix("input:"), let colon = reason.firstRange(of: ": ") {
            reason = String(reason[colon.upperBound...])
        }
        reason = String(reason.replacing(/\b\d+\b/, with: "N").prefix(70))
        reasons[reason, default: 0] += 1
    }
    alarm(0)
    let seconds = Date().timeIntervalSince(started)
    if seconds > slowest.seconds { slowest = (seconds, source.name) }
    if (index + 1) % 10_000 == 0 { print("fuzz: \(index + 1) inputs") }
}
try? FileManager.default.removeItem(atPath: output)
print(
    "fuzz \(target): \(count) inputs from \(seeds.count) seeds: \(accepted) accepted, \(reasons.values.reduce(0, +)) refused; "
        + "slowest \(String(format: "%.3f", slowest.seconds)) s (from \(slowest.seed))")
for (reason, n) in reasons.sorted(by: { $0.value > $1.value }).prefix(8) { print("  \(n) × \(reason)") }
