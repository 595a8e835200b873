/// Turns announcement text into mono samples at a given rate (the voice, offline).
public protocol SpeechSynthesis {
    func samples(for text: String, sampleRate: Double) -> [Float]
}

/// Plays a session log again, offline: each logged pen event goes through the same controller and
/// sound engine as it did live, at the sample its timestamp gives; logged mode changes switch the
/// mode and logged announcements are spoken over the ducked instrument, as they were. With the
/// session's own profile this reproduces what was heard; with another, how the session would have
/// sounded with it.
///
/// Records go in one at a time and the sound comes out as it is made, a fixed-size chunk at a time,
/// so a session of any length renders in the same small memory.
public final class SessionReplay {
    /// After the last event, rendering goes on until the sound has died away (the reverb and echo
    /// tails, the last words) for this long, but never past `maximumTail`.
    public static let silenceToEnd = 0.1
    public static let maximumTail = 30.0
    static let silenceLevel: Float = 1e-5
    /// Frames rendered at a time: whole engine blocks, so the sound is the same as in one long call.
    static let chunkFrames = 32 * SynthEngine.blockSize

    public let image: GrayImage
    public let sampleRate: Int
    /// Frames rendered so far, from the session's start.
    public private(set) var frames = 0
    private let startTime: Double
    private let speech: SpeechSynthesis?
    private let voice: SpeechBuffer
    private let renderer: VoicedRenderer
    private let sound: SessionSound
    private let stack: FrameStack?
    /// The session as the log has it so far.
    private var state: SessionState
    private let chunk: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - speech: the voice; nil renders without speech.
    ///   - spectra: a spectrum image's spectra, read again for the spectra the session played.
    ///   - stack: the stack whose frames the log steps through; nil for an image, whose `frame` records are left
    ///     alone (`render` refuses a log with frames beyond the stack's).
    public init(
        image: GrayImage, profile: Profile, sampleRate: Int, speech: SpeechSynthesis?, start: StartRecord,
        spectra: SpectrumVoice? = nil, stack: FrameStack? = nil
    ) {
        self.image = image
        self.stack = stack
        self.sampleRate = sampleRate
        self.speech = speech
        startTime = start.t
        let stack = SoundStack(profile: profile, sampleRate: sampleRate, speechSeconds: Self.maximumTail)
        voice = stack.speech
        renderer = stack.renderer
        sound = stack.sound(playing: image, spectra: spectra)
        state = sound.instrument.initialState
        chunk = .allocate(capacity: Self.chunkFrames * 2)
        chunk.initialize(repeating: 0)
    }

    deinit { chunk.deallocate() }

    /// The frame a logged time falls on.
    public func frame(at time: Double) -> Int { Int(((time - startTime) * Double(sampleRate)).rounded()) }

    /// Renders up to the record's time, handing the interleaved stereo sound to `output` as it is made,
    /// then applies the record.
    public func play<E: Error>(_ record: SessionRecord, into output: (UnsafeBufferPointer<Float>) throws(E) -> Void)
        throws(E)
    {
        guard let time = record.time else { return }
        // Events logged slightly out of order (stamped on different paths) apply at once.
        _ = try render(until: frame(at: time), into: output)
        switch record {
        case .viewport(let t, let viewport): sound.apply(.viewport(viewport), to: &state, at: t)
        case .pen(let pen): sound.apply(.pen(penEvent(replaying: pen)), to: &state, at: pen.t)
        case .mode(let t, let mode): sound.apply(.mode(mode), to: &state, at: t)
        case .cursor(let t, let point): sound.apply(.cursor(point), to: &state, at: t)
        case .cell(let t, let cell, let ticks): sound.apply(.cell(cell, ticks: ticks), to: &state, at: t)
        case .speech(_, let text, let after):
            guard state.soundPlays else { break }
            // A new announcement interrupts the last, as live, unless it was to follow it; an empty one only
            // silences it.
            if !after { voice.discardQueued() }
            guard let samples = speech?.samples(for: text, sampleRate: Double(sampleRate)) else { break }
            _ = samples.withUnsafeBufferPointer { voice.write($0) }
        case .sweep(let t, let sweep): sound.apply(.sweep(sweep), to: &state, at: t)
        case .guide(let t, let guidance): sound.apply(.guidance(guidance), to: &state, at: t)
        case .spectrum(let t, let request):
            // The same spectra reduced the same way give the same amplitudes as live; one that cannot be read is
            // silence.
            let levels =
                (try? sound.instrument.spectra?.levels(request))
                ?? SpectrumLevels(request: request, amplitudes: [])
            sound.apply(.spectrum(levels), to: &state, at: t)
        case .window(let t, let window):
            // The same window's map, made again from the file; the still pen's sound in it is logged after it.
            guard let cube = sound.instrument.spectra?.cube, let map = try? window.map(of: cube) else { break }
            state.window = window
            sound.apply(.playedImage(sound.instrument.preparation.prepare(map, ownStretch: true)), to: &state, at: t)
        case .frame(let t, let number):
            guard let frame = try? stack?.frame(number - 1) else { break }
            state.frame = number - 1
            sound.apply(.playedImage(sound.instrument.preparation.prepare(frame, ownStretch: false)), to: &state, at: t)
        case .view(let t, let diffractogram):
            // The same image's diffractogram, made again; the still pen's sound in it is logged after it.
            guard diffractogram != (state.diffractogram != nil) else { break }
            let shown = diffractogram ? ShownDiffractogram(of: sound.instrument) : nil
            sound.apply(.diffractogram(shown), to: &state, at: t)
        case .lattice(let t, let pixelSize):
            // The same finder on the same image (the frame played) finds the same columns as the session did.
            let image = state.diffractogram?.image.image ?? sound.instrument.image
            let lattice = LatticeColumns(finding: ColumnFinder(image: image), pixelSize: pixelSize)
            sound.apply(.lattice(lattice), to: &state, at: t)
        case .sound(_, .lost):
            state.soundPlays = false
            // Live, the voice was cut off as the server went.
            voice.discardQueued()
        case .sound(_, .back): state.soundPlays = true
        case .start, .tag, .untag, .dropout, .buffer, .delay, .late, .braille, .lesson: break
        }
    }

    /// The tail after the last record: whole blocks until quiet for `silenceToEnd`, or `maximumTail`.
    public func finish<E: Error>(into output: (UnsafeBufferPointer<Float>) throws(E) -> Void) throws(E) {
        let quietFrames = Int(Self.silenceToEnd * Double(sampleRate))
        let limit = frames + Int(Self.maximumTail * Double(sampleRate))
        var quiet = 0
        while quiet < quietFrames && frames < limit {
            let silent = try render(until: frames + SynthEngine.blockSize, into: output) && !voice.hasQueuedSamples
            quiet = silent ? quiet + SynthEngine.blockSize : 0
        }
    }

    /// The most frames `finish` adds after the last record.
    public var maximumTailFrames: Int { Int(Self.maximumTail * Double(sampleRate)) + SynthEngine.blockSize }

    /// Renders from where it stands to `frame`, chunk by chunk; whether all of it was below the silence level.
    private func render<E: Error>(until frame: Int, into output: (UnsafeBufferPointer<Float>) throws(E) -> Void)
        throws(E) -> Bool
    {
        var silent = true
        while frames < frame {
            let n = min(Self.chunkFrames, frame - frames)
            if !state.soundPlays {
                chunk.update(repeating: 0)
            } else {
                renderer.render(into: chunk.baseAddress!, frames: n, channels: 2)
            }
            let sound = UnsafeBufferPointer(rebasing: chunk[0..<(2 * n)])
            if silent { silent = !sound.contains { abs($0) >= Self.silenceLevel } }
            try output(sound)
            frames += n
        }
        return silent
    }

    /// The event the log describes. The log has no "in window" flag, but it is implied: a position
    /// over the image that was logged as not in the image was out of the window (or of proximity).
    private func penEvent(replaying pen: PenRecord) -> PenEvent {
        let pixel = state.viewport.imagePoint(rootX: pen.rootX, rootY: pen.rootY).nearestPixel
        let overImage = image.contains(pixelX: pixel.x, y: pixel.y)
        return PenEvent(
            time: pen.t, rootX: pen.rootX, rootY: pen.rootY, pressure: pen.pressure, tiltX: pen.tiltX,
            tiltY: pen.tiltY, buttons: pen.buttons, inWindow: pen.inImage || !overImage)
    }
}

extension SessionRecord {
    /// When it happened (nil for the start record, which defines time zero).
    public var time: Double? {
        switch self {
        case .start: nil
        case .viewport(let t, _), .mode(let t, _), .speech(let t, _, _), .tag(let t, _), .untag(let t, _),
            .cursor(let t, _),
            .cell(let t, _, _), .dropout(let t, _, _), .buffer(let t, _), .delay(let t, _), .late(let t, _, _),
            .lattice(let t, _),
            .sound(let t, _),
            .sweep(let t, _),
            .guide(let t, _), .spectrum(let t, _), .window(let t, _), .frame(let t, _), .view(let t, _),
            .braille(let t, _), .lesson(let t, _):
            t
        case .pen(let pen): pen.t
        }
    }
}
