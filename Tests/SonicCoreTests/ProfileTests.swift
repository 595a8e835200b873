import Foundation
import Testing

@testable import SonicCore

@Suite struct ProfileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func shippedDefaultProfileHoldsTheDocumentedMapping() throws {
        let path = Self.repository.appendingPathComponent("profiles/default.toml").path
        let profile = try Profile(name: "default", file: path, text: String(contentsOfFile: path, encoding: .utf8))
        #expect(
            profile.level.range == .percentiles(low: 0.5, high: 99.5, headroom: 0.5) && profile.level.curve == .linear)
        #expect(profile.pitch == PitchMap(baseFrequency: 110, octaves: 4, shape: .exponential, scale: .continuous))
        #expect(profile.amplitude == 0.5)
        #expect(profile == Profile.builtIn)
    }

    @Test func missingKeysFallBackToTheDefault() throws {
        let profile = try Profile(name: "x", file: "x.toml", text: "[pitch]\noctaves = 2  # two only\n")
        #expect(profile.pitch.octaves == 2)
        #expect(profile.pitch.baseFrequency == 110)
    }

    @Test(
        arguments: [
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
            ("[pitch]\noctaves = 4 5\n", 2, "pitch.octaves", "unexpected text")
        ] as [(String, Int, String?, String)])
    func errorsNameFileLineAndKey(text: String, line: Int, key: String?, message: String) {
        Self.expectError(text, line: line, key: key, message: message)
    }

    /// Reading `text` fails with one message that starts "profiles/bad.toml:LINE: KEY: " and says `message`.
    static func expectError(
        _ text: String, line: Int, key: String?, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
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
        let doc = try ProfileDocument(
            file: "f",
            text: """
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
        let profile = try Profile(
            name: "p", file: "p.toml",
            text: """
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
        #expect(
            profile.pressure.curve == PressureCurve(x1: 0, y1: 0.5, x2: 0.5, y2: 1)
                && profile.pressure.threshold == 0.05)
        #expect(profile.tilt.azimuth == .pan && profile.tilt.cutoffUpright == 8)
        #expect(profile.gestures.doubleClickTime == 0.3)
        #expect(!profile.gestures.cellTicks && profile.chain.tickLevel == 0.1)
        #expect(Profile.builtIn.gestures.cellTicks && Profile.builtIn.chain.tickLevel == 0.25)
        #expect(profile.speech.voice == "de" && profile.speech.rate == 200 && profile.speech.duckDecibels == 18)
        // No tilt-filter mode: no ladder for the tilt, no panner.
        #expect(profile.chain.effects.isEmpty && !profile.chain.filtered && !profile.chain.panned)
    }

    @Test(
        arguments: [
            ("[modes]\norder = [\"intensity-pitch\", \"loud\"]\n", 2, "modes.order", "each item must be one of"),
            ("[modes]\norder = []\n", 2, "modes.order", "at least one mode"),
            ("[tagging]\ncell_tick_level = 2\n", 2, "tagging.cell_tick_level", "between 0 and 1"),
            ("[tagging]\ncell_ticks = 1\n", 2, "tagging.cell_ticks", "must be true or false"),
            ("[pressure]\ncurve = [0, 0, 1]\n", 2, "pressure.curve", "a list of 4 numbers between 0 and 1"),
            ("[tilt]\nazimuth = \"colour\"\n", 2, "tilt.azimuth", "must be one of \"resonance\", \"pan\""),
            ("[speech]\nvoice = \"\"\n", 2, "speech.voice", "must name a voice"),
            ("[speech]\nrate = 1000\n", 2, "speech.rate", "between 80 and 450")
        ] as [(String, Int, String, String)])
    func modeSettingErrorsNameFileLineAndKey(text: String, line: Int, key: String, message: String) {
        Self.expectError(text, line: line, key: key, message: message)
    }
}

/// The table of profile keys against everything else that states a default: the shipped default profile, the
/// built-in one, and the table in docs/profiles.md.
@Suite struct ProfileKeysTests {
    static func shipped(_ path: String) throws -> String {
        try String(contentsOf: ProfileTests.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theDefaultProfileSetsEveryKeyThatAppliesToItAtItsDefault() throws {
        let document = try ProfileDocument(file: "profiles/default.toml", text: Self.shipped("profiles/default.toml"))
        for (name, entry) in document.entries {
            let key = try #require(ProfileKeys.named(name), "\(name) is not in the table")
            // The description is the profile's own.
            if name != "description" { #expect(entry.value == key.defaultValue, "\(name)") }
        }
        for key in ProfileKeys.all where key.condition == nil && key.defaultValue != nil {
            #expect(document.entry(key.name) != nil, "profiles/default.toml does not show \(key.name)")
        }
    }

    @Test func theBuiltInProfileIsEveryKeyAtItsDefault() throws {
        let empty = try Profile(name: "default", file: "empty.toml", text: "")
        var described = empty
        described.description = Profile.builtIn.description
        #expect(described == Profile.builtIn)
        #expect(empty.description.isEmpty)
    }

    /// Each key set alone to its default (with the key it depends on, or its effect in use) reads: the reader knows
    /// every key of the table. Where that changes nothing else, the profile is the built-in one.
    @Test(arguments: ProfileKeys.all.map(\.name))
    func everyKeyReadsAtItsDefault(name: String) throws {
        let key = try #require(ProfileKeys.named(name))
        guard let value = key.defaultValue else { return }
        let section = String(name.split(separator: ".").first!).replacingOccurrences(
            of: "oscillatorN", with: "oscillator1")
        var lines = ["[\(section)]", "\(key.shortName) = \(Self.toml(value))"]
        if case .when(let other, let required)? = key.condition {
            lines += ["[\(other.split(separator: ".")[0])]", "\(other.split(separator: ".")[1]) = \"\(required)\""]
        }
        if key.condition == .inSection && section != "oscillator1" {
            lines += ["[effects]", "order = [\"\(section)\"]"]
        }
        if name == "description" { lines = ["description = \"\""] }
        var profile = try Profile(name: "default", file: "one.toml", text: lines.joined(separator: "\n"))
        // Where the key changes nothing else, the profile is the built-in one.
        if key.condition == nil || section == "oscillator1" {
            profile.description = Profile.builtIn.description
            #expect(profile == Profile.builtIn)
        }
    }

    @Test func docsListEveryKeyAsTheTableHasIt() throws {
        let docs = try Self.shipped("docs/profiles.md").split(separator: "\n", omittingEmptySubsequences: false)
        let header = "| key | default | allowed | meaning |"
        let start = try #require(docs.firstIndex { $0 == header })
        let rows = docs[(start + 2)...].prefix { $0.hasPrefix("|") }.map(String.init)
        let expected = ProfileKeys.all.map(Self.docsRow)
        let table = ([header, "|---|---|---|---|"] + expected).joined(separator: "\n")
        #expect(rows == expected, "docs/profiles.md's table should read:\n\(table)")
    }

    /// The key's row in docs/profiles.md.
    static func docsRow(_ key: ProfileKey) -> String {
        let defaultValue: String =
            switch key.defaultValue {
            case nil: "none"
            case .string("")?: ""
            case .bool(let flag)?: "\(flag)"
            case .number(let value)?: docsNumber(value)
            case let value?: "`\(toml(value))`"
            }
        var allowed: String =
            switch key.allowed {
            case .number(let range, let unit): docsRange(range) + (unit.map { " " + $0 } ?? "")
            case .numbers(let count, let range):
                "\(["", "one", "two", "three", "four"][count]) numbers \(docsRange(range))"
            case .choice(let words): words.map { "`\"\($0)\"`" }.joined(separator: ", ")
            case .words(let words, let required):
                (words.map { "`\"\($0)\"`" } + (required ? ["at least one"] : []) + ["each at most once"]).joined(
                    separator: ", ")
            case .flag: "true, false"
            case .text: "text"
            case .voice: "an eSpeak-NG voice"
            case .pixelSize: "e.g. `\"9.33pm\"`, `\"0.933nm\"`, `\"9.33Å\"`"
            }
        if let constraint = key.constraint { allowed += ", " + constraint }
        var meaning = key.meaning
        if case .when(let other, let value)? = key.condition {
            meaning = "with `\(other.split(separator: ".")[1]) = \"\(value)\"`: " + meaning
        }
        return "|"
            + ["`\(key.name)`", defaultValue, allowed, meaning].map { $0.isEmpty ? " " : " \($0) " }.joined(
                separator: "|") + "|"
    }

    static func docsRange(_ range: ClosedRange<Double>) -> String {
        let separator = range.lowerBound < 0 ? " to " : "–"
        return docsNumber(range.lowerBound) + separator + docsNumber(range.upperBound)
    }

    /// A number as the docs write it: a true minus sign, and powers of ten from a million on as such.
    static func docsNumber(_ value: Double) -> String {
        let magnitude = abs(value), sign = value < 0 ? "−" : ""
        if magnitude >= 1e6, case let exponent = Int(log10(magnitude).rounded()), pow(10, Double(exponent)) == magnitude
        {
            let superscripts: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
            return sign + "10" + String(String(exponent).map { superscripts[Int(String($0))!] })
        }
        return sign + magnitude.compact
    }

    /// A value as a profile file writes it.
    static func toml(_ value: ProfileValue) -> String {
        switch value {
        case .number(let number): number.compact
        case .string(let text): "\"\(text)\""
        case .bool(let flag): "\(flag)"
        case .array(let items): "[" + items.map(toml).joined(separator: ", ") + "]"
        }
    }
}

@Suite struct ProfileSettingsTests {
    @Test func theShippedProfilesLoadAndSayWhatTheyAre() throws {
        for name in ["default", "pentatonic", "classic", "discrete", "analysis"] {
            let path = ProfileTests.repository.appendingPathComponent("profiles/\(name).toml").path
            let profile = try Profile(name: name, file: path, text: String(contentsOfFile: path, encoding: .utf8))
            #expect(!profile.description.isEmpty)
        }
    }

    @Test(
        arguments: [
            ("[level]\nstretch = \"cube\"\n", 2, "level.stretch", "must be one of"),
            ("[level]\nrange = \"fixed\"\nlow = 100\nhigh = 50\n", 4, "level.high", "must be above level.low"),
            ("[level]\nlow = 100\n", 2, "level.low", "applies with range = \"fixed\""),
            ("[level]\ninverted = 1\n", 2, "level.inverted", "must be true or false"),
            ("[level]\nsampling = \"cubic\"\n", 2, "level.sampling", "must be one of"),
            ("[pitch]\nshape = \"log\"\n", 2, "pitch.shape", "must be one of"),
            ("[pitch]\ndivisor = 120\n", 2, "pitch.divisor", "applies with shape = \"sample\""),
            ("[pitch]\nscale = \"blues\"\n", 2, "pitch.scale", "must be one of"),
            ("[tone]\nbands = 8\n", 2, "tone.bands", "applies with articulation = \"notes\""),
            ("[tone]\narticulation = \"notes\"\nnote_length = 5\n", 3, "tone.note_length", "between 0.02 and 2"),
            ("[oscillator1]\nwaveform = \"saw\"\n", 2, "oscillator1.waveform", "must be one of")
        ] as [(String, Int, String, String)])
    func errorsNameFileLineAndKey(text: String, line: Int, key: String, message: String) {
        ProfileTests.expectError(text, line: line, key: key, message: message)
    }
}
