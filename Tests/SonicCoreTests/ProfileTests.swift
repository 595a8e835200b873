import Foundation
import Testing
@testable import SonicCore

@Suite struct ProfileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func shippedDefaultProfileHoldsTheDocumentedMapping() throws {
        let path = Self.repository.appendingPathComponent("profiles/default.toml").path
        let profile = try Profile(name: "default", file: path, text: String(contentsOfFile: path, encoding: .utf8))
        #expect(profile.level.range == .percentiles(low: 0.5, high: 99.5) && profile.level.curve == .linear)
        #expect(profile.pitch == PitchMap(baseFrequency: 110, octaves: 4, shape: .exponential, scale: .continuous))
        #expect(profile.amplitude == 0.5)
        #expect(profile == Profile.builtIn)
    }

    @Test func missingKeysFallBackToTheDefault() throws {
        let profile = try Profile(name: "x", file: "x.toml", text: "[pitch]\noctaves = 2  # two only\n")
        #expect(profile.pitch.octaves == 2)
        #expect(profile.pitch.baseFrequency == 110)
    }

    @Test(arguments: [
        ("[pitch]\nbase_frequncy = 220\n", 2, "pitch.base_frequncy", "unknown key"),
        ("# c\n\n[tone]\namplitude = \"loud\"\n", 4, "tone.amplitude", "must be a number"),
        ("[tone]\namplitude = 1.5\n", 2, "tone.amplitude", "between 0 and 1"),
        ("[level]\nlow_percentile = 60\nhigh_percentile = 40\n", 3, "level.high_percentile", "must be above"),
        ("[pitch]\nbase_frequency = 2000\noctaves = 4\n", 3, "pitch.octaves", "20 kHz"),
        ("description = \"a\"\ndescription = \"b\"\n", 2, "description", "set twice"),
        ("[pitch]\noctaves = four\n", 2, "pitch.octaves", "is not a value"),
        ("[pitch]\noctaves 4\n", 2, "pitch.octaves", "expected `=`"),
        ("[pitch\n", 1, nil, "section header"),
        ("description = \"open\n", 1, "description", "closing quote"),
        ("[pitch]\noctaves = 4 5\n", 2, "pitch.octaves", "unexpected text"),
    ] as [(String, Int, String?, String)])
    func errorsNameFileLineAndKey(text: String, line: Int, key: String?, message: String) {
        Self.expectError(text, line: line, key: key, message: message)
    }

    /// Reading `text` fails with one message that starts "profiles/bad.toml:LINE: KEY: " and says `message`.
    static func expectError(_ text: String, line: Int, key: String?, message: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try Profile(name: "bad", file: "profiles/bad.toml", text: text)
        } throws: { error in
            guard let error = error as? ProfileError else { return false }
            return error.file == "profiles/bad.toml" && error.line == line && error.key == key
                && error.message.contains(message)
                && error.description.hasPrefix("profiles/bad.toml:\(line): " + (key.map { $0 + ": " } ?? ""))
        }
    }

    @Test func documentReadsTheTOMLSubset() throws {
        let doc = try ProfileDocument(file: "f", text: """
            top = 1_000
            [s]
            text = "a \\"quoted\\" word" # comment
            flag = true
            list = [1, 2.5, "three"]
            """)
        #expect(doc.entry("top")?.value == .number(1000))
        #expect(doc.entry("s.text")?.value == .string("a \"quoted\" word"))
        #expect(doc.entry("s.flag")?.value == .bool(true))
        #expect(doc.entry("s.list")?.value == .array([.number(1), .number(2.5), .string("three")]))
        #expect(doc.entry("s.list")?.line == 5)
    }
}

extension ProfileTests {
    @Test func modesAndTheirSettingsAreRead() throws {
        let profile = try Profile(name: "p", file: "p.toml", text: """
            [modes]
            order = ["unit-cell-tagging", "intensity-pitch"]
            [pressure]
            curve = [0, 0.5, 0.5, 1]
            threshold = 0.05
            full_level = 0.9
            [tilt]
            azimuth = "pan"
            cutoff_upright = 8
            [buttons]
            double_click_time = 0.3
            [tagging]
            cell_ticks = false
            cell_tick_level = 0.1
            [speech]
            voice = "de"
            rate = 200
            duck = 18
            """)
        #expect(profile.modes == [.unitCellTagging, .intensityPitch])
        #expect(profile.pressure.curve == PressureCurve(x1: 0, y1: 0.5, x2: 0.5, y2: 1) && profile.pressure.threshold == 0.05)
        #expect(profile.tilt.azimuth == .pan && profile.tilt.cutoffUpright == 8)
        #expect(profile.gestures.doubleClickTime == 0.3)
        #expect(!profile.gestures.cellTicks && profile.chain.tickLevel == 0.1)
        #expect(Profile.builtIn.gestures.cellTicks && Profile.builtIn.chain.tickLevel == 0.25)
        #expect(profile.speech.voice == "de" && profile.speech.rate == 200 && profile.speech.duckDecibels == 18)
        // No tilt-filter mode: no extra ladder, no panner.
        #expect(profile.chain.effects.isEmpty && !profile.chain.panned)
    }

    @Test(arguments: [
        ("[modes]\norder = [\"intensity-pitch\", \"loud\"]\n", 2, "modes.order", "each item must be one of"),
        ("[modes]\norder = []\n", 2, "modes.order", "at least one mode"),
        ("[tagging]\ncell_tick_level = 2\n", 2, "tagging.cell_tick_level", "between 0 and 1"),
        ("[tagging]\ncell_ticks = 1\n", 2, "tagging.cell_ticks", "must be true or false"),
        ("[pressure]\ncurve = [0, 0, 1]\n", 2, "pressure.curve", "a list of 4 numbers between 0 and 1"),
        ("[tilt]\nazimuth = \"colour\"\n", 2, "tilt.azimuth", "must be one of \"resonance\", \"pan\""),
        ("[speech]\nvoice = \"\"\n", 2, "speech.voice", "must name a voice"),
        ("[speech]\nrate = 1000\n", 2, "speech.rate", "between 80 and 450"),
    ] as [(String, Int, String, String)])
    func modeSettingErrorsNameFileLineAndKey(text: String, line: Int, key: String, message: String) {
        Self.expectError(text, line: line, key: key, message: message)
    }
}
