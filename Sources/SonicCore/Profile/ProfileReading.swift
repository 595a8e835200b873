import RealModule

extension Profile {
    static let maximumOscillators = 4

    /// Reads a profile file's text. `file` is the path used in error messages. A key left out takes its default
    /// (`ProfileKeys`).
    public init(name: String, file: String, text: String) throws(ProfileError) {
        let document = try ProfileDocument(file: file, text: text)
        var reader = ProfileReader(document)
        self.name = name
        description = try reader.text("description")
        level = try Self.readLevel(&reader)
        pitch = try Self.readPitch(&reader)
        amplitude = try reader.number("tone.amplitude")
        articulation = try Self.readArticulation(&reader)
        modes = try reader.words("modes.order").compactMap(Mode.init(rawValue:))
        if modes.isEmpty { throw reader.error("modes.order", "needs at least one mode") }
        pressure = try Self.readPressure(&reader)
        tilt = try Self.readTilt(&reader)
        gestures = GestureSettings(
            doubleClickTime: try reader.number("buttons.double_click_time"),
            tapTime: try reader.number("tagging.tap_time"),
            tapDistance: try reader.number("tagging.tap_distance"),
            snapRadius: try reader.number("tagging.snap_radius"),
            pixelSize: try reader.pixelSize("tagging.pixel_size"),
            cellTicks: try reader.bool("tagging.cell_ticks"))
        lattice = LatticeSettings(
            reach: try reader.number("lattice.reach"),
            intensityFrequency: try reader.number("lattice.intensity_frequency"),
            intensityRange: try reader.number("lattice.intensity_range"),
            intensityOctaves: try reader.number("lattice.intensity_octaves"),
            displacementFrequency: try reader.number("lattice.displacement_frequency"),
            displacementOctaves: try reader.number("lattice.displacement_octaves"),
            displacementFullScale: try reader.number("lattice.displacement_full_scale"),
            displacementFullScalePixels: try reader.number("lattice.displacement_full_scale_pixels"),
            strainFrequency: try reader.number("lattice.strain_frequency"),
            strainOctaves: try reader.number("lattice.strain_octaves"),
            strainFullScale: try reader.number("lattice.strain_full_scale") / 100,
            rotationFullScale: try reader.number("lattice.rotation_full_scale"))
        speech = try Self.readSpeech(&reader)
        display = DisplaySettings(textSize: try reader.number("display.text_size"))
        braille = BrailleSettings(
            messageTime: try reader.number("braille.message_time"), status: try reader.bool("braille.status"),
            pictureRate: try reader.number("braille.picture_rate"),
            startsWithPicture: try reader.choice("braille.view") == "picture")
        chain = try Self.readChain(&reader)
        chain.tickLevel = try reader.number("tagging.cell_tick_level")
        chain.sweepLength = try reader.number("sweep.length")
        chain.waitingLevel = try reader.number("wait.sound_level")
        if case .notes(_, let length) = articulation { chain.noteLength = length }
        // tilt-filter drives a ladder's cutoff and resonance.
        chain.filtered = modes.contains(.tiltFilter)
        // lattice-displacement pans the sound the way a column is displaced, lattice-strain the way it is turned.
        chain.panned =
            (modes.contains(.tiltFilter) && tilt.azimuth == .pan) || modes.contains(.latticeDisplacement)
            || modes.contains(.latticeStrain)
        try reader.rejectUnknownKeys()
    }

    private static func readLevel(_ reader: inout ProfileReader) throws(ProfileError) -> LevelSettings {
        let curve = try reader.choice("level.stretch")
        let kind = try reader.choice("level.range")
        let range: LevelSettings.Range
        if kind == "percentile" {
            let low = try reader.number("level.low_percentile")
            let high = try reader.number("level.high_percentile")
            if high <= low {
                throw reader.error("level.high_percentile", "must be above level.low_percentile (\(low.compact))")
            }
            range = .percentiles(low: low, high: high, headroom: try reader.number("level.headroom"))
        } else {
            let low = try reader.number("level.low")
            let high = try reader.number("level.high")
            if high <= low { throw reader.error("level.high", "must be above level.low (\(low.compact))") }
            range = .fixed(low: low, high: high)
        }
        try reader.rejectInapplicable(
            ["level.low", "level.high", "level.low_percentile", "level.high_percentile", "level.headroom"],
            given: kind)
        return LevelSettings(
            curve: LevelStretch.Curve(rawValue: curve)!, range: range,
            inverted: try reader.bool("level.inverted"),
            sampling: LevelSettings.Sampling(rawValue: try reader.choice("level.sampling"))!)
    }

    private static func readPitch(_ reader: inout ProfileReader) throws(ProfileError) -> PitchMap {
        let base = try reader.number("pitch.base_frequency")
        let octaves = try reader.number("pitch.octaves")
        if base * Double.exp2(octaves) > 20_000 {
            throw reader.error("pitch.octaves", "takes the top pitch above 20 kHz from base_frequency \(base.compact)")
        }
        let shapeName = try reader.choice("pitch.shape")
        let shape: PitchMap.Shape =
            switch shapeName {
            case "linear": .linear
            case "sample": .sample(divisor: try reader.number("pitch.divisor"))
            default: .exponential
            }
        try reader.rejectInapplicable(["pitch.divisor"], given: shapeName)
        let scale = try reader.choice("pitch.scale")
        return PitchMap(baseFrequency: base, octaves: octaves, shape: shape, scale: PitchMap.Scale(rawValue: scale)!)
    }

    private static func readArticulation(_ reader: inout ProfileReader) throws(ProfileError) -> Articulation {
        let kind = try reader.choice("tone.articulation")
        guard kind == "notes" else {
            try reader.rejectInapplicable(["tone.bands", "tone.note_length"], given: kind)
            return .continuous
        }
        return .notes(bands: Int(try reader.number("tone.bands")), length: try reader.number("tone.note_length"))
    }

    private static func readPressure(_ reader: inout ProfileReader) throws(ProfileError) -> PressureSettings {
        let points = try reader.numbers("pressure.curve")
        return PressureSettings(
            curve: PressureCurve(x1: points[0], y1: points[1], x2: points[2], y2: points[3]),
            threshold: try reader.number("pressure.threshold"),
            fullLevel: try reader.number("pressure.full_level"))
    }

    private static func readTilt(_ reader: inout ProfileReader) throws(ProfileError) -> TiltSettings {
        let azimuth = try reader.choice("tilt.azimuth")
        let resonance = try reader.numbers("tilt.resonance")
        let timbre = try reader.number("tilt.timbre")
        return TiltSettings(
            cutoffUpright: try reader.number("tilt.cutoff_upright"),
            cutoffFlat: try reader.number("tilt.cutoff_flat"),
            leanRange: try reader.number("tilt.lean_range"),
            azimuth: TiltSettings.Azimuth(rawValue: azimuth)!,
            resonanceBase: resonance[0], resonanceTowards: resonance[1],
            timbre: timbre > 0 ? timbre : nil)
    }

    private static func readSpeech(_ reader: inout ProfileReader) throws(ProfileError) -> SpeechSettings {
        let voice = try reader.text("speech.voice")
        if voice.isEmpty { throw reader.error("speech.voice", "must name a voice, e.g. \"en\"") }
        return SpeechSettings(
            engine: SpeechEngine(rawValue: try reader.choice("speech.engine"))!,
            voice: voice,
            rate: Int(try reader.number("speech.rate")),
            pitch: Int(try reader.number("speech.pitch")),
            volume: try reader.number("speech.volume"),
            duckDecibels: try reader.number("speech.duck"))
    }

    /// The [oscillator1] … [oscillator4] sections, [effects] order and each effect's section.
    private static func readChain(_ reader: inout ProfileReader) throws(ProfileError) -> SoundChain {
        var oscillators: [SoundChain.Oscillator] = []
        for n in 1...maximumOscillators {
            let section = "oscillator\(n)"
            guard reader.hasSection(section) else { continue }
            guard oscillators.count == n - 1 else {
                throw reader.error(reader.firstKey(in: section)!, "oscillators are numbered from 1 without gaps")
            }
            let waveform = try reader.choice(section + ".waveform")
            oscillators.append(
                SoundChain.Oscillator(
                    waveform: SoundChain.Oscillator.Waveform(rawValue: waveform)!,
                    ratio: try reader.number(section + ".ratio"),
                    modulatorRatio: try reader.number(section + ".modulator_ratio"),
                    index: try reader.number(section + ".index"),
                    level: try reader.number(section + ".level")))
        }
        var effects: [SoundChain.Effect] = []
        for name in try reader.words("effects.order") {
            switch name {
            case "delay":
                effects.append(
                    .delay(
                        time: try reader.number("delay.time"), feedback: try reader.number("delay.feedback"),
                        mix: try reader.number("delay.mix")))
            case "reverb":
                effects.append(
                    .reverb(
                        feedback: try reader.number("reverb.feedback"), cutoff: try reader.number("reverb.cutoff"),
                        mix: try reader.number("reverb.mix")))
            default:
                effects.append(
                    .ladder(
                        cutoff: try reader.number("ladder.cutoff"), resonance: try reader.number("ladder.resonance")))
            }
        }
        for name in ProfileKeys.effectNames
        where reader.hasSection(name) && !effects.contains(where: { $0.name == name }) {
            throw reader.error(reader.firstKey(in: name)!, "[\(name)] is set but effects.order does not use it")
        }
        return SoundChain(
            oscillators: oscillators.isEmpty ? SoundChain.plainTone.oscillators : oscillators, effects: effects,
            limiterThreshold: try reader.number("limiter.threshold"),
            glideTime: try reader.number("tone.glide"))
    }
}
