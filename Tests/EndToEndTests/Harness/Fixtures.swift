import Foundation

/// Paths the end-to-end tests need.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The program under test, built next to this test bundle (override: SONIC_ATOMIC_BIN).
    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["SONIC_ATOMIC_BIN"] { return explicit }
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return tests.deletingLastPathComponent().appendingPathComponent("sonic-atomic").path
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The pen-tablet tool beside the repository (override: SONIC_PEN_TABLET).
    static var penTablet: String? {
        let path = ProcessInfo.processInfo.environment["SONIC_PEN_TABLET"]
            ?? URL(fileURLWithPath: repository).deletingLastPathComponent().appendingPathComponent("shared/pen-tablet").path
        return FileManager.default.fileExists(atPath: path + "/start-pen-x") ? path : nil
    }

    /// A fresh scratch folder for one test.
    static func scratch(_ name: String) throws -> String {
        let folder = "/tmp/sonic-e2e-\(name)-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}
