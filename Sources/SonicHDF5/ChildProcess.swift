import CHDF5
import Glibc
import SonicCore

/// Runs a helper program isolated from the caller, because malformed files make libhdf5 crash,
/// abort, loop or allocate without bound: then the helper dies or is killed, and the caller throws
/// one line.
///
/// The helper is a program of its own, started afresh (not a fork that goes on running the
/// caller's code): a fork of a threaded program may find a lock held forever by a thread that
/// does not exist in it. Each helper starts clean, and libhdf5's globals and leaks die with it.
enum ChildProcess {
    struct Limits: Sendable {
        /// How long the helper may take before it is killed.
        var seconds: Double
        /// How much memory the helper may map in all.
        var memoryBytes: Int
    }

    /// Memory that the helper writes (a block of samples) and the caller reads: a memory file the
    /// helper finds on its descriptor 4, or that a lasting helper gets with a request.
    /// Written only by the helper before the caller reads it: shared across threads as it is.
    final class SharedMemory: @unchecked Sendable {
        let descriptor: Int32
        let bytes: UnsafeMutableRawBufferPointer

        init(count: Int) throws(ImageFileError) {
            descriptor = sonic_memory_file("samples")
            guard descriptor >= 0 else { throw systemError("cannot make a memory file for the samples") }
            guard ftruncate(descriptor, off_t(count)) == 0,
                let address = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
                address != MAP_FAILED
            else {
                let error = systemError("cannot map \(count) bytes of memory for the samples")
                close(descriptor)
                throw error
            }
            bytes = UnsafeMutableRawBufferPointer(start: address, count: count)
        }

        deinit {
            munmap(bytes.baseAddress, bytes.count)
            close(descriptor)
        }
    }

    /// The helper's answer can hold metadata but never samples, which go through shared memory.
    static let maxAnswerBytes = 64 << 20

    /// Runs `program` with `arguments`, `request` on its standard input and `shared` on its
    /// descriptor 4, and returns what it wrote on its descriptor 3 by the time it exited normally;
    /// throws when it could not start, crashed, took too long or answered too much.
    static func run(
        _ program: String, arguments: [String], request: [UInt8] = [], shared: SharedMemory? = nil, limits: Limits
    ) throws(ImageFileError) -> (answer: [UInt8], status: Int32) {
        let requestFile = sonic_memory_file("request")
        guard requestFile >= 0 else { throw systemError("cannot make a memory file for the request") }
        defer { close(requestFile) }
        guard writeAll(request, to: requestFile), lseek(requestFile, 0, SEEK_SET) == 0 else {
            throw systemError("cannot write the request")
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw systemError("cannot open /dev/null") }
        defer { close(null) }
        var ends: [Int32] = [-1, -1]
        guard sonic_pipe_closed_on_exec(&ends) == 0 else { throw systemError("cannot make a pipe") }
        defer { close(ends[0]) }
        // Everything the child needs is made here: between fork and exec it may not allocate.
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let child = argv.withUnsafeBufferPointer { argv in
            sonic_spawn_isolated(
                program, argv.baseAddress, requestFile, ends[1], shared?.descriptor ?? -1, null,
                UInt(limits.seconds.rounded(.up)) + 1, UInt(limits.memoryBytes), 0)
        }
        close(ends[1])
        guard child > 0 else { throw systemError("cannot start a process to read the HDF5 file") }
        let answer: [UInt8]
        switch readAnswer(from: ends[0], seconds: limits.seconds) {
        case .answered(let bytes):
            answer = bytes
        case .timedOut:
            reap(child, kill: true)
            throw ImageFileError(
                "the HDF5 library took more than \(Int(limits.seconds)) s on this file and was stopped")
        case .tooLong:
            reap(child, kill: true)
            throw ImageFileError(
                "the HDF5 library gave more than \(maxAnswerBytes >> 20) MiB of metadata for this file")
        }
        let status = reap(child, kill: false) ?? 0
        if status & 0x7F != 0 || ((status >> 8) & 0xFF == 127 && answer.isEmpty) {
            throw ImageFileError(ending(status, program: program))
        }
        let exitStatus = (status >> 8) & 0xFF
        return (answer, exitStatus)
    }

    private enum Outcome {
        case answered([UInt8])
        case timedOut
        case tooLong
    }

    /// Everything the helper wrote until it closed the pipe, unless time or room ran out first.
    private static func readAnswer(from pipe: Int32, seconds: Double) -> Outcome {
        let deadline = now() + seconds
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let remaining = deadline - now()
            guard remaining > 0 else { return .timedOut }
            var waiting = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return .answered(answer) }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(pipe, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return .answered(answer) }
            answer.append(contentsOf: chunk[0..<n])
            guard answer.count <= maxAnswerBytes else { return .tooLong }
        }
    }

    /// Why a helper that ended with wait status `status` gave no answer, in one line.
    static func ending(_ status: Int32, program: String) -> String {
        if status & 0x7F != 0 { return "the HDF5 library crashed on this file (\(signalName(status & 0x7F)))" }
        let exitStatus = (status >> 8) & 0xFF
        if exitStatus == 127 { return "cannot start the HDF5 reader \(program)" }
        return "the HDF5 reader's helper ended (exit status \(exitStatus))"
    }

    /// Waits for the helper (killing it first if asked) and returns its wait status, or nil when
    /// the program reaps children itself.
    @discardableResult
    static func reap(_ child: pid_t, kill killFirst: Bool) -> Int32? {
        if killFirst { kill(child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        return status
    }

    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        writeAll(bytes) { write(fd, $0, $1) }
    }

    /// Hands every byte to `write`, which takes those from a place on (as many as it says, or -1
    /// with `errno` set), until all are taken or it fails otherwise than by an interruption.
    static func writeAll(_ bytes: [UInt8], with write: (UnsafeRawPointer, Int) -> Int) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write($0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func signalName(_ number: Int32) -> String {
        guard let name = strsignal(number) else { return "signal \(number)" }
        return String(cString: name).lowercased()
    }

    static func systemError(_ context: String) -> ImageFileError {
        ImageFileError("\(context): \(String(cString: strerror(errno)).lowercased())")
    }
}
