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
    public var lattice: LatticeSettings
    public var speech: SpeechSettings
    public var display: DisplaySettings
    public var braille: BrailleSettings

    /// column-intensity, lattice-displacement and lattice-strain: how a column sounds.
    public struct LatticeSettings: Sendable, Equatable {
        /// How near a column the nib sounds it, in column spacings.
        public var reach: Double
        public var intensityFrequency: Double
        /// The relative intensity from 1 − range to 1 + range spans `intensityOctaves`.
        public var intensityRange: Double
        public var intensityOctaves: Double
        public var displacementFrequency: Double
        public var displacementOctaves: Double
        /// The displacement at the top pitch, in picometres with a pixel size, in pixels without.
        public var displacementFullScale: Double
        public var displacementFullScalePixels: Double
        public var strainFrequency: Double
        /// Octaves from no dilatation to `strainFullScale`, up stretched, down compressed.
        public var strainOctaves: Double
        /// The dilatation heard furthest from the middle note, as a fraction (0.02 is 2 %).
        public var strainFullScale: Double
        /// The rotation heard fully at one side, in degrees.
        public var rotationFullScale: Double
    }

    public struct LevelSettings: Sendable, Equatable {
        public enum Range: Sendable, Equatable {
            /// Nearest-rank percentiles (0...100) of the image's samples, and a share of the span between them
            /// left above the high one.
            case percentiles(low: Double, high: Double, headroom: Double)
            /// Raw sample values.
            case fixed(low: Double, high: Double)
        }
        public enum Sampling: String, Sendable, CaseIterable { case nearest, bilinear }
        public var curve: LevelStretch.Curve
        public var range: Range
        public var inverted: Bool
        /// The nearest pixel's sample, or one interpolated between the four around the nib.
        public var sampling: Sampling

        /// The stretch for an image with these statistics.
        public func stretch(_ statistics: SampleStatistics) -> LevelStretch {
            switch range {
            case .percentiles(let low, let high, let headroom):
                LevelStretch(
                    statistics: statistics, lowPercentile: low, highPercentile: high, headroom: headroom, curve: curve,
                    inverted: inverted)
            case .fixed(let low, let high):
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
        public enum Azimuth: String, Sendable, CaseIterable { case resonance, pan }
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

    /// Who speaks the announcements.
    public enum SpeechEngine: String, CaseIterable, Sendable {
        /// The program's own eSpeak-NG voice, mixed into its sound (what `render` replays).
        case espeak
        /// speech-dispatcher, as the screen reader speaks: the user's own voice, rate and synthesiser.
        case dispatcher
    }

    public struct SpeechSettings: Sendable, Equatable {
        /// The words a minute a voice may speak at: eSpeak-NG's own range.
        public static let rates = 80...450

        public var engine: SpeechEngine
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

    public struct DisplaySettings: Sendable, Equatable {
        /// The text on screen as a multiple of the desktop's size (`TextSize.steps` spans it).
        public var textSize: Double
    }

    /// What the braille display shows.
    public struct BrailleSettings: Sendable, Equatable {
        /// Seconds a message stays before the status line takes its place; 0: until the next message.
        public var messageTime: Double
        /// Whether the status line shows when nothing new is said.
        public var status: Bool
        /// How often at most the tactile picture is redrawn, per second.
        public var pictureRate: Double
        /// What a multi-line display shows first: the tactile picture (true) or text.
        public var startsWithPicture: Bool
    }

    /// The shipped default, also what a profile that sets nothing gets: every key at its default (`ProfileKeys`).
    public static let builtIn: Profile = {
        // Cannot throw: an empty file sets nothing that could be wrong.
        var profile = try! Profile(name: "default", file: "the built-in default", text: "")
        profile.description = "Continuous pitch, four octaves up from 110 Hz"
        return profile
    }()

    public init(
        name: String, description: String, level: LevelSettings, pitch: PitchMap, amplitude: Double,
        articulation: Articulation, chain: SoundChain, modes: [Mode],
        pressure: PressureSettings, tilt: TiltSettings, gestures: GestureSettings, lattice: LatticeSettings,
        speech: SpeechSettings, display: DisplaySettings, braille: BrailleSettings
    ) {
        self.name = name; self.description = description
        self.level = level; self.pitch = pitch; self.amplitude = amplitude; self.articulation = articulation
        self.chain = chain
        self.modes = modes; self.pressure = pressure; self.tilt = tilt; self.gestures = gestures; self.lattice = lattice
        self.speech = speech; self.display = display; self.braille = braille
    }
}
