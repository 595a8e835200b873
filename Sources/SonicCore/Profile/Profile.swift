import RealModule

/// How an image sounds and how the pen behaves: the settings a profile file holds, validated.
public struct Profile: Sendable, Equatable {
    public var name: String
    public var description: String
    /// How a sample becomes a level 0...1.
    public var level: LevelSettings
    /// How a level becomes a pitch.
    public var pitch: PitchMap
    /// Tone amplitude while the nib touches (in the modes without pressure), 0...1 of full scale.
    public var amplitude: Double
    /// A continuous tone, or short notes, one per level band entered.
    public var articulation: Articulation
    /// The sound: oscillators, effects and their settings.
    public var chain: SoundChain
    /// The modes, in the order the barrel double-click and Tab step through them.
    public var modes: [Mode]
    public var pressure: PressureSettings
    public var tilt: TiltSettings
    public var gestures: GestureSettings
    public var speech: SpeechSettings

    public struct LevelSettings: Sendable, Equatable {
        public enum Range: Sendable, Equatable {
            /// Nearest-rank percentiles (0...100) of the image's samples.
            case percentiles(low: Double, high: Double)
            /// Raw sample values.
            case fixed(low: Double, high: Double)
        }
        public enum Sampling: String, Sendable { case nearest, bilinear }
        public var curve: LevelStretch.Curve
        public var range: Range
        public var inverted: Bool
        /// The nearest pixel's sample, or one interpolated between the four around the nib.
        public var sampling: Sampling

        /// The stretch for an image with these statistics.
        public func stretch(_ statistics: SampleStatistics) -> LevelStretch {
            switch range {
            case let .percentiles(low, high):
                LevelStretch(statistics: statistics, lowPercentile: low, highPercentile: high, curve: curve, inverted: inverted)
            case let .fixed(low, high):
                LevelStretch(low: low, high: high, curve: curve, inverted: inverted)
            }
        }
    }

    public enum Articulation: Sendable, Equatable {
        case continuous
        /// The level is split into `bands` equal bands; entering one plays a note of `length` seconds.
        case notes(bands: Int, length: Double)
    }

    /// pressure-amplitude (and tilt-filter): loudness from nib pressure.
    public struct PressureSettings: Sendable, Equatable {
        public var curve: PressureCurve
        /// Pressure (0...1) at which the tip registers: silence there, full level at full pressure.
        public var threshold: Double
        public var fullLevel: Double
    }

    /// tilt-filter: the pen's lean drives the ladder filter.
    public struct TiltSettings: Sendable, Equatable {
        public enum Azimuth: String, Sendable { case resonance, pan }
        /// Cutoff with the pen upright, and leaning `leanRange` degrees or more, as multiples of the
        /// pitch: the filter follows the pitch, so leaning darkens every part of the image alike.
        public var cutoffUpright: Double
        public var cutoffFlat: Double
        public var leanRange: Double
        /// What the direction of the lean controls.
        public var azimuth: Azimuth
        /// Resonance with the pen upright, sideways or leaning away, and leaning fully towards the user.
        public var resonanceBase: Double
        public var resonanceTowards: Double
        /// FM index of every oscillator in this mode, so there are overtones to filter (nil: the chain's).
        public var timbre: Double?
    }

    public struct GestureSettings: Sendable, Equatable {
        /// Two barrel presses within this many seconds are a double click.
        public var doubleClickTime: Double
        /// A tap: tip down and up within this many seconds and this many screen pixels.
        public var tapTime: Double
        public var tapDistance: Double
        /// A tap snaps to a column within this many column spacings.
        public var snapRadius: Double
        /// The size of a pixel, if the profile knows it (for picometres).
        public var pixelSize: PixelSize?
        /// Whether a session starts with a soft tick where the touching pen crosses a unit cell's boundary.
        public var cellTicks: Bool
    }

    public struct SpeechSettings: Sendable, Equatable {
        /// An eSpeak-NG voice name ("en", "en-us", "de", …).
        public var voice: String
        /// Words per minute.
        public var rate: Int
        /// eSpeak's pitch, 0...100.
        public var pitch: Int
        /// 0...1.
        public var volume: Double
        /// How far the tone drops while the voice speaks, in dB.
        public var duckDecibels: Double
    }

    /// The shipped default, also the fallback for any key a profile leaves out.
    public static let builtIn = Profile(
        name: "default", description: "Continuous pitch, four octaves up from 110 Hz",
        level: LevelSettings(curve: .linear, range: .percentiles(low: 0.5, high: 99.5), inverted: false, sampling: .nearest),
        pitch: PitchMap(baseFrequency: 110, octaves: 4), amplitude: 0.5, articulation: .continuous,
        chain: SoundChain.plainTone.withTiltLadder(),
        modes: Mode.allCases,
        pressure: PressureSettings(curve: .linear, threshold: 0.013, fullLevel: 0.7),
        tilt: TiltSettings(cutoffUpright: 16, cutoffFlat: 1, leanRange: 60, azimuth: .resonance,
                           resonanceBase: 0, resonanceTowards: 0.8, timbre: 6),
        gestures: GestureSettings(doubleClickTime: 0.4, tapTime: 0.3, tapDistance: 4, snapRadius: 0.6, pixelSize: nil, cellTicks: true),
        speech: SpeechSettings(voice: "en", rate: 175, pitch: 50, volume: 0.8, duckDecibels: 12))

    public init(name: String, description: String, level: LevelSettings, pitch: PitchMap, amplitude: Double,
                articulation: Articulation, chain: SoundChain, modes: [Mode],
                pressure: PressureSettings, tilt: TiltSettings, gestures: GestureSettings, speech: SpeechSettings) {
        self.name = name; self.description = description
        self.level = level; self.pitch = pitch; self.amplitude = amplitude; self.articulation = articulation
        self.chain = chain
        self.modes = modes; self.pressure = pressure; self.tilt = tilt; self.gestures = gestures; self.speech = speech
    }

    static let maximumOscillators = 4

    /// Reads a profile file's text. `file` is the path used in error messages.
    public init(name: String, file: String, text: String) throws(ProfileError) {
        let document = try ProfileDocument(file: file, text: text)
        var reader = ProfileReader(document)
        let fallback = Profile.builtIn
        self.name = name
        description = try reader.string("description", default: "")
        level = try Self.readLevel(&reader)
        pitch = try Self.readPitch(&reader)
        amplitude = try reader.number("tone.amplitude", default: fallback.amplitude, in: 0...1)
        articulation = try Self.readArticulation(&reader)
        modes = try reader.strings("modes.order", default: fallback.modes.map(\.rawValue),
                                   allowed: Mode.allCases.map(\.rawValue)).compactMap(Mode.init(rawValue:))
        if modes.isEmpty { throw reader.error("modes.order", "needs at least one mode") }
        pressure = try Self.readPressure(&reader)
        tilt = try Self.readTilt(&reader)
        gestures = GestureSettings(
            doubleClickTime: try reader.number("buttons.double_click_time", default: fallback.gestures.doubleClickTime, in: 0.1...2),
            tapTime: try reader.number("tagging.tap_time", default: fallback.gestures.tapTime, in: 0.05...2),
            tapDistance: try reader.number("tagging.tap_distance", default: fallback.gestures.tapDistance, in: 0...100),
            snapRadius: try reader.number("tagging.snap_radius", default: fallback.gestures.snapRadius, in: 0...2),
            pixelSize: try reader.pixelSize("tagging.pixel_size"),
            cellTicks: try reader.bool("tagging.cell_ticks", default: fallback.gestures.cellTicks))
        speech = try Self.readSpeech(&reader)
        chain = try Self.readChain(&reader)
        chain.tickLevel = try reader.number("tagging.cell_tick_level", default: fallback.chain.tickLevel, in: 0...1)
        if case .notes(_, let length) = articulation { chain.noteLength = length }
        if modes.contains(.tiltFilter) { chain = chain.withTiltLadder() }
        chain.panned = modes.contains(.tiltFilter) && tilt.azimuth == .pan
        try reader.rejectUnknownKeys()
    }
}

extension Profile {
    static func readLevel(_ reader: inout ProfileReader) throws(ProfileError) -> LevelSettings {
        let curve = try reader.string("level.stretch", default: "linear", allowed: LevelStretch.Curve.allCases.map(\.rawValue))
        let kind = try reader.string("level.range", default: "percentile", allowed: ["percentile", "fixed"])
        let range: LevelSettings.Range
        if kind == "percentile" {
            let low = try reader.number("level.low_percentile", default: 0.5, in: 0...100)
            let high = try reader.number("level.high_percentile", default: 99.5, in: 0...100)
            if high <= low { throw reader.error("level.high_percentile", "must be above level.low_percentile (\(low.compact))") }
            range = .percentiles(low: low, high: high)
        } else {
            // Raw sample values in the file's units: signed, 32-bit or float data reach far beyond 16 bits.
            let low = try reader.number("level.low", default: 0, in: -1e30...1e30)
            let high = try reader.number("level.high", default: 65535, in: -1e30...1e30)
            if high <= low { throw reader.error("level.high", "must be above level.low (\(low.compact))") }
            range = .fixed(low: low, high: high)
        }
        for key in ["level.low", "level.high"] where kind == "percentile" && reader.has(key) {
            throw reader.error(key, "applies with range = \"fixed\"")
        }
        for key in ["level.low_percentile", "level.high_percentile"] where kind == "fixed" && reader.has(key) {
            throw reader.error(key, "applies with range = \"percentile\"")
        }
        return LevelSettings(
            curve: LevelStretch.Curve(rawValue: curve)!, range: range,
            inverted: try reader.bool("level.inverted", default: false),
            sampling: LevelSettings.Sampling(rawValue: try reader.string("level.sampling", default: "nearest",
                                                                         allowed: ["nearest", "bilinear"]))!)
    }

    static func readPitch(_ reader: inout ProfileReader) throws(ProfileError) -> PitchMap {
        let fallback = Profile.builtIn.pitch
        let base = try reader.number("pitch.base_frequency", default: fallback.baseFrequency, in: 20...8000)
        let octaves = try reader.number("pitch.octaves", default: fallback.octaves, in: 0.1...8)
        if base * Double.exp2(octaves) > 20_000 {
            throw reader.error("pitch.octaves", "takes the top pitch above 20 kHz from base_frequency \(base.compact)")
        }
        let shapeName = try reader.string("pitch.shape", default: "exponential", allowed: ["exponential", "linear", "sample"])
        let shape: PitchMap.Shape = switch shapeName {
        case "linear": .linear
        case "sample": .sample(divisor: try reader.number("pitch.divisor", default: 120, in: 1...10_000))
        default: .exponential
        }
        if shapeName != "sample" && reader.has("pitch.divisor") {
            throw reader.error("pitch.divisor", "applies with shape = \"sample\"")
        }
        let scale = try reader.string("pitch.scale", default: "continuous", allowed: PitchMap.Scale.allCases.map(\.rawValue))
        return PitchMap(baseFrequency: base, octaves: octaves, shape: shape, scale: PitchMap.Scale(rawValue: scale)!)
    }

    static func readArticulation(_ reader: inout ProfileReader) throws(ProfileError) -> Articulation {
        let kind = try reader.string("tone.articulation", default: "continuous", allowed: ["continuous", "notes"])
        guard kind == "notes" else {
            for key in ["tone.bands", "tone.note_length"] where reader.has(key) {
                throw reader.error(key, "applies with articulation = \"notes\"")
            }
            return .continuous
        }
        return .notes(bands: Int(try reader.number("tone.bands", default: 8, in: 2...64)),
                      length: try reader.number("tone.note_length", default: 0.12, in: 0.02...2))
    }

    static func readPressure(_ reader: inout ProfileReader) throws(ProfileError) -> PressureSettings {
        let fallback = Profile.builtIn.pressure
        let points = try reader.numbers("pressure.curve", count: 4, in: 0...1,
                                        default: [fallback.curve.x1, fallback.curve.y1, fallback.curve.x2, fallback.curve.y2])
        return PressureSettings(
            curve: PressureCurve(x1: points[0], y1: points[1], x2: points[2], y2: points[3]),
            threshold: try reader.number("pressure.threshold", default: fallback.threshold, in: 0...0.5),
            fullLevel: try reader.number("pressure.full_level", default: fallback.fullLevel, in: 0...1))
    }

    static func readTilt(_ reader: inout ProfileReader) throws(ProfileError) -> TiltSettings {
        let fallback = Profile.builtIn.tilt
        let azimuth = try reader.string("tilt.azimuth", default: fallback.azimuth.rawValue, allowed: ["resonance", "pan"])
        let resonance = try reader.numbers("tilt.resonance", count: 2, in: 0...1,
                                           default: [fallback.resonanceBase, fallback.resonanceTowards])
        let timbre = try reader.number("tilt.timbre", default: fallback.timbre ?? 0, in: 0...20)
        return TiltSettings(
            cutoffUpright: try reader.number("tilt.cutoff_upright", default: fallback.cutoffUpright, in: 0.25...64),
            cutoffFlat: try reader.number("tilt.cutoff_flat", default: fallback.cutoffFlat, in: 0.25...64),
            leanRange: try reader.number("tilt.lean_range", default: fallback.leanRange, in: 10...80),
            azimuth: TiltSettings.Azimuth(rawValue: azimuth)!,
            resonanceBase: resonance[0], resonanceTowards: resonance[1],
            timbre: timbre > 0 ? timbre : nil)
    }

    static func readSpeech(_ reader: inout ProfileReader) throws(ProfileError) -> SpeechSettings {
        let fallback = Profile.builtIn.speech
        let voice = try reader.string("speech.voice", default: fallback.voice)
        if voice.isEmpty { throw reader.error("speech.voice", "must name a voice, e.g. \"en\"") }
        return SpeechSettings(
            voice: voice,
            rate: Int(try reader.number("speech.rate", default: Double(fallback.rate), in: 80...450)),
            pitch: Int(try reader.number("speech.pitch", default: Double(fallback.pitch), in: 0...100)),
            volume: try reader.number("speech.volume", default: fallback.volume, in: 0...1),
            duckDecibels: try reader.number("speech.duck", default: fallback.duckDecibels, in: 0...60))
    }

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
            let waveform = try reader.string(section + ".waveform", default: "sine", allowed: ["sine", "square"])
            oscillators.append(SoundChain.Oscillator(
                waveform: SoundChain.Oscillator.Waveform(rawValue: waveform)!,
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

    func has(_ key: String) -> Bool { document.entry(key) != nil }

    mutating func bool(_ key: String, default fallback: Bool) throws(ProfileError) -> Bool {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .bool(let value) = entry.value else { throw error(key, "must be true or false, not \(entry.value.typeName)") }
        return value
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

    /// A list of exactly `count` numbers, each in `range`.
    mutating func numbers(_ key: String, count: Int, in range: ClosedRange<Double>, default fallback: [Double]) throws(ProfileError) -> [Double] {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        let shape = "a list of \(count) numbers between \(range.lowerBound.compact) and \(range.upperBound.compact)"
        guard case .array(let items) = entry.value, items.count == count else { throw error(key, "must be \(shape)") }
        var values: [Double] = []
        for item in items {
            guard case .number(let v) = item, range.contains(v) else { throw error(key, "must be \(shape)") }
            values.append(v)
        }
        return values
    }

    mutating func string(_ key: String, default fallback: String, allowed: [String]? = nil) throws(ProfileError) -> String {
        used.insert(key)
        guard let entry = document.entry(key) else { return fallback }
        guard case .string(let value) = entry.value else {
            throw error(key, "must be a \"string\", not \(entry.value.typeName)")
        }
        if let allowed, !allowed.contains(value) {
            throw error(key, "must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
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

    /// A pixel size like "9.33pm", or nil when the key is absent.
    mutating func pixelSize(_ key: String) throws(ProfileError) -> PixelSize? {
        let text = try string(key, default: "")
        if text.isEmpty { return nil }
        guard let size = PixelSize(text) else { throw error(key, "must be a size like \"9.33pm\", \"0.933nm\" or \"9.33Å\"") }
        return size
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
