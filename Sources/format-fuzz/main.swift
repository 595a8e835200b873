// Feeds mutated image files to every format reader, in this process, and reads every image they
// list: each input must give its contents or a clean error — never a crash, a hang or a run-away
// allocation. Each input is written first to OUTPUT/input, so after a crash or a hang that file is
// the culprit; a hang is ended by SIGALRM after --timeout seconds.
//
//   format-fuzz --count N [--seed S] [--timeout SECONDS] [--output DIR] SEED-FILE...
//
// Seeds are real files of every format (their formats are recognised by content). Prints how many
// inputs were read, refused (with the commonest reasons) and the slowest input's time.
import Foundation
import Glibc
import SonicCore
import SonicImageFiles

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("format-fuzz: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let at = arguments.firstIndex(of: name), at + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(at...(at + 1)) }
    return arguments[at + 1]
}
guard let count = option("--count").flatMap(Int.init), count > 0 else { fail("--count N is needed") }
let seed = option("--seed").flatMap(UInt64.init) ?? 1
let timeout = option("--timeout").flatMap(UInt32.init) ?? 20
let output = option("--output") ?? "/dev/shm/format-fuzz-\(getpid())"
guard !arguments.isEmpty else { fail("no seed files given") }
let seeds: [(name: String, bytes: [UInt8])] = arguments.map { path in
    do { return (URL(fileURLWithPath: path).lastPathComponent, try ImageFiles.readBytes(path)) } catch {
        fail("cannot read seed \(path): \(error)")
    }
}
do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
    fail("cannot make \(output): \(error)")
}
// A reader that asks for absurd memory meets a refusal, not the machine's swap.
var memory = rlimit(rlim_cur: 6 << 30, rlim_max: 6 << 30)
setrlimit(Int32(RLIMIT_AS.rawValue), &memory)

var random = SeededRandom(seed: seed)
@MainActor func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(random.next() % UInt64(n)) }

/// Values that break length, count and offset fields: zero, one, sign edges, all ones, huge.
let interesting: [UInt64] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000,
                             0xFFFF_FFFF, 0x1_0000_0000, 0x7FFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 8192, 8193, 65536]

@MainActor func mutate(_ input: [UInt8]) -> [UInt8] {
    var bytes = input
    for _ in 0..<(1 + below(6)) {
        guard !bytes.isEmpty else { break }
        switch below(8) {
        case 0, 1:
            bytes[below(bytes.count)] ^= UInt8(1 << below(8))
        case 2:
            bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
        case 3:
            // An interesting integer over 1, 2, 4 or 8 bytes, either byte order: where lengths and offsets live.
            let width = 1 << below(4), value = interesting[below(interesting.count)]
            let at = below(max(1, bytes.count - width + 1)), bigEndian = below(2) == 0
            for k in 0..<min(width, bytes.count - at) {
                let shift = UInt64(8 * (bigEndian ? width - 1 - k : k))
                bytes[at + k] = UInt8(truncatingIfNeeded: value >> shift)
            }
        case 4:
            bytes.removeLast(below(bytes.count))
        case 5:
            let at = below(bytes.count), length = min(bytes.count - at, 1 + below(64))
            bytes.removeSubrange(at..<(at + length))
        case 6:
            let at = below(bytes.count + 1)
            bytes.insert(contentsOf: (0..<(1 + below(16))).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
        default:
            // A piece of the file copied over another place of it: plausible structure in the wrong spot.
            let from = below(bytes.count), to = below(bytes.count), length = min(1 + below(256), bytes.count - max(from, to))
            if length > 0 { bytes.replaceSubrange(to..<(to + length), with: bytes[from..<(from + length)]) }
        }
    }
    return bytes
}

let inputPath = output + "/input"
var opened = 0, imagesRead = 0
var reasons: [String: Int] = [:]
var slowest = (seconds: 0.0, seed: "")
signal(SIGALRM, SIG_DFL)
for index in 0..<count {
    let source = seeds[index % seeds.count]
    let bytes = mutate(source.bytes)
    guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else { fail("cannot write \(inputPath)") }
    let started = Date()
    alarm(timeout)
    do {
        let contents = try ImageFiles.contents(of: inputPath)
        opened += 1
        for entry in contents.entries where entry.isImage {
            do {
                let image = try entry.read()
                guard image.width == entry.width, image.height == entry.height else {
                    fail("input \(index) (from \(source.name)): an entry of \(entry.width) × \(entry.height) read as \(image.width) × \(image.height); kept in \(inputPath)")
                }
                imagesRead += 1
            } catch {
                reasons[String(describing: error).prefix(60).description, default: 0] += 1
            }
        }
    } catch {
        reasons[String(describing: error).prefix(60).description, default: 0] += 1
    }
    alarm(0)
    let seconds = Date().timeIntervalSince(started)
    if seconds > slowest.seconds { slowest = (seconds, source.name) }
    if (index + 1) % 10_000 == 0 { print("format-fuzz: \(index + 1) inputs") }
}
try? FileManager.default.removeItem(atPath: output)
print("format-fuzz: \(count) inputs from \(seeds.count) seeds: \(opened) opened, \(imagesRead) images read, "
      + "\(reasons.values.reduce(0, +)) refused; slowest \(String(format: "%.3f", slowest.seconds)) s (from \(slowest.seed))")
for (reason, n) in reasons.sorted(by: { $0.value > $1.value }).prefix(8) { print("  \(n) × \(reason)") }
