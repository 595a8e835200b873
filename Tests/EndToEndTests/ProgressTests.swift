import Foundation
import Testing

extension EndToEnd {
    /// Long work is said on the terminal: finding the columns of a 4096² lattice takes seconds, and a
    /// terminal hears how far it has got, a line every few seconds, none after the end.
    @Suite struct ProgressTests {
        @Test func longWorkSaysHowFarItHasGotOnATerminal() throws {
            let folder = try Fixtures.scratch("progress")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let image = folder + "/lattice.png"
            let makeImages = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path + "/make-images"
            let made = try Subprocess.run(makeImages, ["--lattice", "4096", image], timeout: 120)
            try #require(made.status == 0, "\(made.output)")
            // `script` gives the command a terminal; what the command writes there comes back on its output.
            let started = Date()
            let run = try Subprocess.run(
                "/usr/bin/script",
                ["-qec", "'\(Fixtures.binary)' columns '\(image)' > '\(folder)/columns.txt'", "/dev/null"],
                timeout: 300)
            let seconds = Date().timeIntervalSince(started)
            #expect(run.status == 0, "\(run.output)")
            let lines = run.output.split(whereSeparator: \.isNewline).map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            #expect(!lines.isEmpty, "no progress in \(seconds) s")
            #expect(
                lines.allSatisfy { $0.wholeMatch(of: #/[A-Z][a-z ]+, \d{1,3} percent\./#) != nil }, "\(lines)")
            // Quiet for the first two seconds, then a line every three at most.
            #expect(Double(lines.count) <= 1 + (seconds - 2) / 3, "\(lines.count) lines in \(seconds) s")
            let table = try String(contentsOfFile: folder + "/columns.txt", encoding: .utf8)
            #expect(table.split(separator: "\n").count > 20_000)
        }
    }
}
