import CHDF5
import Glibc
import SonicCore
import Synchronization

/// An HDF5 file open for reading: the helper processes that read it (see `LastingHelper`), each
/// started when first needed and kept while the file is, so that libhdf5 opens the file once and
/// keeps its chunks cached; they are killed when the file is let go of (or the program ends).
///
/// Two helpers, one a core: libhdf5 makes one call at a time in a process (built thread-safe, it
/// serialises them behind one lock), so two processes decompress two blocks at once.
final class HDF5File: Sendable {
    let path: String
    let limits: ChildProcess.Limits
    static let helperCount = 2
    private let helpers: [HelperSlot]

    /// One helper, started when first needed; a request holds it until answered.
    private final class HelperSlot: Sendable {
        let helper = Mutex<LastingHelper?>(nil)
        /// Its process id (0: none), told apart from the lock a request holds.
        let process = Atomic<Int32>(0)
    }

    init(path: String, limits: ChildProcess.Limits) {
        self.path = path
        self.limits = limits
        helpers = (0..<Self.helperCount).map { _ in HelperSlot() }
    }

    /// How many helper processes were started for this file.
    let helpersStarted = Atomic(0)

    /// The process ids of this file's helpers running now.
    var helperProcesses: [pid_t] { helpers.map { $0.process.load(ordering: .relaxed) }.filter { $0 > 0 } }

    /// Reads `slab` into `shared` in helper `index` (of `helperCount`), waiting while it serves
    /// another request. A helper that dies is replaced and asked once more; one that dies again,
    /// takes longer than the limits allow or answers too much ends the read with one line.
    func read(_ slab: Hyperslab, into shared: ChildProcess.SharedMemory, helper index: Int = 0)
        throws(ImageFileError)
    {
        let request = slab.encoded()
        let (path, limits) = (self.path, self.limits)
        let slot = helpers[index % helpers.count]
        try slot.helper.withLock { (helper: inout LastingHelper?) throws(ImageFileError) in
            defer { slot.process.store(helper?.process ?? 0, ordering: .relaxed) }
            for attempt in 0..<2 {
                if helper == nil {
                    helper = try LastingHelper(file: path, limits: limits)
                    slot.process.store(helper!.process, ordering: .relaxed)
                    self.helpersStarted.add(1, ordering: .relaxed)
                }
                let outcome = helper!.ask(request, shared: shared.descriptor, seconds: limits.seconds)
                switch outcome {
                case .answered(let answer):
                    _ = try HDF5Helper.payload(of: answer)
                    return
                case .timedOut:
                    helper = nil
                    throw ImageFileError(
                        "the HDF5 library took more than \(Int(limits.seconds)) s on this file and was stopped")
                case .tooLong:
                    helper = nil
                    throw ImageFileError("the HDF5 reader's helper gave a garbled answer")
                case .died(let status):
                    helper = nil
                    let why = ChildProcess.ending(status, program: HDF5Helper.programName)
                    guard attempt == 0 else { throw ImageFileError(why) }
                    _ = ChildProcess.writeAll(
                        Array("sonic-atomic: \(why); the HDF5 reader starts another helper\n".utf8), to: STDERR_FILENO)
                }
            }
        }
    }

    /// Reads `slab` into memory of its own, through helper 0.
    func read(_ slab: Hyperslab) throws(ImageFileError) -> ChildProcess.SharedMemory {
        guard let bytes = slab.bytes else { throw slab.tooLarge }
        let shared = try ChildProcess.SharedMemory(count: bytes)
        try read(slab, into: shared)
        return shared
    }
}

/// A helper process that keeps one file open and reads block after block of it: each request goes
/// over a socket with the shared memory to read into, each answer comes back on it. It is started
/// afresh (see `ChildProcess`), capped in memory, ends with the program, and is killed when let go of.
final class LastingHelper {
    let process: pid_t
    private let socket: Int32

    enum Outcome {
        case answered([UInt8])
        case timedOut
        case tooLong
        /// Ended, with its wait status.
        case died(Int32)
    }

    init(file: String, limits: ChildProcess.Limits) throws(ImageFileError) {
        guard let program = HDF5Helper.path else { throw HDF5Helper.notInstalled }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw ChildProcess.systemError("cannot open /dev/null") }
        defer { close(null) }
        var ends: [Int32] = [-1, -1]
        guard sonic_socket_pair(&ends) == 0 else { throw ChildProcess.systemError("cannot make a socket") }
        let words: [String] = [program, HDF5Helper.Job.serve.rawValue, file]
        let argv = words.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // Its time is bounded request by request (the caller kills it), not over its life.
        let child = argv.withUnsafeBufferPointer { argv in
            sonic_spawn_isolated(
                program, argv.baseAddress, ends[1], ends[1], -1, null, UInt(1 << 40), UInt(limits.memoryBytes), 1)
        }
        close(ends[1])
        guard child > 0 else {
            close(ends[0])
            throw ChildProcess.systemError("cannot start a process to read the HDF5 file")
        }
        process = child
        socket = ends[0]
    }

    deinit {
        close(socket)
        kill(process, SIGKILL)
        ChildProcess.reap(process, kill: false)
    }

    /// Sends `request` with `shared` and waits at most `seconds` for the answer.
    func ask(_ request: [UInt8], shared: Int32, seconds: Double) -> Outcome {
        var length = Int64(request.count).littleEndian
        let sent = withUnsafeBytes(of: &length) { sonic_send_with_descriptor(socket, $0.baseAddress, 8, shared) }
        guard sent == 8, ChildProcess.writeAll(request, with: { sonic_send(socket, $0, $1) }) else {
            return .died(stop())
        }
        let deadline = ChildProcess.now() + seconds
        var header = [UInt8](repeating: 0, count: 8)
        switch receive(into: &header, until: deadline) {
        case .timedOut: return .timedOut
        case .ended: return .died(stop())
        case .received: break
        }
        let count = header.withUnsafeBytes { Int(Int64(littleEndian: $0.loadUnaligned(as: Int64.self))) }
        guard (0...ChildProcess.maxAnswerBytes).contains(count) else { return .tooLong }
        var answer = [UInt8](repeating: 0, count: count)
        switch receive(into: &answer, until: deadline) {
        case .timedOut: return .timedOut
        case .ended: return .died(stop())
        case .received: return .answered(answer)
        }
    }

    /// Kills the helper, if it still runs, and returns how it ended.
    private func stop() -> Int32 {
        kill(process, SIGKILL)
        return ChildProcess.reap(process, kill: false) ?? 0
    }

    private enum Receipt { case received, ended, timedOut }

    private func receive(into bytes: inout [UInt8], until deadline: Double) -> Receipt {
        var at = 0
        while at < bytes.count {
            let remaining = deadline - ChildProcess.now()
            guard remaining > 0 else { return .timedOut }
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return .ended }
            guard ready > 0 else { continue }
            let n = bytes.withUnsafeMutableBytes { read(socket, $0.baseAddress! + at, $0.count - at) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return .ended }
            at += n
        }
        return .received
    }
}
