import Foundation
import SonicCore
import Testing

@testable import SonicTIFF

@Suite struct TIFFReaderTests {
    /// Each fixture against what numpy wrote into it: pages, sizes, titles, types, every sample,
    /// calibration, and the reason for pages that cannot be played.
    @Test(arguments: try TIFFFixtures.names())
    func fixtureReadsAsWritten(name: String) throws {
        let expected = try #require(try TIFFFixtures.expected()[name], "\(name) is missing from expected.json")
        let contents = try TIFFReader.contents(path: TIFFFixtures.path(name))
        #expect(contents.format == .tiff)
        // An ImageJ stack is one entry, its pages the frames.
        if contents.entries.count == 1, expected.count > 1, let stack = contents.entries[0].stack {
            #expect(stack.count == expected.count, "\(name): frames")
            for (index, page) in expected.enumerated() {
                let frame = try stack.frame(index)
                #expect(frame.width == page.width && frame.height == page.height, "\(name) frame \(index)")
                expectCalibration(contents.entries[0].calibration.x, page.x, "\(name) x")
                expectCalibration(contents.entries[0].calibration.y, page.y, "\(name) y")
                #expect(frame.samples == (page.values ?? []).map { Float($0) }, "\(name) frame \(index)")
            }
            return
        }
        try #require(contents.entries.count == expected.count, "\(name): pages")
        for (entry, page) in zip(contents.entries, expected) {
            #expect(entry.shape == [page.width, page.height], "\(name)")
            #expect(entry.title == page.title, "\(name)")
            expectCalibration(entry.calibration.x, page.x, "\(name) x")
            expectCalibration(entry.calibration.y, page.y, "\(name) y")
            if let word = page.unsupported {
                #expect(!entry.isImage, "\(name)")
                #expect(entry.unsupported?.contains(word) == true, "\(name): \(entry.unsupported ?? "nil")")
                #expect(throws: ImageFileError.self) { try entry.read() }
                continue
            }
            #expect(entry.isImage && entry.unsupported == nil, "\(name): \(entry.unsupported ?? "")")
            #expect(entry.sampleType?.rawValue == page.dtype, "\(name)")
            let plane = try entry.read()
            #expect(plane.width == page.width && plane.height == page.height, "\(name)")
            #expect(plane.sampleType.rawValue == page.dtype, "\(name)")
            let values = try #require(page.values)
            let wanted = values.map { Float($0) }
            let differing = zip(plane.samples, wanted).filter { $0 != $1 }.count
            #expect(plane.samples.count == wanted.count && differing == 0, "\(name): \(differing) samples differ")
        }
    }

    func expectCalibration(
        _ actual: AxisCalibration?, _ wanted: AxisCalibration?, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let wanted else {
            #expect(actual == nil, "\(context)", sourceLocation: sourceLocation)
            return
        }
        guard let actual else {
            Issue.record("\(context): no calibration, wanted \(wanted)", sourceLocation: sourceLocation)
            return
        }
        // libtiff hands resolutions over as 32-bit floats.
        #expect(
            abs(actual.scale - wanted.scale) <= 1e-6 * abs(wanted.scale), "\(context)", sourceLocation: sourceLocation)
        #expect(
            abs(actual.offset - wanted.offset) <= 1e-6 * max(1, abs(wanted.offset)), "\(context)",
            sourceLocation: sourceLocation)
        #expect(actual.unit == wanted.unit, "\(context)", sourceLocation: sourceLocation)
    }

    @Test func everyExpectationHasItsFixture() throws {
        let names = Set(try TIFFFixtures.names())
        for name in try TIFFFixtures.expected().keys { #expect(names.contains(name), "\(name)") }
    }

    @Test func formatIsRecognisedFromTheFirstBytes() throws {
        for name in ["uint8.tif", "int16-bigendian.tif", "float32-bigtiff.tif"] {
            #expect(ImageFileFormat.recognise(try TIFFFixtures.bytes(name)) == .tiff, "\(name)")
        }
    }

    /// Reading a page twice, or pages out of order, gives the same samples: each read stands alone.
    @Test func pagesReadInAnyOrder() throws {
        let contents = try TIFFReader.contents(path: TIFFFixtures.path("three-pages.tif"))
        let third = try contents.entries[2].read()
        let first = try contents.entries[0].read()
        #expect(try contents.entries[2].read() == third)
        #expect(first.sampleType == .uint8 && third.sampleType == .int16)
    }

    @Test func titlesAreOneTrimmedLine() {
        #expect(TIFFPage.title("  HAADF\n\tsurvey\u{7} ") == "HAADF  survey")
        #expect(TIFFPage.title("\n\r ") == "")
        #expect(TIFFPage.title(String(repeating: "é", count: 5000)) == String(repeating: "é", count: 200))
    }

    @Test func concurrentReadsAgree() async throws {
        let contents = try TIFFReader.contents(path: TIFFFixtures.path("uint16-tiled.tif"))
        let entry = contents.entries[0]
        let alone = try entry.read()
        let planes = try await withThrowingTaskGroup(of: GrayImage.self) { group in
            for _ in 0..<8 { group.addTask { try entry.read() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(planes.count == 8 && planes.allSatisfy { $0 == alone })
    }
}
