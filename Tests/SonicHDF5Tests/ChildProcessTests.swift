import Foundation
import Glibc
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// The isolation libhdf5 runs in: whatever the child does, the program gets bytes or one error line.
@Suite struct ChildProcessTests {
    static let limits = ChildProcess.Limits(seconds: 5, memoryBytes: 1 << 30)

    @Test func answersAndErrorsComeBack() throws {
        let answer = try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in [1, 2, 3, 255]
        }
        #expect(answer == [1, 2, 3, 255])
        let large = try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
            (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        }
        #expect(large == (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        #expect {
            try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
                throw ImageFileError("the tag tree is truncated at byte 12")
            }
        } throws: { "\($0)" == "the tag tree is truncated at byte 12" }
    }

    @Test func theChildsMessagesStayOnOneLineAndItsAnswersBounded() {
        #expect {
            try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
                throw ImageFileError("cannot open a\nname\twith\u{0}controls")
            }
        } throws: { "\($0)" == "cannot open a name with controls" }
        #expect {
            try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
                [UInt8](repeating: 1, count: ChildProcess.maxAnswerBytes + 1)
            }
        } throws: { "\($0)" == "the HDF5 library gave more than 64 MiB of metadata for this file" }
    }

    @Test func aCrashInTheChildIsAnError() {
        for (signal, name) in [(SIGSEGV, "segmentation fault"), (SIGABRT, "aborted"), (SIGBUS, "bus error")] {
            #expect {
                try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
                    raise(signal)
                    return []
                }
            } throws: { "\($0)" == "the HDF5 library crashed on this file (\(name))" }
        }
    }

    @Test func aChildThatHangsIsKilledInTime() {
        let start = Date()
        #expect {
            try ChildProcess.run(limits: .init(seconds: 0.5, memoryBytes: 1 << 30)) {
                () throws(ImageFileError) -> [UInt8] in
                while true { sleep(10) }
            }
        } throws: { "\($0)".hasPrefix("the HDF5 library took more than") }
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func aChildCannotAllocateBeyondItsLimit() throws {
        let answer = try ChildProcess.run(limits: .init(seconds: 5, memoryBytes: 256 << 20)) {
            () throws(ImageFileError) -> [UInt8] in
            let block = allocateUnoptimised(1 << 30)
            defer { free(block) }
            return [block == nil ? 1 : 0]
        }
        #expect(answer == [1])
    }

    /// The optimiser removes a `malloc` whose block is never used, and takes it to have succeeded.
    @inline(never) @_optimize(none)
    private func allocateUnoptimised(_ bytes: Int) -> UnsafeMutableRawPointer? { malloc(bytes) }

    @Test func theChildWritesSharedMemoryThatTheProgramReads() throws {
        let shared = try ChildProcess.SharedMemory(count: 4096)
        _ = try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
            for i in 0..<4096 { shared.bytes[i] = UInt8(truncatingIfNeeded: i * 3) }
            return []
        }
        #expect(Array(shared.bytes) == (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 3) })
    }

    @Test func theChildPrintsNothing() throws {
        // The child's standard output and error go nowhere; a write there must still succeed quietly.
        let answer = try ChildProcess.run(limits: Self.limits) { () throws(ImageFileError) -> [UInt8] in
            let text = Array("noise\n".utf8)
            return [write(1, text, text.count) == text.count && write(2, text, text.count) == text.count ? 1 : 0]
        }
        #expect(answer == [1])
    }
}
