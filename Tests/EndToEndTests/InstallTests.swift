import Foundation
import Testing

extension EndToEnd {
    /// A real install, into a fresh prefix: the installed program runs from any folder and finds its
    /// data, its manual page and completions are in place, and uninstalling removes exactly what was put.
    @Suite struct InstallTests {
        @Test func theInstalledProgramFindsItsDataFromAnyFolderAndUninstallsCleanly() throws {
            let prefix = try Fixtures.scratch("install") + "/prefix"
            defer {
                try? FileManager.default.removeItem(
                    atPath: URL(fileURLWithPath: prefix).deletingLastPathComponent().path)
            }
            let install = try Subprocess.run(
                Fixtures.repository + "/scripts/install", ["--prefix", prefix],
                environment: ["SONIC_INSTALL_BINARY": Fixtures.binary], timeout: 120)
            try #require(install.status == 0, "\(install.output)")
            let installed = prefix + "/bin/sonic-atomic"
            // From the root folder, with nothing pointing at the source tree.
            func runInstalled(_ arguments: String) throws -> (status: Int32, output: String) {
                try Subprocess.run(
                    "/bin/sh", ["-c", "cd / && '\(installed)' \(arguments)"], environment: ["SONIC_ATOMIC_DATA": ""])
            }
            let profiles = try runInstalled("profiles")
            #expect(profiles.status == 0 && profiles.output.contains("default     shipped"), "\(profiles.output)")
            let inspect = try runInstalled("inspect --json '\(prefix)/share/sonic-atomic/images/atomic-lattice.dm4'")
            #expect(inspect.status == 0 && inspect.output.contains("\"format\":\"dm4\""), "\(inspect.output)")
            // EMD files are read by the installed HDF5 helper: listed, and a plane read for its levels.
            let emd = try runInstalled(
                "inspect --json '\(Fixtures.repository)/Tests/Fixtures/emd/velox_two_detectors.emd'")
            #expect(emd.status == 0 && emd.output.contains("\"format\":\"emd\""), "\(emd.output)")
            #expect(emd.output.contains("\"max\":"), "\(emd.output)")
            for file in [
                "share/man/man1/sonic-atomic.1", "share/bash-completion/completions/sonic-atomic",
                "share/zsh/site-functions/_sonic-atomic", "share/fish/vendor_completions.d/sonic-atomic.fish",
                "share/applications/sonic-atomic.desktop", "share/sonic-atomic/profiles/default.toml"
            ] {
                #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) is missing")
            }
            let completion = try String(
                contentsOfFile: prefix + "/share/bash-completion/completions/sonic-atomic", encoding: .utf8)
            #expect(completion.contains("--pixel-size") && completion.contains("render"))
            // Something of the user's own beside it stays.
            try "mine".write(toFile: prefix + "/share/sonic-atomic/notes.txt", atomically: true, encoding: .utf8)
            let uninstall = try Subprocess.run(Fixtures.repository + "/scripts/uninstall", ["--prefix", prefix])
            #expect(uninstall.status == 0, "\(uninstall.output)")
            let left =
                FileManager.default.enumerator(atPath: prefix)?.compactMap { $0 as? String }
                .filter {
                    !$0.isEmpty
                        && (try? FileManager.default.attributesOfItem(atPath: prefix + "/" + $0)[.type]
                            as? FileAttributeType) == .typeRegular
                } ?? []
            #expect(left == ["share/sonic-atomic/notes.txt"], "\(left)")
        }
    }
}
