import Foundation
import SonicCore
import TestSupport
import Testing

@testable import SonicHDF5

/// The HyperSpy fixtures (written by HyperSpy itself, Tests/Fixtures/hspy/make_fixtures.py) against
/// the arrays and axes the script gave them.
@Suite struct HyperSpyFixtureTests {
    static let fixtures = SharedFormats.repository + "/Tests/Fixtures/hspy/"

    @Test(arguments: ["image.hspy", "line_scan.hspy", "spectrum.hspy", "four_d.hspy", "bad_axes.hspy"])
    func fixtureReadsAsWritten(name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "expected.json"))
        let expected = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?[name] as? [String: Any])
        let contents = try EMDReader.contents(path: Self.fixtures + name)
        #expect(contents.format == .hspy)
        let entry = try #require(contents.entries.first)
        #expect(contents.entries.count == 1 && entry.title == expected["title"] as? String, "\(name)")
        #expect(entry.kind?.rawValue == expected["kind"] as? String, "\(name)")
        if let reason = expected["reason"] as? String {
            #expect(entry.unsupported?.contains(reason) == true, "\(name): \(entry.unsupported ?? "nil")")
            #expect(throws: ImageFileError.self) { try entry.read() }
            return
        }
        let axes = try #require(expected["axes"] as? [[String: Any]])
        #expect(entry.axes.count == axes.count, "\(name)")
        for (axis, said) in zip(entry.axes, axes) {
            #expect(
                axis.size == said["size"] as? Int && axis.scale == said["scale"] as? Double
                    && axis.offset == said["offset"] as? Double && axis.units == said["units"] as? String
                    && axis.navigation == said["navigation"] as? Bool, "\(name): \(axis) is not \(said)")
            if let named = said["name"] as? String, named != "<undefined>" { #expect(axis.name == named, "\(name)") }
        }
        let values = try #require(expected["values"] as? [Double])
        if let cube = entry.spectra {
            var read: [Double] = []
            for y in 0..<cube.height { for x in 0..<cube.width { read += try cube.spectrum(x: x, y: y) } }
            #expect(read == values, "\(name)")
        } else {
            #expect(try entry.read().samples == values.map { Float($0) }, "\(name)")
        }
    }
}
