import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// Bad input meets the user as one clear line on stderr and a documented exit status.
    @Suite struct CommandLineTests {
        func play(_ arguments: [String], environment: [String: String] = ["DISPLAY": ":1"]) throws -> (
            status: Int32, output: String
        ) {
            try Subprocess.run(Fixtures.binary, ["play"] + arguments, environment: environment)
        }

        func expectOneLine(
            _ result: (status: Int32, output: String), status: Int32, containing text: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(result.status == status, "\(result.output)", sourceLocation: sourceLocation)
            #expect(result.output.hasPrefix("sonic-atomic: "), "\(result.output)", sourceLocation: sourceLocation)
            #expect(result.output.contains(text), "\(result.output)", sourceLocation: sourceLocation)
            #expect(result.output.split(separator: "\n").count == 1, "\(result.output)", sourceLocation: sourceLocation)
        }

        @Test func playHelpListsEveryKeyAndPenButton() throws {
            let result = try Subprocess.run(Fixtures.binary, ["play", "--help"])
            func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            #expect(result.status == 0)
            #expect(words(result.output).contains(words(Bindings.help(spoken: false))), "\(result.output)")
        }

        @Test func badImagesExitWithStatusTwo() throws {
            let folder = try Fixtures.scratch("badimages")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let good = TestPNG(
                width: 20, height: 20, bitDepth: 16, colourType: .gray,
                samples: (0..<400).map { UInt16($0 * 100) }
            ).bytes
            var corrupt = good
            for i in 60..<70 { corrupt[i] ^= 0xFF }
            var huge = good
            huge.replaceSubrange(16..<24, with: [0, 1, 0, 0, 0, 1, 0, 0]) // 65536 × 65536
            huge.replaceSubrange(
                29..<33,
                with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: TestPNG.crc32(Array(huge[12..<29])) >> $0) })
            let files: [(String, [UInt8], String)] = [
                ("truncated.png", Array(good[0..<(good.count / 2)]), "truncated"),
                ("corrupt.png", corrupt, "damaged"),
                ("text.png", Array("not an image\n".utf8), "not an image file this program reads"),
                ("empty.png", [], "the file is empty"),
                ("huge.png", huge, "limit")
            ]
            for (name, bytes, text) in files {
                let path = folder + "/" + name
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                expectOneLine(try play([path]), status: 2, containing: text)
            }
            expectOneLine(try play([folder + "/missing.png"]), status: 2, containing: "no such file")
            expectOneLine(try play([folder]), status: 2, containing: "not a regular file")
        }

        @Test func damagedTagFilesExitWithStatusTwoAndAreKept() throws {
            let folder = try Fixtures.scratch("badtags")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let image = folder + "/lattice.png"
            try Data(
                TestPNG(
                    width: 20, height: 20, bitDepth: 16, colourType: .gray, samples: (0..<400).map { UInt16($0 * 100) }
                ).bytes
            )
            .write(to: URL(fileURLWithPath: image))
            let unplaced = Array(repeating: #"{"x": 5, "y": 5}"#, count: 101).joined(separator: ",")
            let files = [
                ("{ \"format\" : \"sonic-atomic tags\", \"tags\" : [", "not JSON"),
                (
                    #"{"format": "sonic-atomic tags", "version": 1, "image": "lattice.png", "width": 20, "height": 20}"#,
                    "no \"tags\""
                ),
                (
                    #"{"format": "sonic-atomic tags", "version": 1, "image": "lattice.png", "width": 20, "height": 20, "tags": [], "unplaced": ["#
                        + unplaced + "]}", "101 unplaced tags"
                )
            ]
            for (text, reason) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: image + ".tags.json"))
                // Refused before the display is even tried (there is none): status 2, not 3.
                expectOneLine(try play([image]), status: 2, containing: reason)
                #expect(
                    try String(contentsOfFile: image + ".tags.json", encoding: .utf8) == text, "the file was changed")
            }
        }

        @Test func badProfilesExitWithStatusTwoNamingFileLineAndKey() throws {
            let folder = try Fixtures.scratch("badprofile")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + "/loud.toml"
            try "# mine\n[tone]\namplitude = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
            expectOneLine(
                try play(["--profile", path]), status: 2,
                containing: "\(path):3: tone.amplitude: must be between 0 and 1")
            expectOneLine(try play(["--profile", "no-such-profile"]), status: 2, containing: "no such profile")
        }

        @Test func badSessionLogsExitWithStatusTwoNamingTheLine() throws {
            let folder = try Fixtures.scratch("badlog")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let image = Fixtures.repository + "/images/atomic-lattice.png"
            let start =
                #"{"type":"start","t":1,"image":"x.png","width":384,"height":384,"bitDepth":16,"profile":"default","sampleRate":48000}"#
            let cases: [(String, String)] = [
                (start + "\nnot json\n", "log.jsonl:2: not a JSON object"),
                (
                    start + "\n" + #"{"type":"viewport","t":2,"originX":0,"originY":0}"#,
                    "log.jsonl:2: \"scale\" must be a number"
                ),
                (#"{"type":"viewport","t":2,"originX":0,"originY":0,"scale":1}"#, "no start record"),
                (
                    start.replacingOccurrences(of: "384,\"height\"", with: "100,\"height\""),
                    "the session played a 100 × 384 image"
                )
            ]
            for (text, message) in cases {
                try text.write(toFile: folder + "/log.jsonl", atomically: true, encoding: .utf8)
                let result = try Subprocess.run(
                    Fixtures.binary,
                    [
                        "render", image, "--session", folder + "/log.jsonl",
                        "--out", folder + "/out.wav"
                    ])
                expectOneLine(result, status: 2, containing: message)
            }
        }

        @Test func columnsRefusesBadInputInOneLine() throws {
            let result = try Subprocess.run(Fixtures.binary, ["columns", "/no/such/image.png"])
            expectOneLine(result, status: 2, containing: "no such file")
            let usage = try Subprocess.run(
                Fixtures.binary, ["columns", Fixtures.repository + "/images/atomic-lattice.png", "--near", "12"])
            #expect(usage.status == 64 && usage.output.contains("--near takes X,Y"))
            let flat = try Subprocess.run(
                Fixtures.binary, ["columns", Fixtures.repository + "/images/atomic-lattice.png", "--csv"])
            #expect(
                flat.status == 0
                    && flat.output.hasPrefix(
                        "x,y,peak,quality,sigma,intensity,relative_intensity,sublattice,site_n,site_m,dx,dy,dx_pm,dy_pm\n"
                    ))
        }

        @Test func noDisplayExitsWithStatusThree() throws {
            let image = Fixtures.repository + "/images/atomic-lattice.png"
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = ":987"
            expectOneLine(
                try play([image], environment: environment), status: 3, containing: "cannot open X display \":987\"")
            // Without DISPLAY at all (the child inherits the merged environment; an empty value reads as unset).
            environment["DISPLAY"] = ""
            expectOneLine(try play([image], environment: environment), status: 3, containing: "DISPLAY is not set")
        }
    }
}
