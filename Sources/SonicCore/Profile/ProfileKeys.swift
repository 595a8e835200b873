/// One key a profile may set: its default, the values it allows and what it means. `ProfileKeys.all` is the one
/// source of these: the reader takes its defaults and checks from it, `Profile.builtIn` is every key at its default,
/// and the tests hold profiles/default.toml and the table in docs/profiles.md to it. A key that sets a sound unit's
/// parameter takes its default, range and unit from the unit's declaration (`ParameterDef`).
struct ProfileKey: Sendable {
    enum Allowed: Sendable, Equatable {
        /// A number in a range, in a unit (or none).
        case number(ClosedRange<Double>, unit: String?)
        /// A list of exactly `count` numbers, each in the range.
        case numbers(count: Int, ClosedRange<Double>)
        /// One of these words.
        case choice([String])
        /// A list of these words, each at most once (and at least one of them, when `required`).
        case words([String], required: Bool)
        case flag
        case text
        /// An eSpeak-NG voice name.
        case voice
        /// A size like "9.33pm".
        case pixelSize
    }

    /// When a key applies at all.
    enum Condition: Sendable, Equatable {
        /// Only when another key has this value (`level.low` with `level.range = "fixed"`): set otherwise, it is an
        /// error.
        case when(key: String, is: String)
        /// Only within a section that is in use: an oscillator's, or an effect's named in `effects.order`.
        case inSection
    }

    /// "section.key"; `oscillatorN` stands for each of `oscillator1` … `oscillator4`.
    let name: String
    /// The value a profile that leaves the key out gets; nil: none.
    let defaultValue: ProfileValue?
    let allowed: Allowed
    /// A further check against another key, in words ("above `level.low`").
    let constraint: String?
    let condition: Condition?
    /// What the key means, in one line.
    let meaning: String

    init(
        _ name: String, _ defaultValue: ProfileValue?, _ allowed: Allowed, constraint: String? = nil,
        when condition: Condition? = nil, _ meaning: String
    ) {
        self.name = name; self.defaultValue = defaultValue; self.allowed = allowed
        self.constraint = constraint; self.condition = condition; self.meaning = meaning
    }

    /// The key's last part, as it is written in its section.
    var shortName: String { String(name.split(separator: ".").last ?? "") }
}

/// Every key a profile may set, in the order docs/profiles.md lists them.
enum ProfileKeys {
    static let all: [ProfileKey] =
        [description] + level + pitch + tone + oscillator + effects + pen + tagging + lattice + sweep + wait + speech
        + display + braille

    /// The effects `effects.order` may name; each has a section of its own.
    static let effectNames = ["delay", "reverb", "ladder"]

    /// The key of that name; a key of an `oscillator1` … `oscillator4` section is found as `oscillatorN`'s.
    static func named(_ name: String) -> ProfileKey? { byName[canonicalName(name)] }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    private static func canonicalName(_ name: String) -> String {
        guard name.hasPrefix("oscillator"), let dot = name.firstIndex(of: ".") else { return name }
        return "oscillatorN" + name[dot...]
    }

    private static func number(_ value: Double) -> ProfileValue { .number(value) }
    private static func word(_ value: String) -> ProfileValue { .string(value) }
    private static func range(_ range: ClosedRange<Double>, _ unit: String? = nil) -> ProfileKey.Allowed {
        .number(range, unit: unit)
    }

    /// A key that sets a sound unit's parameter: its default, range and unit are the parameter's.
    private static func parameter(
        _ name: String, _ parameter: ParameterDef, when condition: ProfileKey.Condition? = nil, _ meaning: String
    ) -> ProfileKey {
        ProfileKey(
            name, number(parameter.defaultValue), range(parameter.range, parameter.unit.symbol), when: condition,
            meaning)
    }

    private static let description = ProfileKey(
        "description", word(""), .text,
        "one line about the profile, shown by `profiles`")

    private static let level: [ProfileKey] = [
        ProfileKey(
            "level.range", word("percentile"), .choice(["percentile", "fixed"]),
            "`percentile`: low and high are percentiles of the image's samples; `fixed`: sample values"),
        ProfileKey(
            "level.low_percentile", number(0.5), range(0...100), when: .when(key: "level.range", is: "percentile"),
            "the percentile (nearest rank) that is level 0"),
        ProfileKey(
            "level.high_percentile", number(99.5), range(0...100), constraint: "above `level.low_percentile`",
            when: .when(key: "level.range", is: "percentile"),
            "the percentile (nearest rank) that, with no headroom, is level 1"),
        ProfileKey(
            "level.headroom", number(0.5), range(0...4), when: .when(key: "level.range", is: "percentile"),
            "level 1 lies this share of the span between the percentiles above the high one, so what is brighter "
                + "than the image's usual brightest (a heavier column) still sounds higher"),
        // Raw sample values in the file's units: signed, 32-bit or float data reach far beyond 16 bits.
        ProfileKey(
            "level.low", number(0), range(-1e30...1e30), when: .when(key: "level.range", is: "fixed"),
            "the sample value that is level 0, in the file's sample units"),
        ProfileKey(
            "level.high", number(65535), range(-1e30...1e30), constraint: "above `level.low`",
            when: .when(key: "level.range", is: "fixed"), "the sample value that is level 1, in the file's sample units"
        ),
        ProfileKey(
            "level.stretch", word(LevelStretch.Curve.linear.rawValue),
            .choice(LevelStretch.Curve.allCases.map(\.rawValue)),
            "the curve from t to level: t, log(1 + 1000 t)/log 1001, √t, asinh(10 t)/asinh 10"),
        ProfileKey("level.inverted", .bool(false), .flag, "dark high, bright low"),
        ProfileKey(
            "level.sampling", word(Profile.LevelSettings.Sampling.nearest.rawValue),
            .choice(Profile.LevelSettings.Sampling.allCases.map(\.rawValue)),
            "the nearest pixel, or interpolated between the four around the nib")
    ]

    private static let pitch: [ProfileKey] = [
        ProfileKey(
            "pitch.shape", word("exponential"), .choice(["exponential", "linear", "sample"]),
            "base · 2^(octaves · level); evenly in Hz over the same range; or the raw sample / `divisor` Hz "
                + "(never below 20 Hz)"),
        ProfileKey("pitch.base_frequency", number(110), range(20...8000, "Hz"), "the pitch at level 0"),
        ProfileKey(
            "pitch.octaves", number(4), range(0.1...8), constraint: "the top pitch at most 20 kHz",
            "octaves from level 0 to level 1"),
        ProfileKey(
            "pitch.divisor", number(120), range(1...10_000), when: .when(key: "pitch.shape", is: "sample"),
            "what the raw sample is divided by to give hertz"),
        ProfileKey(
            "pitch.scale", word(PitchMap.Scale.continuous.rawValue), .choice(PitchMap.Scale.allCases.map(\.rawValue)),
            "or snap to the nearest note of the scale, from the base frequency, in equal temperament")
    ]

    private static let tone: [ProfileKey] = [
        ProfileKey(
            "tone.amplitude", number(0.5), range(0...1),
            "loudness while touching in the modes without pressure, of full scale"),
        ProfileKey(
            "tone.articulation", word("continuous"), .choice(["continuous", "notes"]),
            "a continuous tone, or a short note each time the pen enters another level band"),
        ProfileKey(
            "tone.bands", number(8), range(2...64), when: .when(key: "tone.articulation", is: "notes"),
            "how many equal level bands"),
        parameter(
            "tone.note_length", NoteEnvelope.lengthDef, when: .when(key: "tone.articulation", is: "notes"),
            "how long a note lasts"),
        ProfileKey(
            "tone.glide", number(SoundChain.plainTone.glideTime), range(0.0005...0.1, "s"),
            "how long every change glides")
    ]

    /// The keys of each of the sections `[oscillator1]` … `[oscillator4]`.
    private static let oscillator: [ProfileKey] = [
        ProfileKey(
            "oscillatorN.waveform", word(SoundChain.Oscillator().waveform.rawValue),
            .choice(SoundChain.Oscillator.Waveform.allCases.map(\.rawValue)), when: .inSection,
            "a sine (with FM) or a band-limited square"),
        parameter(
            "oscillatorN.ratio", SoundChain.Oscillator.ratioDef, when: .inSection,
            "the carrier's frequency as a multiple of the pitch"),
        parameter(
            "oscillatorN.modulator_ratio", FMOscillator.modulatorRatioDef, when: .inSection,
            "the modulator's frequency as a multiple of the carrier's"),
        parameter("oscillatorN.index", FMOscillator.indexDef, when: .inSection, "FM index (0: a pure sine)"),
        parameter("oscillatorN.level", OscillatorParameters.levelDef, when: .inSection, "its level in the mix")
    ]

    private static let effects: [ProfileKey] = [
        ProfileKey(
            "effects.order", .array([]), .words(effectNames, required: false),
            "the effects after the oscillators, in order"),
        parameter("delay.time", FeedbackDelay.timeDef, when: .inSection, "the time between echoes"),
        parameter(
            "delay.feedback", FeedbackDelay.feedbackDef, when: .inSection, "each echo's level as a share of the last's"),
        parameter(
            "delay.mix", FeedbackDelay.mixDef, when: .inSection, "from the dry sound (0) to the echoes only (1)"),
        parameter(
            "reverb.feedback", CostelloReverb.feedbackDef, when: .inSection, "how long the reverberation lasts"),
        parameter("reverb.cutoff", CostelloReverb.cutoffDef, when: .inSection, "the damping: lower is darker"),
        parameter(
            "reverb.mix", DryWetMixer.balanceDef, when: .inSection,
            "from the reverb's input (0) to the reverberation only (1)"),
        parameter("ladder.cutoff", MoogLadder.cutoffDef, when: .inSection, "the Moog ladder's −3 dB point"),
        parameter("ladder.resonance", MoogLadder.resonanceDef, when: .inSection, "the Moog ladder's resonance"),
        parameter("limiter.threshold", SoftLimiter.thresholdDef, "where the soft limiter starts")
    ]

    private static let pen: [ProfileKey] = [
        ProfileKey(
            "modes.order", .array(Mode.standard.map { .string($0.rawValue) }),
            .words(Mode.allCases.filter { $0 != .spectrum }.map(\.rawValue), required: true),
            "the mode cycle; the first is the mode a session starts in (a spectrum image adds the spectrum mode)"),
        ProfileKey(
            "pressure.curve", .array([0, 0, 1, 1].map(ProfileValue.number)), .numbers(count: 4, 0...1),
            "Bézier control points x1, y1, x2, y2 (as xsetwacom's PressureCurve)"),
        ProfileKey(
            "pressure.threshold", number(0.013), range(0...0.5), "pressure where the tip registers: silence there"),
        ProfileKey("pressure.full_level", number(0.7), range(0...1), "loudness at full pressure"),
        ProfileKey(
            "tilt.cutoff_upright", number(16), range(0.25...64),
            "the filter's cutoff with the pen upright, "
                + "as a multiple of the pitch"),
        ProfileKey(
            "tilt.cutoff_flat", number(1), range(0.25...64),
            "the filter's cutoff with the pen fully leant, "
                + "as a multiple of the pitch"),
        ProfileKey("tilt.lean_range", number(60), range(10...80, "degrees"), "the lean from upright to fully leant"),
        ProfileKey(
            "tilt.azimuth", word(Profile.TiltSettings.Azimuth.resonance.rawValue),
            .choice(Profile.TiltSettings.Azimuth.allCases.map(\.rawValue)), "what the lean's direction does"),
        ProfileKey(
            "tilt.resonance", .array([0, 0.8].map(ProfileValue.number)),
            .numbers(count: 2, MoogLadder.resonanceDef.range),
            "resonance without leaning towards you, and leaning fully towards you"),
        ProfileKey(
            "tilt.timbre", number(6), range(FMOscillator.indexDef.range),
            "FM index of the tone in tilt-filter mode (0: the profile's own)"),
        ProfileKey(
            "buttons.double_click_time", number(0.4), range(0.1...2, "s"),
            "the longest time between the two presses of a double click")
    ]

    private static let tagging: [ProfileKey] = [
        ProfileKey("tagging.tap_time", number(0.3), range(0.05...2, "s"), "a tap: tip down and up within this time"),
        ProfileKey(
            "tagging.tap_distance", number(4), range(0...100, "screen pixels"),
            "a tap: tip down and up within this distance"),
        ProfileKey("tagging.snap_radius", number(0.6), range(0...2), "how far a tap snaps, in column spacings"),
        ProfileKey(
            "tagging.pixel_size", nil, .pixelSize, "the pixel size when neither the user nor the file gives one"),
        ProfileKey(
            "tagging.cell_ticks", .bool(true), .flag,
            "whether a session starts with ticks at the unit cell's boundaries (`T` toggles)"),
        parameter("tagging.cell_tick_level", Tick.levelDef, "the ticks' peak level")
    ]

    private static let lattice: [ProfileKey] = [
        ProfileKey(
            "lattice.reach", number(0.3), range(0.05...1),
            "how near a column the nib sounds it in the column modes, in column spacings"),
        ProfileKey(
            "lattice.intensity_frequency", number(440), range(20...8000, "Hz"),
            "column-intensity: the pitch of a column as bright as its sublattice's median"),
        ProfileKey(
            "lattice.intensity_range", number(0.3), range(0.01...2),
            "column-intensity: the relative intensity from 1 − range to 1 + range spans `lattice.intensity_octaves`"),
        ProfileKey(
            "lattice.intensity_octaves", number(1), range(0.1...4),
            "column-intensity: octaves over the intensity range"),
        ProfileKey(
            "lattice.displacement_frequency", number(220), range(20...8000, "Hz"),
            "lattice-displacement: the pitch of a column on its ideal site"),
        ProfileKey(
            "lattice.displacement_octaves", number(2), range(0.1...6),
            "lattice-displacement: octaves from no displacement to the full scale"),
        ProfileKey(
            "lattice.displacement_full_scale", number(50), range(1...1000, "pm"),
            "lattice-displacement: the displacement at the top pitch, with a pixel size"),
        ProfileKey(
            "lattice.displacement_full_scale_pixels", number(2), range(0.05...20, "pixels"),
            "lattice-displacement: the displacement at the top pitch, without a pixel size"),
        ProfileKey(
            "lattice.strain_frequency", number(440), range(20...8000, "Hz"),
            "lattice-strain: the pitch of an unstrained column"),
        ProfileKey(
            "lattice.strain_octaves", number(1), range(0.1...4),
            "lattice-strain: octaves from no dilatation to the full scale, up stretched, down compressed"),
        ProfileKey(
            "lattice.strain_full_scale", number(2), range(0.1...20, "%"),
            "lattice-strain: the dilatation, the mean of the strains along x and y, heard furthest from the middle"),
        ProfileKey(
            "lattice.rotation_full_scale", number(2), range(0.1...45, "degrees"),
            "lattice-strain: the rotation heard fully to one side, clockwise right")
    ]

    private static let sweep: [ProfileKey] = [
        parameter(
            "sweep.length", ImageSweep.lengthDef,
            "how long a sweep takes: of the whole image (`S`), or of a row or column under the pen (`X`, `Shift+X`)")
    ]

    private static let wait: [ProfileKey] = [
        parameter(
            "wait.sound_level", WaitingPulse.levelDef,
            "the peak of the soft pulse heard while a window's map or a frame takes seconds to come (0: none)")
    ]

    private static let speech: [ProfileKey] = [
        ProfileKey(
            "speech.engine", word(Profile.SpeechEngine.espeak.rawValue),
            .choice(Profile.SpeechEngine.allCases.map(\.rawValue)),
            "eSpeak-NG in the program's own sound, or speech-dispatcher with the user's own voice, rate and "
                + "synthesiser (`voice`, `rate`, `pitch` and `volume` then apply only when it cannot be reached)"),
        ProfileKey("speech.voice", word("en"), .voice, "`en`, `en-us`, `de`, …"),
        ProfileKey(
            "speech.rate", number(175),
            range(Double(Profile.SpeechSettings.rates.lowerBound)...Double(Profile.SpeechSettings.rates.upperBound)),
            "words a minute"),
        ProfileKey("speech.pitch", number(50), range(0...100), "eSpeak-NG's pitch"),
        ProfileKey("speech.volume", number(0.8), range(0...1), "the voice's level"),
        ProfileKey("speech.duck", number(12), range(0...60, "dB"), "how far the tone drops while the voice speaks")
    ]

    private static let display: [ProfileKey] = [
        ProfileKey(
            "display.text_size", number(1), range(TextSize.steps[0]...TextSize.steps[TextSize.steps.count - 1]),
            "the text on screen as a multiple of the desktop's size (`Ctrl++` and `Ctrl+-` change it)")
    ]

    private static let braille: [ProfileKey] = [
        ProfileKey(
            "braille.message_time", number(10), range(0...600, "s"),
            "how long a message stays on the braille display before the status line takes its place (0: until the "
                + "next message; a key on the display holds it as long again)"),
        ProfileKey(
            "braille.status", .bool(true), .flag,
            "show the status line (mode, pen, frame, zoom) on the braille display when nothing new is said"),
        ProfileKey(
            "braille.picture_rate", number(2), range(0.2...10, "Hz"),
            "how often at most the tactile picture on a multi-line display is redrawn as the pen moves"),
        ProfileKey(
            "braille.view", word("picture"), .choice(["picture", "text"]),
            "what a multi-line display shows first: the tactile picture or text (its display-mode key switches)")
    ]
}
