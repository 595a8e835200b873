import Foundation
import SonicCore

/// Where the shipped images and profiles are, and where the user's own profiles live.
enum Installation {
    /// $SONIC_ATOMIC_DATA; else, for an installed program (PREFIX/bin/sonic-atomic), PREFIX/share/sonic-atomic;
    /// else the nearest folder above the executable holding profiles/ and images/ (the source tree when
    /// run from a build); else the usual share folders.
    static let dataDirectory: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["SONIC_ATOMIC_DATA"], !explicit.isEmpty { return explicit }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        let installed = folder.deletingLastPathComponent().appendingPathComponent("share/sonic-atomic").path
        if isDataDirectory(installed) { return installed }
        while folder.path != "/" {
            if isDataDirectory(folder.path) { return folder.path }
            folder = folder.deletingLastPathComponent()
        }
        return ["/usr/local/share/sonic-atomic", "/usr/share/sonic-atomic"].first(where: isDataDirectory)
    }()

    private static func isDataDirectory(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/profiles/default.toml")
            && FileManager.default.fileExists(atPath: path + "/images")
    }

    static var defaultImage: String? { dataDirectory.map { $0 + "/images/atomic-lattice.png" } }

    static var userProfileDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/sonic-atomic/profiles"
    }

    /// Finds and reads a profile: a path, or a name looked up among the user's profiles first,
    /// then the shipped ones.
    static func loadProfile(_ nameOrPath: String) throws -> Profile {
        let path: String
        let name: String
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".toml") {
            path = nameOrPath
            name = URL(fileURLWithPath: nameOrPath).deletingPathExtension().lastPathComponent
        } else {
            let candidates = [userProfileDirectory] + (dataDirectory.map { [$0 + "/profiles"] } ?? [])
            guard
                let found = candidates.map({ "\($0)/\(nameOrPath).toml" })
                    .first(where: FileManager.default.fileExists)
            else {
                throw ProfileError(
                    file: nameOrPath, line: nil, key: nil,
                    message: "no such profile (looked in \(candidates.joined(separator: " and ")))")
            }
            path = found
            name = nameOrPath
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProfileError(file: path, line: nil, key: nil, message: "cannot read the profile")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ProfileError(file: path, line: nil, key: nil, message: "the profile is not UTF-8 text")
        }
        return try Profile(name: name, file: path, text: text)
    }
}
