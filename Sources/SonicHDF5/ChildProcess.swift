import CHDF5
import Glibc
import SonicCore

/// Runs libhdf5 in a forked child process, because malformed files make it crash, abort, loop or
/// allocate without bound: then the child dies or is killed, and the reader throws one line.
///
/// A fork (not a spawned helper) keeps the reader self-contained, and each child starts from the
/// program's untouched state, so libhdf5's globals and any handles it leaks die with the child.
enum ChildProcess {
    struct Limits: Sendable {
        /// How long the child may take before it is killed.
        var seconds: Double
        /// How much memory the child may map beyond what the program already has.
        var memoryBytes: Int
    }

    /// Memory that the child writes and the program reads (a plane of samples), shared across the fork.
    final class SharedMemory {
        let bytes: UnsafeMutableRawBufferPointer

        init(count: Int) throws(ImageFileError) {
            let address = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
            guard let address, address != MAP_FAILED else {
                throw ImageFileError("cannot map \(count) bytes of memory for the samples")
            }
            bytes = UnsafeMutableRawBufferPointer(start: address, count: count)
        }

        deinit { munmap(bytes.baseAddress, bytes.count) }
    }

    /// The child's answer can hold metadata but never samples, which go through shared memory.
    static let maxAnswerBytes = 64 << 20

    /// Runs `work` in a child and returns the bytes it answered, or throws the error it threw, or
    /// why it did not answer.
    static func run(limits: Limits, work: () throws(ImageFileError) -> [UInt8]) throws(ImageFileError) -> [UInt8] {
        var ends: [Int32] = [-1, -1]
        guard sonic_pipe_closed_on_exec(&ends) == 0 else { throw systemError("cannot make a pipe") }
        let parent = getpid()
        let child = fork()
        if child == 0 {
            close(ends[0])
            becomeIsolated(keeping: ends[1], extraMemory: limits.memoryBytes, seconds: limits.seconds, parent: parent)
            var answer = ByteWriter()
            do throws(ImageFileError) {
                let bytes = try work()
                answer.bool(true)
                answer.int(bytes.count)
                answer.append(bytes)
            } catch {
                answer.bool(false)
                answer.string(error.message)
            }
            _exit(writeAll(answer.bytes, to: ends[1]) ? 0 : 1)
        }
        close(ends[1])
        defer { close(ends[0]) }
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
        if let status = reap(child, kill: false), status & 0x7F != 0 {
            throw ImageFileError("the HDF5 library crashed on this file (\(signalName(status & 0x7F)))")
        }
        var input = ByteReader(answer)
        guard let succeeded = try? input.bool() else {
            throw ImageFileError("the HDF5 library failed on this file")
        }
        guard succeeded else { throw ImageFileError(oneLine(try input.string())) }
        let count = try input.count()
        let payload = Array(answer.suffix(count))
        guard answer.count == 1 + 8 + count else { throw ImageFileError("the HDF5 library failed on this file") }
        return payload
    }

    /// In the child: no output of its own, no descriptors but the answer's, no core dumps, no crash
    /// reporting (a crash ends it at once), and a cap on memory.
    private static func becomeIsolated(keeping answer: Int32, extraMemory: Int, seconds: Double, parent: pid_t) {
        // Killed with the program; and if the program is already gone, at once. A loop in the library
        // also ends by itself once it has used its time in CPU, should no one be left to stop it.
        _ = sonic_die_with_parent()
        if getppid() != parent { _exit(1) }
        var cpu = rlimit(rlim_cur: rlim_t(seconds.rounded(.up)) + 1, rlim_max: rlim_t(seconds.rounded(.up)) + 2)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        for crash in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGPIPE, SIGXCPU] {
            signal(crash, SIG_DFL)
        }
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            for standard: Int32 in 0...2 { dup2(null, standard) }
        }
        // Other threads' pipes must not stay open here, or their readers would wait for this child.
        if answer > 3 { _ = sonic_close_descriptors(3, UInt32(answer - 1)) }
        _ = sonic_close_descriptors(UInt32(answer + 1), UInt32.max)
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        _ = sonic_cap_address_space(UInt(extraMemory))
    }

    private enum Outcome {
        case answered([UInt8])
        case timedOut
        case tooLong
    }

    /// Everything the child wrote until it closed the pipe, unless time or room ran out first.
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

    /// Waits for the child (killing it first if asked) and returns its wait status, or nil when
    /// the program reaps children itself.
    @discardableResult
    private static func reap(_ child: pid_t, kill killFirst: Bool) -> Int32? {
        if killFirst { kill(child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        return status
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }

    /// The child's own messages quote names from the file, which may hold any character.
    private static func oneLine(_ message: String) -> String {
        String(
            message.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }.prefix(400))
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func signalName(_ number: Int32) -> String {
        guard let name = strsignal(number) else { return "signal \(number)" }
        return String(cString: name).lowercased()
    }

    private static func systemError(_ context: String) -> ImageFileError {
        ImageFileError("\(context): \(String(cString: strerror(errno)).lowercased())")
    }
}
