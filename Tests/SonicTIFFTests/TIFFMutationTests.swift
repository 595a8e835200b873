import Foundation
import SonicCore
import Testing

@testable import SonicTIFF

/// Thousands of seeded mutations of every fixture: each gives contents whose planes fill their
/// pages, or an ImageFileError of one line; never a crash, a hang or another kind of error.
@Suite struct TIFFMutationTests {
    struct Tally {
        var inputs = 0
        var listed = 0
        var planes = 0
        var errors = 0
        var problems: [String] = []
    }

    /// Runs `count` mutations starting at `seed`, each written to `scratch` before it is read, so
    /// that the file left there after a crash is the input that caused it.
    static func run(count: Int, seed: UInt64, scratch: ScratchFolder) throws -> Tally {
        let fixtures = try TIFFFixtures.names().map { try TIFFFixtures.bytes($0) }
        var mutator = TIFFMutator(seed: seed)
        var tally = Tally()
        for _ in 0..<count {
            let original = fixtures[mutator.below(fixtures.count)]
            let donor = fixtures[mutator.below(fixtures.count)]
            let path = try scratch.write(mutator.mutate(original, donor: donor), as: "mutated.tif")
            tally.inputs += 1
            check(path, into: &tally)
            if tally.problems.count >= 10 { break }
        }
        return tally
    }

    static func check(_ path: String, into tally: inout Tally) {
        func record(_ error: any Error) {
            let message = "\(error)"
            if error is ImageFileError, !message.isEmpty, !message.contains("\n"), !message.contains(path) {
                tally.errors += 1
            } else {
                tally.problems.append("\(type(of: error)): \(message)")
            }
        }
        do {
            let contents = try TIFFReader.contents(path: path)
            tally.listed += 1
            for entry in contents.entries {
                do {
                    let plane = try entry.read()
                    tally.planes += 1
                    // A stack plays its first frame.
                    if !entry.isSignal || [plane.width, plane.height] != [entry.width, entry.height]
                        || plane.sampleType != entry.sampleType
                    {
                        tally.problems.append(
                            "a plane of \(plane.width) × \(plane.height) \(plane.sampleType) "
                                + "for an entry of \(entry.shape) \(String(describing: entry.sampleType))")
                    }
                } catch {
                    record(error)
                }
            }
        } catch {
            record(error)
        }
    }

    @Test func mutatedFilesGiveContentsOrOneLineErrors() throws {
        let scratch = try ScratchFolder("mutations")
        defer { scratch.remove() }
        let tally = try Self.run(count: 3000, seed: 20_240_611, scratch: scratch)
        #expect(tally.problems.isEmpty, "\(tally.problems)")
        // The mutations are varied enough to reach both outcomes often.
        #expect(tally.inputs == 3000 && tally.errors > 300 && tally.planes > 300, "\(tally)")
    }
}
