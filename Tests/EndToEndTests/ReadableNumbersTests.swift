import Foundation
import Synchronization
import TestSupport
import Testing

extension EndToEnd {
    /// Every number printed for people reads well aloud and on a braille line: no e-notation
    /// ("1.72222e+06") and no more than four decimals ("17.999999225139618pm"), on every file the tests
    /// hold, the shipped images and the real microscope files, by every command that prints text.
    @Suite struct ReadableNumbersTests {
        static let commands = ["inspect", "describe", "columns", "strain"]
        /// A number in e-notation, or with five decimals or more.
        static var unreadable: Regex<(Substring, Substring)> { /[0-9](e[+-]?[0-9]|\.[0-9]{5,})/ }

        static func files() throws -> [String] {
            let manager = FileManager.default
            var folders = [Fixtures.repository + "/images"]
            let fixtures = Fixtures.repository + "/Tests/Fixtures"
            folders += try manager.contentsOfDirectory(atPath: fixtures).map { fixtures + "/" + $0 }
            if SharedFormats.missing == nil || Fixtures.isCI {
                folders += [SharedFormats.folder, SharedFormats.folder + "/spectra"]
            }
            let kinds = ["png", "tif", "dm3", "dm4", "emd", "hspy", "bcf"]
            return try folders.flatMap { folder in
                try manager.contentsOfDirectory(atPath: folder)
                    // The hostile files wait out the reader's time limit: their messages are tested elsewhere.
                    .filter { name in kinds.contains { name.hasSuffix("." + $0) } && !name.hasPrefix("hostile") }
                    .sorted().map { folder + "/" + $0 }
            }
        }

        @Test func noTextOutputHasENotationOrMoreThanFourDecimals() throws {
            let files = try Self.files()
            #expect(files.count >= 60, "\(files.count) files")
            let runs = files.flatMap { file in Self.commands.map { (file, $0) } }
            let found = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                for (file, command) in stride(from: worker, to: runs.count, by: 2).map({ runs[$0] }) {
                    let output: String
                    do {
                        output = try Subprocess.run(Fixtures.binary, [command, file]).output
                    } catch {
                        found.withLock { $0.append("\(command) \(file): \(error)") }
                        continue
                    }
                    for line in output.split(separator: "\n") where line.contains(Self.unreadable) {
                        found.withLock { $0.append("\(command) \((file as NSString).lastPathComponent): \(line)") }
                    }
                }
            }
            let lines = found.withLock { $0 }
            #expect(lines.isEmpty, "\(lines.prefix(10).joined(separator: "\n"))")
        }
    }
}
