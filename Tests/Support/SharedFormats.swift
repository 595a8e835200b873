import Foundation

/// Real microscope files with what a reference reader reads from each (`FILE.facts.json`), kept beside
/// the repository at `../shared/formats` (override: SONIC_FORMATS). The repository does not ship them:
/// tests that use them skip where they are absent, except in CI, which has them.
public enum SharedFormats {
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    public static var folder: String {
        ProcessInfo.processInfo.environment["SONIC_FORMATS"]
            ?? URL(fileURLWithPath: repository + "/../shared/formats").standardizedFileURL.path
    }

    /// Why the files cannot be used here, or nil when they can. In CI their absence is a failure, not a skip.
    public static var missing: String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "the real microscope files are not at \(folder) (set SONIC_FORMATS)"
        }
        return nil
    }

    /// Whether a test should skip: the files are missing and this is not CI.
    public static var skip: Bool { missing != nil && ProcessInfo.processInfo.environment["CI"] != "true" }

    /// Every file of the folder whose name ends with one of `extensions`, sorted.
    public static func files(_ extensions: String...) throws -> [String] {
        if let missing { throw SharedFormatsMissing(message: missing) }
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { name in extensions.contains { name.hasSuffix("." + $0) } }
            .sorted().map { folder + "/" + $0 }
    }

    /// Every file of the `spectra` folder (spectra, spectrum images, stacks) whose name ends with one
    /// of `extensions`, sorted.
    public static func spectra(_ extensions: String...) throws -> [String] {
        if let missing { throw SharedFormatsMissing(message: missing) }
        let spectra = folder + "/spectra"
        return try FileManager.default.contentsOfDirectory(atPath: spectra)
            .filter { name in extensions.contains { name.hasSuffix("." + $0) } }
            .sorted().map { spectra + "/" + $0 }
    }

    /// The facts file beside `path`, parsed.
    public static func facts(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path + ".facts.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}

public struct SharedFormatsMissing: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
