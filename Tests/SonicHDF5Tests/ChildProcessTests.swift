import Foundation
import Glibc
import SonicCore
import Testing

@testable import SonicHDF5

/// The isolation libhdf5 runs in, tried with the shell as the helper: whatever the helper does, the
/// caller gets its answer or one error line.
@Suite struct ChildProcessTests {
    static let limits = ChildProcess.Limits(seconds: 5, memoryBytes: 1 << 30)

    /// Runs `script` in /bin/sh as the helper.
    static func shell(
        _ script: String, request: [UInt8] = [], shared: ChildProcess.SharedMemory? = nil,
        limits: ChildProcess.Limits = limits
    ) throws(ImageFileError) -> (answer: [UInt8], status: Int32) {
        try ChildProcess.run("/bin/sh", arguments: ["-c", script], request: request, shared: shared, limits: limits)
    }

    @Test func theRequestGoesInAndTheAnswerComesBack() throws {
        let request = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let echoed = try Self.shell("cat >&3", request: request)
        #expect(echoed.answer == request)
        #expect(echoed.status == 0)
        #expect(try Self.shell("printf 'to stdout'; printf 'to stderr' >&2; exit 3").answer.isEmpty)
        #expect(try Self.shell("exit 3").status == 3)
    }

    @Test func answersAreBounded() {
        #expect {
            try Self.shell("head -c \(ChildProcess.maxAnswerBytes + 1) /dev/zero >&3")
        } throws: { "\($0)" == "the HDF5 library gave more than 64 MiB of metadata for this file" }
    }

    @Test func aCrashInTheHelperIsAnError() {
        for (signal, name) in [("SEGV", "segmentation fault"), ("ABRT", "aborted"), ("BUS", "bus error")] {
            #expect {
                try Self.shell("kill -s \(signal) $$")
            } throws: { "\($0)" == "the HDF5 library crashed on this file (\(name))" }
        }
    }

    @Test func aHelperThatHangsIsKilledInTime() {
        let start = Date()
        #expect {
            try Self.shell("exec sleep 100", limits: .init(seconds: 0.5, memoryBytes: 1 << 30))
        } throws: { "\($0)".hasPrefix("the HDF5 library took more than") }
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func theHelpersTimeMemoryAndCoreDumpsAreCapped() throws {
        let answer = try Self.shell(
            "{ ulimit -t; ulimit -v; ulimit -c; } >&3", limits: .init(seconds: 5, memoryBytes: 256 << 20))
        // CPU seconds (a second beyond the wall-clock limit), address space in KiB, core size.
        #expect(String(decoding: answer.answer, as: UTF8.self) == "6\n262144\n0\n")
    }

    @Test func theHelperHasNoDescriptorsButItsOwn() throws {
        let extra = open("/dev/null", O_RDONLY) // opened without close-on-exec
        defer { close(extra) }
        let answer = try Self.shell("ls /proc/self/fd >&3")
        let open = String(decoding: answer.answer, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        // 0 to 4, and the one ls holds on the folder it lists.
        #expect(open.count == 6 && open.filter { $0 > 4 }.count == 1, "\(open)")
    }

    @Test func theHelperWritesSharedMemoryThatTheCallerReads() throws {
        let shared = try ChildProcess.SharedMemory(count: 4096)
        _ = try Self.shell("printf 'samples' >&4", shared: shared)
        #expect(Array(shared.bytes.prefix(8)) == Array("samples".utf8) + [0])
    }

    @Test func aHelperThatIsNotThereIsAnError() {
        #expect {
            try ChildProcess.run("/nonexistent/helper", arguments: [], limits: Self.limits)
        } throws: { "\($0)" == "cannot start the HDF5 reader /nonexistent/helper" }
    }

    @Test func theHDF5HelperIsFoundBesideTheProgram() throws {
        let path = try #require(HDF5Helper.path, "sonic-atomic-hdf5 is built beside the tests")
        #expect(path.hasSuffix("/sonic-atomic-hdf5"))
    }

    @Test func theHelpersErrorsStayOnOneLine() throws {
        // A file whose name holds control characters: the helper's message quotes it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = folder.appendingPathComponent("a\nname\twith controls.emd").path
        #expect(FileManager.default.createFile(atPath: name, contents: Data(repeating: 7, count: 100)))
        #expect {
            try HDF5Helper.run(.survey, file: name, limits: Self.limits)
        } throws: { !"\($0)".contains("\n") && !"\($0)".contains("\t") }
    }
}
