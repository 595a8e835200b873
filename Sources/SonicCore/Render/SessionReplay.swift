/// Turns announcement text into mono samples at a given rate (the voice, offline).
public protocol SpeechSynthesis {
    func samples(for text: String, sampleRate: Double) -> [Float]
}

/// Plays a session log again, offline: each logged pen event goes through the same controller and
/// sound engine as it did live, at the sample its timestamp gives; logged mode changes switch the
/// mode and logged announcements are spoken over the ducked instrument, as they were. With the
/// session's own profile this reproduces what was heard; with another, how the session would have
/// sounded with it.
public struct SessionReplay {
    public let image: GrayImage
    public let profile: Profile
    public let sampleRate: Int
    /// The voice; nil renders without speech.
    public let speech: SpeechSynthesis?

    public init(image: GrayImage, profile: Profile, sampleRate: Int, speech: SpeechSynthesis?) {
        self.image = image
        self.profile = profile
        self.sampleRate = sampleRate
        self.speech = speech
    }

    /// After the last event, rendering goes on until the sound has died away (the reverb and echo
    /// tails, the last words) for this long, but never past `maximumTail`.
    public static let silenceToEnd = 0.1
    public static let maximumTail = 30.0
    static let silenceLevel: Float = 1e-5

    /// Interleaved stereo samples from the session's start to the end of its tail.
    public func render(_ records: [SessionRecord], start: StartRecord) -> [Float] {
        let rate = Double(sampleRate)
        let controls = SynthControls()
        let engine = SynthEngine(chain: profile.chain, sampleRate: rate, controls: controls)
        let voice = SpeechBuffer(capacity: Int(Self.maximumTail * rate))
        let renderer = VoicedRenderer(engine: engine, speech: voice, duckDecibels: profile.speech.duckDecibels,
                                      volume: profile.speech.volume)
        let instrument = Instrument(image: image, profile: profile, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 1), controls: controls)
        var output: [Float] = []
        func renderUntil(frame: Int) {
            let frames = frame - output.count / 2
            guard frames > 0 else { return }
            let offset = output.count
            output += repeatElement(0, count: frames * 2)
            output.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress! + offset, frames: frames, channels: 2) }
        }
        for record in records {
            guard let time = record.time else { continue }
            // Events logged slightly out of order (stamped on different paths) apply at once.
            renderUntil(frame: Int(((time - start.t) * rate).rounded()))
            switch record {
            case .viewport(_, let viewport): instrument.place(viewport)
            case .pen(let pen): instrument.handle(penEvent(replaying: pen, on: instrument))
            case .mode(_, let mode): instrument.set(mode: mode)
            case .cursor(_, let point): instrument.probe(at: point)
            case .cell(_, let cell, let ticks): instrument.setTickingCell(ticks ? cell : nil)
            case .speech(_, let text):
                guard let samples = speech?.samples(for: text, sampleRate: rate) else { break }
                // A new announcement interrupts the last, as live.
                voice.discardQueued()
                _ = samples.withUnsafeBufferPointer { voice.write($0) }
            case .start, .tag, .untag, .dropout: break
            }
        }
        // The tail: whole blocks until quiet long enough, or the limit.
        let quietFrames = Int(Self.silenceToEnd * rate)
        let limit = output.count / 2 + Int(Self.maximumTail * rate)
        var quiet = 0
        while quiet < quietFrames && output.count / 2 < limit {
            let from = output.count
            renderUntil(frame: output.count / 2 + SynthEngine.blockSize)
            let silent = !voice.hasQueuedSamples && output[from...].allSatisfy { abs($0) < Self.silenceLevel }
            quiet = silent ? quiet + SynthEngine.blockSize : 0
        }
        return output
    }

    /// The event the log describes. The log has no "in window" flag, but it is implied: a position
    /// over the image that was logged as not in the image was out of the window (or of proximity).
    private func penEvent(replaying pen: PenRecord, on instrument: Instrument) -> PenEvent {
        let pixel = instrument.viewport.imagePoint(rootX: pen.rootX, rootY: pen.rootY).nearestPixel
        let overImage = image.contains(pixelX: pixel.x, y: pixel.y)
        return PenEvent(time: pen.t, rootX: pen.rootX, rootY: pen.rootY, pressure: pen.pressure, tiltX: pen.tiltX,
                        tiltY: pen.tiltY, buttons: pen.buttons, inWindow: pen.inImage || !overImage)
    }
}

extension SessionRecord {
    /// When it happened (nil for the start record, which defines time zero).
    public var time: Double? {
        switch self {
        case .start: nil
        case .viewport(let t, _), .mode(let t, _), .speech(let t, _), .tag(let t, _), .untag(let t, _), .cursor(let t, _),
             .cell(let t, _, _), .dropout(let t, _): t
        case .pen(let pen): pen.t
        }
    }
}
