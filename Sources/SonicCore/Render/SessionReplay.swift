/// Plays a session log again, offline: each logged pen event goes through the same controller and
/// sound engine as it did live, at the sample its timestamp gives. With the session's own profile
/// this reproduces what was heard; with another, how the session would have sounded with it.
public struct SessionReplay {
    public let image: GrayImage
    public let profile: Profile
    public let sampleRate: Int

    public init(image: GrayImage, profile: Profile, sampleRate: Int) {
        self.image = image
        self.profile = profile
        self.sampleRate = sampleRate
    }

    /// After the last event, rendering goes on until the sound has died away (the reverb and echo
    /// tails) for this long, but never past `maximumTail`.
    public static let silenceToEnd = 0.1
    public static let maximumTail = 10.0
    static let silenceLevel: Float = 1e-5

    /// Interleaved stereo samples from the session's start to the end of its tail.
    public func render(_ records: [SessionRecord], start: StartRecord) -> [Float] {
        let controls = SynthControls()
        let engine = SynthEngine(chain: profile.chain, sampleRate: Double(sampleRate), controls: controls)
        let statistics = SampleStatistics(image)
        let instrument = Instrument(image: image, profile: profile, statistics: statistics,
                                    viewport: Viewport(originX: 0, originY: 0, scale: 1), controls: controls)
        var output: [Float] = []
        func renderUntil(frame: Int) {
            let frames = frame - output.count / 2
            guard frames > 0 else { return }
            let offset = output.count
            output += repeatElement(0, count: frames * 2)
            output.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress! + offset, frames: frames, channels: 2) }
        }
        for record in records {
            let time: Double
            switch record {
            case .start: continue
            case .viewport(let t, _): time = t
            case .pen(let pen): time = pen.t
            }
            // Events logged slightly out of order (stamped on different paths) apply at once.
            renderUntil(frame: Int(((time - start.t) * Double(sampleRate)).rounded()))
            switch record {
            case .viewport(_, let viewport): instrument.place(viewport)
            case .pen(let pen): instrument.handle(penEvent(replaying: pen, on: instrument))
            case .start: break
            }
        }
        // The tail: whole blocks until quiet long enough, or the limit.
        let quietFrames = Int(Self.silenceToEnd * Double(sampleRate))
        let limit = output.count / 2 + Int(Self.maximumTail * Double(sampleRate))
        var quiet = 0
        while quiet < quietFrames && output.count / 2 < limit {
            let from = output.count
            renderUntil(frame: output.count / 2 + SynthEngine.blockSize)
            quiet = output[from...].allSatisfy { abs($0) < Self.silenceLevel } ? quiet + SynthEngine.blockSize : 0
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
