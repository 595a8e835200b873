import CHDF5
import Glibc
import SonicCore

/// The helper program that runs libhdf5 for the reader (see `ChildProcess`): listing a file, one
/// process for the job; or serving a file (see `LastingHelper`), reading block after block of its
/// datasets into memory shared with the caller, until the caller closes the socket.
public enum HDF5Helper {
    static let programName = "sonic-atomic-hdf5"

    enum Job: String {
        case survey, serve
    }

    /// The helper's descriptors, as `ChildProcess` sets them up: a served file's socket is both.
    static let requestDescriptor: Int32 = 0, answerDescriptor: Int32 = 3

    static let notInstalled = ImageFileError("the HDF5 reader \(programName) is not installed beside the program")

    /// The helper installed with the running program: beside it (as built), or in
    /// `libexec/sonic-atomic` beside its `bin` (as installed).
    static let path: String? = {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &target, target.count - 1)
        guard length > 0 else { return nil }
        let program = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = String(program[..<(program.lastIndex(of: "/") ?? program.startIndex)])
        return [folder + "/" + programName, folder + "/../libexec/sonic-atomic/" + programName].first {
            access($0, X_OK) == 0
        }
    }()

    /// Runs `job` on `file` in a helper and returns what it answered, or throws the error it gave
    /// or why it gave none.
    static func run(_ job: Job, file: String, limits: ChildProcess.Limits) throws(ImageFileError) -> [UInt8] {
        guard let path else { throw notInstalled }
        let (answer, _) = try ChildProcess.run(path, arguments: [job.rawValue, file], limits: limits)
        return try payload(of: answer)
    }

    /// What an answer carries, or the error it gives.
    static func payload(of answer: [UInt8]) throws(ImageFileError) -> [UInt8] {
        var input = ByteReader(answer)
        guard let succeeded = try? input.bool() else {
            throw ImageFileError("the HDF5 library failed on this file")
        }
        guard succeeded else { throw ImageFileError(oneLine(try input.string())) }
        let count = try input.count()
        guard answer.count == 1 + 8 + count else { throw ImageFileError("the HDF5 library failed on this file") }
        return Array(answer.suffix(count))
    }

    /// The helper program's work: `sonic-atomic-hdf5 survey|serve FILE`, the answer (or answers) on
    /// descriptor 3. Returns the exit status.
    public static func main(arguments: [String]) -> Int32 {
        guard arguments.count == 3, let job = Job(rawValue: arguments[1]) else {
            _ = answer { () throws(ImageFileError) in throw ImageFileError("usage: \(programName) survey|serve FILE") }
            return 2
        }
        switch job {
        case .survey:
            return answer { () throws(ImageFileError) in try FileSurvey.survey(path: arguments[2]).encoded() } ? 0 : 1
        case .serve:
            return serve(file: arguments[2])
        }
    }

    /// Writes what `work` gives, or its error, as an answer; false when it cannot be written.
    private static func answer(framed: Bool = false, _ work: () throws(ImageFileError) -> [UInt8]) -> Bool {
        var answer = ByteWriter()
        do throws(ImageFileError) {
            let payload = try work()
            answer.bool(true)
            answer.int(payload.count)
            answer.append(payload)
        } catch {
            answer.bool(false)
            answer.string(error.message)
        }
        var length = ByteWriter()
        if framed { length.int(answer.bytes.count) }
        return ChildProcess.writeAll(length.bytes + answer.bytes, to: answerDescriptor)
    }

    /// Answers request after request — a block to read, with the memory to read it into — until
    /// the caller closes the socket.
    private static func serve(file: String) -> Int32 {
        guard sonic_watch_parent() == 0 else { return 1 }
        let reader = SlabReader(file: file)
        while true {
            var header = [UInt8](repeating: 0, count: 8)
            var shared: Int32 = -1
            let first = header.withUnsafeMutableBytes {
                sonic_receive_with_descriptor(requestDescriptor, $0.baseAddress, 8, &shared)
            }
            guard first > 0 else { return 0 }
            defer { if shared >= 0 { close(shared) } }
            var input = ByteReader(header)
            guard readAll(from: requestDescriptor, into: &header, from: first), let count = try? input.int(),
                (0...(1 << 20)).contains(count)
            else { return 1 }
            var request = [UInt8](repeating: 0, count: count)
            guard readAll(from: requestDescriptor, into: &request, from: 0) else { return 1 }
            let written = answer(framed: true) { () throws(ImageFileError) in
                try reader.read(try Hyperslab(decoding: request), sharedDescriptor: shared)
                return []
            }
            guard written else { return 1 }
        }
    }

    private static func readAll(from fd: Int32, into bytes: inout [UInt8], from start: Int) -> Bool {
        var at = start
        while at < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + at, $0.count - at) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            at += n
        }
        return true
    }

    /// The helper's messages quote names from the file, which may hold any character.
    private static func oneLine(_ message: String) -> String {
        String(
            message.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }.prefix(400))
    }
}
