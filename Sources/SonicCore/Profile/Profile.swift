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

    /// The shipped default, also the fallback for any key a profile leaves out.
    public static let builtIn = Profile(
        name: "default", description: "Continuous pitch, four octaves up from 110 Hz",
        lowPercentile: 0.5, highPercentile: 99.5, baseFrequency: 110, octaves: 4, amplitude: 0.5)

    public init(name: String, description: String, lowPercentile: Double, highPercentile: Double,
                baseFrequency: Double, octaves: Double, amplitude: Double) {
        self.name = name; self.description = description
        self.lowPercentile = lowPercentile; self.highPercentile = highPercentile
        self.baseFrequency = baseFrequency; self.octaves = octaves; self.amplitude = amplitude
    }

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
        try reader.rejectUnknownKeys()
        if highPercentile <= lowPercentile {
            throw reader.error("level.high_percentile", "must be above level.low_percentile (\(lowPercentile))")
        }
        if baseFrequency * Double.exp2(octaves) > 20_000 {
            throw reader.error("pitch.octaves", "takes the top pitch above 20 kHz from base_frequency \(baseFrequency)")
        }
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
