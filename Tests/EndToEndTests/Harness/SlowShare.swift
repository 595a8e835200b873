import Foundation

/// A folder served as a slow network share would serve it (scripts/fuse/slow-share): files put in
/// `source` are read at `files` through a real FUSE mount, each read waiting as long as the rate
/// set with `setRate` makes it (none at first).
final class SlowShare {
    let source: String
    let files: String
    private let rateFile: String
    private let server: Subprocess

    init(folder: String) throws {
        source = folder + "/share-source"
        files = folder + "/share"
        rateFile = folder + "/share-rate"
        for path in [source, files] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try "0\n".write(toFile: rateFile, atomically: true, encoding: .utf8)
        let script = Fixtures.repository + "/scripts/fuse/slow-share"
        let command = (Fixtures.penPython.map { [$0] } ?? []) + [script, source, files, rateFile]
        server = try Subprocess(command[0], Array(command.dropFirst()), folder: folder, label: "slow-share")
        try waitFor("the slow share to be mounted", timeout: 20) {
            server.stdout.hasPrefix("slow-share:") || !server.isRunning
        }
        guard server.isRunning else { throw HarnessError("the slow share did not start: \(server.stderr)") }
    }

    /// Serves every read from now on at `bytesPerSecond` (0: at once).
    func setRate(_ bytesPerSecond: Int) throws {
        try "\(bytesPerSecond)\n".write(toFile: rateFile, atomically: true, encoding: .utf8)
    }

    /// The reads answered so far: the file's name, the offset and the size of each.
    func reads() -> [(name: String, offset: Int, size: Int)] {
        server.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "read", let offset = Int(fields[2]), let size = Int(fields[3])
            else { return nil }
            return (String(fields[1]), offset, size)
        }
    }

    /// Asks the kernel to forget what it has kept of `name`'s contents, so that they are read from the
    /// share again, as they are once a machine's memory is needed for other work.
    func forget(_ name: String) throws {
        let descriptor = open(files + "/" + name, O_RDONLY)
        guard descriptor >= 0 else { throw HarnessError("cannot open \(name) on the slow share") }
        defer { close(descriptor) }
        guard posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0 else {
            throw HarnessError("the kernel would not forget \(name)")
        }
    }

    /// Unmounts the share (the server does as it stops).
    func stop() { server.stop() }
}
