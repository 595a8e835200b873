/// One line of the session log (JSON Lines). `t` is seconds of CLOCK_MONOTONIC.
/// The field names and order are a stable, documented format: later tools replay these logs.
public enum SessionRecord: Sendable, Equatable {
    case start(StartRecord)
    case viewport(t: Double, Viewport)
    case pen(PenRecord)
    case mode(t: Double, Mode)
    /// The voice was asked to say `text`, cutting off what it was saying, or (`after`) once that was said.
    case speech(t: Double, text: String, after: Bool = false)
    case tag(t: Double, Tag)
    case untag(t: Double, id: Int)
    /// The column cursor sounds this image point; nil: it fell silent.
    case cursor(t: Double, ImagePoint?)
    /// The unit cell as it now is (nil: none yet), and whether the pen ticks at its boundaries.
    case cell(t: Double, UnitCell?, ticks: Bool)
    /// The sound ran dry (a crackle): `count` times so far this session, the last of them at `at`
    /// (nil: not known), which is when the audio side noticed it, a little before `t`.
    case dropout(t: Double, count: Int, at: Double?)
    /// The sound server keeps `seconds` of sound ahead of the speaker from now on: longer after the sound ran dry,
    /// shorter again after a quiet minute (`BufferLength`).
    case buffer(t: Double, seconds: Double)
    /// Each change is heard `seconds` after it was asked for, from now on: the live output's delay
    /// (`ChangeTiming`), which grows should the server hold its sound longer than it said.
    case delay(t: Double, seconds: Double)
    /// The live sound made a change later than it was due (the change was queued after the frames of
    /// its moment were rendered): `count` times so far this session, the last `by` seconds late.
    case late(t: Double, count: Int, by: Double)
    /// Every column is found and the lattice read from them (`render` reads it again from the image), with the
    /// pixel size its displacements are heard in (nil: pixels).
    case lattice(t: Double, pixelSize: PixelSize?)
    /// The sound server went away (nothing was heard from then on), or a server plays again.
    case sound(t: Double, SoundState)
    /// A sweep started; nil: the one playing was stopped before its end.
    case sweep(t: Double, Sweep?)
    /// The pen is guided to a place from now on; nil: the guidance ended.
    case guide(t: Double, Guidance?)
    /// The spectrum bank plays the spectra within `radius` of this pixel, summed, from now on (`render` reads them
    /// again from the file).
    case spectrum(t: Double, SpectrumRequest)
    /// A spectrum image's energy window, whose map plays and shows from now on (`render` makes it again from the
    /// file).
    case window(t: Double, PlayedWindow)
    /// Frame `number` of the stack (from 1, as said) plays from now on.
    case frame(t: Double, number: Int)
    /// The image's diffractogram shows and plays in its place from now on, or (false) the image again.
    case view(t: Double, diffractogram: Bool)
    /// What the braille display shows from now on, or that one was reached or lost.
    case braille(t: Double, BrailleShown)
    /// Something happened in the lesson (`sonic-atomic learn`): a step started, was passed, missed or skipped, or
    /// the course was done; with where the user has got to since.
    case lesson(t: Double, LessonEvent)

    public var jsonLine: String {
        var line: JSONLine
        switch self {
        case .start(let s):
            line = JSONLine(type: "start", t: s.t)
            line.add("image", s.image)
            line.add("imageNumber", s.imageNumber)
            line.add("width", s.width)
            line.add("height", s.height)
            line.add("bitDepth", s.bitDepth)
            line.add("sampleType", s.sampleType)
            line.add("profile", s.profile)
            line.add("sampleRate", s.sampleRate)
            if let frames = s.frames { line.add("frames", frames.rawValue) }
            if let voice = s.voice { line.add("voice", voice) }
            if let rate = s.rate { line.add("rate", rate) }
        case .viewport(let t, let v):
            line = JSONLine(type: "viewport", t: t)
            line.add("originX", v.originX)
            line.add("originY", v.originY)
            line.add("scale", v.scale)
        case .pen(let p):
            line = JSONLine(type: "pen", t: p.t)
            line.add("x", p.rootX)
            line.add("y", p.rootY)
            line.add("ix", p.imageX)
            line.add("iy", p.imageY)
            line.add("inImage", p.inImage)
            line.add("sample", p.sample)
            line.add("level", p.level)
            line.add("pressure", p.pressure)
            line.add("tiltX", p.tiltX)
            line.add("tiltY", p.tiltY)
            line.add("buttons", p.buttons.list)
            line.add("mode", p.mode)
            line.add("frequency", p.frequency)
            line.add("amplitude", p.amplitude)
        case .mode(let t, let mode):
            line = JSONLine(type: "mode", t: t)
            line.add("mode", mode.rawValue)
        case .speech(let t, let text, let after):
            line = JSONLine(type: "speech", t: t)
            line.add("text", text)
            if after { line.add("after", true) }
        case .tag(let t, let tag):
            line = JSONLine(type: "tag", t: t)
            line.add("id", tag.id)
            line.add("ix", tag.x)
            line.add("iy", tag.y)
            line.add("snapped", tag.snapped)
        case .untag(let t, let id):
            line = JSONLine(type: "untag", t: t)
            line.add("id", id)
        case .cursor(let t, let point):
            line = JSONLine(type: "cursor", t: t)
            if let point {
                line.add("ix", point.x)
                line.add("iy", point.y)
            }
        case .cell(let t, let cell, let ticks):
            line = JSONLine(type: "cell", t: t)
            line.add("ticks", ticks)
            if let cell {
                line.add("ox", cell.origin.x)
                line.add("oy", cell.origin.y)
                line.add("ax", cell.a.x)
                line.add("ay", cell.a.y)
                line.add("bx", cell.b.x)
                line.add("by", cell.b.y)
            }
        case .dropout(let t, let count, let at):
            line = JSONLine(type: "dropout", t: t)
            line.add("count", count)
            if let at { line.add("at", at) }
        case .buffer(let t, let seconds):
            line = JSONLine(type: "buffer", t: t)
            line.add("seconds", seconds)
        case .delay(let t, let seconds):
            line = JSONLine(type: "delay", t: t)
            line.add("seconds", seconds)
        case .late(let t, let count, let by):
            line = JSONLine(type: "late", t: t)
            line.add("count", count)
            line.add("by", by)
        case .lattice(let t, let pixelSize):
            line = JSONLine(type: "lattice", t: t)
            if let pixelSize { line.add("pixelSize", pixelSize.picometres) }
        case .sound(let t, let state):
            line = JSONLine(type: "sound", t: t)
            switch state {
            case .lost(let reason):
                line.add("playing", false)
                line.add("reason", reason)
            case .back(let server):
                line.add("playing", true)
                line.add("server", server)
            }
        case .sweep(let t, let sweep):
            line = JSONLine(type: "sweep", t: t)
            if let sweep {
                line.add("kind", sweep.kind)
                if let index = sweep.index { line.add("index", index) }
            }
        case .guide(let t, let guidance):
            line = JSONLine(type: "guide", t: t)
            if let guidance {
                line.add("ix", guidance.target.x)
                line.add("iy", guidance.target.y)
                line.add("radius", guidance.radius)
            }
        case .spectrum(let t, let request):
            line = JSONLine(type: "spectrum", t: t)
            line.add("px", request.x)
            line.add("py", request.y)
            line.add("radius", request.radius)
        case .window(let t, let window):
            line = JSONLine(type: "window", t: t)
            line.add("start", window.start)
            line.add("end", window.end)
            line.add("background", window.background)
        case .frame(let t, let number):
            line = JSONLine(type: "frame", t: t)
            line.add("number", number)
        case .view(let t, let diffractogram):
            line = JSONLine(type: "view", t: t)
            line.add("shows", diffractogram ? "diffractogram" : "image")
        case .braille(let t, let shown):
            line = JSONLine(type: "braille", t: t)
            switch shown {
            case .text(let text): line.add("text", text)
            case .picture(let dots): line.add("picture", dots)
            case .display(let columns, let rows):
                line.add("columns", columns)
                line.add("rows", rows)
            case .lost(let reason): line.add("lost", reason)
            }
        case .lesson(let t, let event):
            line = JSONLine(type: "lesson", t: t)
            line.add("event", event.what.rawValue)
            line.add("step", event.step)
            if let image = event.image { line.add("image", image) }
            line.add("next", event.progress.step + 1)
            line.add("passed", event.progress.passed)
            line.add("tries", event.progress.tries)
        }
        return line.result
    }
}

/// What a `braille` record says.
public enum BrailleShown: Sendable, Equatable {
    /// The display shows this text, its rows a line each.
    case text(String)
    /// The display shows the tactile picture: its rows of Unicode braille, a line each.
    case picture(String)
    /// brltty was reached, with a display of this size.
    case display(columns: Int, rows: Int)
    /// brltty went away, for this reason.
    case lost(String)
}

/// Whether the session's sound plays.
public enum SoundState: Sendable, Equatable {
    /// The sound server went away, for this reason.
    case lost(reason: String)
    /// This server ("PipeWire", "PulseAudio") plays again.
    case back(server: String)
}

public struct StartRecord: Sendable, Equatable {
    public var t: Double
    public var image: String
    /// Which image of the file (1-based among its images).
    public var imageNumber: Int
    public var width: Int
    public var height: Int
    public var bitDepth: Int
    /// How the file stores a sample: "uint16", "float32" … (`SampleType`).
    public var sampleType: String
    public var profile: String
    public var sampleRate: Int
    /// How a stack's frames were combined into the image played; nil when they play one by one (or for an image).
    public var frames: FrameCombination?
    /// The voice and speech rate the session spoke with (so a render speaks alike).
    public var voice: String?
    public var rate: Int?

    public init(
        t: Double, image: String, imageNumber: Int = 1, width: Int, height: Int, bitDepth: Int,
        sampleType: String, profile: String, sampleRate: Int, frames: FrameCombination? = nil, voice: String? = nil,
        rate: Int? = nil
    ) {
        self.t = t; self.image = image; self.imageNumber = imageNumber; self.width = width; self.height = height
        self.bitDepth = bitDepth; self.sampleType = sampleType; self.profile = profile; self.sampleRate = sampleRate
        self.frames = frames; self.voice = voice; self.rate = rate
    }
}

/// A handled pen event: where it was, what it touched and what the synth was told.
public struct PenRecord: Sendable, Equatable {
    public var t: Double
    public var rootX: Double
    public var rootY: Double
    public var imageX: Double
    public var imageY: Double
    public var inImage: Bool
    /// The raw sample of the pixel under the nib, in the file's units; 0 outside the image.
    public var sample: Double
    public var level: Double
    public var pressure: Double
    public var tiltX: Double
    public var tiltY: Double
    public var buttons: PenButtons
    public var mode: String
    /// The synth targets this event set (0 when silent).
    public var frequency: Double
    public var amplitude: Double

    public init(
        t: Double, rootX: Double, rootY: Double, imageX: Double, imageY: Double, inImage: Bool, sample: Double,
        level: Double, pressure: Double, tiltX: Double, tiltY: Double, buttons: PenButtons, mode: String,
        frequency: Double, amplitude: Double
    ) {
        self.t = t; self.rootX = rootX; self.rootY = rootY; self.imageX = imageX; self.imageY = imageY
        self.inImage = inImage; self.sample = sample; self.level = level; self.pressure = pressure
        self.tiltX = tiltX; self.tiltY = tiltY; self.buttons = buttons; self.mode = mode
        self.frequency = frequency; self.amplitude = amplitude
    }
}
