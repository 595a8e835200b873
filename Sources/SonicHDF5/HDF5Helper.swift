import CHDF5
import Glibc
import SonicCore

/// The helper program that runs libhdf5 for the reader, one process per job (see `ChildProcess`):
/// listing a file, or reading one block of a dataset into memory shared with the caller.
public enum HDF5Helper {
    static let programName = "sonic-atomic-hdf5"

    enum Job: String {
        case survey, slab
    }

    /// The helper's descriptors, as `ChildProcess` sets them up.
    static let requestDescriptor: Int32 = 0, answerDescriptor: Int32 = 3, sharedDescriptor: Int32 = 4

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
    static func run(
        _ job: Job, file: String, request: [UInt8] = [], shared: ChildProcess.SharedMemory? = nil,
        limits: ChildProcess.Limits
    ) throws(ImageFileError) -> [UInt8] {
        guard let path else {
            throw ImageFileError("the HDF5 reader \(programName) is not installed beside the program")
        }
        let (answer, _) = try ChildProcess.run(
            path, arguments: [job.rawValue, file], request: request, shared: shared, limits: limits)
        var input = ByteReader(answer)
        guard let succeeded = try? input.bool() else {
            throw ImageFileError("the HDF5 library failed on this file")
        }
        guard succeeded else { throw ImageFileError(oneLine(try input.string())) }
        let count = try input.count()
        guard answer.count == 1 + 8 + count else { throw ImageFileError("the HDF5 library failed on this file") }
        return Array(answer.suffix(count))
    }

    /// The helper program's work: `sonic-atomic-hdf5 survey|slab FILE`, a block's location on
    /// standard input, the answer on descriptor 3. Returns the exit status.
    public static func main(arguments: [String]) -> Int32 {
        var answer = ByteWriter()
        do throws(ImageFileError) {
            guard arguments.count == 3, let job = Job(rawValue: arguments[1]) else {
                throw ImageFileError("usage: \(programName) survey|slab FILE")
            }
            let payload: [UInt8]
            switch job {
            case .survey:
                payload = try FileSurvey.survey(path: arguments[2]).encoded()
            case .slab:
                let slab = try Hyperslab(decoding: readAll(from: requestDescriptor))
                try slab.readInHelper(file: arguments[2], sharedDescriptor: sharedDescriptor)
                payload = []
            }
            answer.bool(true)
            answer.int(payload.count)
            answer.append(payload)
        } catch {
            answer.bool(false)
            answer.string(error.message)
        }
        return ChildProcess.writeAll(answer.bytes, to: answerDescriptor) ? 0 : 1
    }

    private static func readAll(from fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// The helper's messages quote names from the file, which may hold any character.
    private static func oneLine(_ message: String) -> String {
        String(
            message.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }.prefix(400))
    }
}
