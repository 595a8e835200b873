import RealModule

/// How an image sounds: the settings a profile file holds, validated.
public struct Profile: Sendable, Equatable {
    public var name: String
    public var description: String
    /// Percentiles (0...100) of the image's samples that map to level 0 and level 1.
    public var lowPercentile: Double
    public var highPercentile: Double
    /// Frequency at level 0, in Hz, and how many octaves level 1 lies above it.
    public var baseFrequency: Double
    public var octaves: Double
    /// Tone amplitude while the nib touches, 0...1 of full scale.
    public var amplitude: Double
    /// The sound: oscillators, effects and their settings.
    public var chain: SoundChain

    /// The shipped default, also the fallback for any key a profile leaves out.
    public static let builtIn = Profile(
        name: "default", description: "Continuous pitch, four octaves up from 110 Hz",
        lowPercentile: 0.5, highPercentile: 99.5, baseFrequency: 110, octaves: 4, amplitude: 0.5, chain: .plainTone)

    public init(name: String, description: String, lowPercentile: Double, highPercentile: Double,
                baseFrequency: Double, octaves: Double, amplitude: Double, chain: SoundChain) {
        self.name = name; self.description = description
        self.lowPercentile = lowPercentile; self.highPercentile = highPercentile
        self.baseFrequency = baseFrequency; self.octaves = octaves; self.amplitude = amplitude; self.chain = chain
    }

    static let maximumOscillators = 4

    /// Reads a profile file's text. `file` is the path used in error messages.
    public init(name: String, file: String, text: String) throws(ProfileError) {
        let document = try ProfileDocument(file: file, text: text)
        var reader = ProfileReader(document)
        let fallback = Profile.builtIn
        self.name = name
        description = try reader.string("description", default: "")
        lowPercentile = try reader.number("level.low_percentile", default: fallback.lowPercentile, in: 0...100)
        highPercentile = try reader.number("level.high_percentile", default: fallback.highPercentile, in: 0...100)
        baseFrequency = try reader.number("pitch.base_frequency", default: fallback.baseFrequency, in: 20...8000)
        octaves = try reader.number("pitch.octaves", default: fallback.octaves, in: 0.1...8)
        amplitude = try reader.number("tone.amplitude", default: fallback.amplitude, in: 0...1)
        chain = try Self.readChain(&reader)
        try reader.rejectUnknownKeys()
        if highPercentile <= lowPercentile {
            throw reader.error("level.high_percentile", "must be above level.low_percentile (\(lowPercentile))")
        }
        if baseFrequency * Double.exp2(octaves) > 20_000 {
            throw reader.error("pitch.octaves", "takes the top pitch above 20 kHz from base_frequency \(baseFrequency)")
        }
    }
}

extension Profile {
    /// The [oscillator1] … [oscillator4] sections, [effects] order and each effect's section.
    static func readChain(_ reader: inout ProfileReader) throws(ProfileError) -> SoundChain {
        let plain = SoundChain.plainTone
        var oscillators: [SoundChain.Oscillator] = []
        for n in 1...maximumOscillators {
            let section = "oscillator\(n)"
            guard reader.hasSection(section) else { continue }
            guard oscillators.count == n - 1 else {
                throw reader.error(reader.firstKey(in: section)!, "oscillators are numbered from 1 without gaps")
            }
            oscillators.append(SoundChain.Oscillator(
                ratio: try reader.number(section + ".ratio", default: 1, in: 0.01...16),
                modulatorRatio: try reader.number(section + ".modulator_ratio", default: 1, in: 0...16),
                index: try reader.number(section + ".index", default: 0, in: 0...20),
                level: try reader.number(section + ".level", default: 1, in: 0...1)))
        }
        var effects: [SoundChain.Effect] = []
        for name in try reader.strings("effects.order", default: [], allowed: ["delay", "reverb", "ladder"]) {
            switch name {
            case "delay":
                effects.append(.delay(time: try reader.number("delay.time", default: 0.1, in: 0.001...FeedbackDelay.maximumTime),
                                      feedback: try reader.number("delay.feedback", default: 0.3, in: -0.99...0.99),
                                      mix: try reader.number("delay.mix", default: 0.5, in: 0...1)))
            case "reverb":
                effects.append(.reverb(feedback: try reader.number("reverb.feedback", default: 0.6, in: 0...0.999),
                                       cutoff: try reader.number("reverb.cutoff", default: 4000, in: 20...20_000),
                                       mix: try reader.number("reverb.mix", default: 0.5, in: 0...1)))
            default:
                effects.append(.ladder(cutoff: try reader.number("ladder.cutoff", default: 2000, in: 20...20_000),
                                       resonance: try reader.number("ladder.resonance", default: 0, in: 0...1)))
            }
        }
        for name in ["delay", "reverb", "ladder"] where reader.hasSection(name) && !effects.contains(where: { $0.name == name }) {
            throw reader.error(reader.firstKey(in: name)!, "[\(name)] is set but effects.order does not use it")
        }
        return SoundChain(
            oscillators: oscillators.isEmpty ? plain.oscillators : oscillators, effects: effects,
            limiterThreshold: try reader.number("limiter.threshold", default: plain.limiterThreshold, in: 0.1...0.99),
            glideTime: try reader.number("tone.glide", default: plain.glideTime, in: 0.0005...0.1))
    }
}

/// Typed, range-checked reads from a document, remembering which keys were used.
struct ProfileReader {
    let document: ProfileDocument
    private var used = Set<String>()

    init(_ document: ProfileDocument) { self.document = document }

    func error(_ key: String, _ message: String) -> ProfileError {
        ProfileError(file: document.file, line: document.entry(key)?.line, key: key, message: message)
    }

    mutating func number(_ key: String, default fallback: Double, in range: ClosedRange<Double>) throws(ProfileError) -> Double {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .number(let value) = entry.value else {
            throw error(key, "must be a number, not \(entry.value.typeName)")
        }
        guard range.contains(value) else {
            throw error(key, "must be between \(range.lowerBound.compact) and \(range.upperBound.compact), not \(value.compact)")
        }
        return value
    }

    mutating func string(_ key: String, default fallback: String) throws(ProfileError) -> String {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .string(let value) = entry.value else {
            throw error(key, "must be a \"string\", not \(entry.value.typeName)")
        }
        return value
    }

    /// A list of words, each one of `allowed`, none twice.
    mutating func strings(_ key: String, default fallback: [String], allowed: [String]) throws(ProfileError) -> [String] {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .array(let items) = entry.value else {
            throw error(key, "must be a list like [\"\(allowed[0])\"], not \(entry.value.typeName)")
        }
        var words: [String] = []
        for item in items {
            guard case .string(let word) = item, allowed.contains(word) else {
                throw error(key, "each item must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            guard !words.contains(word) else { throw error(key, "\"\(word)\" appears twice") }
            words.append(word)
        }
        return words
    }

    func hasSection(_ section: String) -> Bool { firstKey(in: section) != nil }

    func firstKey(in section: String) -> String? {
        document.entries.first { $0.key.hasPrefix(section + ".") }?.key
    }

    func rejectUnknownKeys() throws(ProfileError) {
        if let unknown = document.entries.first(where: { !used.contains($0.key) }) {
            throw error(unknown.key, "unknown key")
        }
    }
}

extension Double {
    /// 110 rather than 110.0 in messages.
    var compact: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
