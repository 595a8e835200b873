import Foundation
import Testing

@testable import SonicCore

/// The exit statuses are one type; what is written about them is held to it.
@Suite struct ExitStatusTests {
    @Test func theReadmeListsEveryStatus() throws {
        let readme = try BindingsTests.document("README.md").split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        let listed = ExitStatus.allCases.map { "\($0.rawValue) \($0.brief)" }.joined(separator: ", ")
        #expect(readme.contains("Exit statuses: \(listed);"), "README: \(listed)")
    }

    @Test func theManualsTableHasEveryStatus() throws {
        let rows = BindingsTests.tableRows(in: try BindingsTests.document("docs/usage.md"), under: "## Exit statuses")
        #expect(rows.map { $0.first } == ExitStatus.allCases.map { String($0.rawValue) })
    }

    @Test func theManualPageListsEveryStatus() throws {
        let page = try BindingsTests.document("docs/manual-sections.mdoc")
        let section = try #require(page.range(of: ".Sh EXIT STATUS")).upperBound
        let end = page[section...].range(of: ".El")?.lowerBound ?? page.endIndex
        let listed = page[section..<end].split(separator: "\n").filter { $0.hasPrefix(".It ") }.map { $0.dropFirst(4) }
        #expect(listed.map(String.init) == ExitStatus.allCases.map { String($0.rawValue) })
    }
}
