import RealModule

/// The sound side of the controller: turns pen events into synth targets, one way —
/// pen → pixel → level → pitch, with loudness and filter as the mode says.
public final class Instrument {
    public let image: GrayImage
    public let profile: Profile
    public let stretch: LevelStretch
    public let pitch: PitchMap
    public private(set) var viewport: Viewport
    public private(set) var mode: Mode
    /// The last event handled, for "where am I".
    public private(set) var lastRecord: PenRecord?
    private let controls: SynthControls

    public init(image: GrayImage, profile: Profile, statistics: SampleStatistics, viewport: Viewport, controls: SynthControls) {
        self.image = image
        self.profile = profile
        self.stretch = LevelStretch(statistics: statistics, lowPercentile: profile.lowPercentile,
                                    highPercentile: profile.highPercentile)
        self.pitch = PitchMap(baseFrequency: profile.baseFrequency, octaves: profile.octaves)
        self.viewport = viewport
        self.mode = profile.modes[0]
        self.controls = controls
    }

    public func place(_ viewport: Viewport) { self.viewport = viewport }

    /// Switches mode; the next pen event sounds the new way (the current sound follows at once).
    public func set(mode: Mode) {
        self.mode = mode
        if let last = lastRecord { controls.set(targets(for: last)) }
    }

    /// Handles one pen event: sets the synth's targets and returns what happened, for the session log.
    @discardableResult
    public func handle(_ event: PenEvent) -> PenRecord {
        let point = viewport.imagePoint(rootX: event.rootX, rootY: event.rootY)
        let pixel = point.nearestPixel
        let inImage = event.inWindow && image.contains(pixelX: pixel.x, y: pixel.y)
        let sample = inImage ? image[pixel.x, pixel.y] : 0
        var record = PenRecord(
            t: event.time, rootX: event.rootX, rootY: event.rootY, imageX: point.x, imageY: point.y,
            inImage: inImage, sample: Int(sample), level: inImage ? stretch.level(sample) : 0, pressure: event.pressure,
            tiltX: event.tiltX, tiltY: event.tiltY, buttons: event.buttons, mode: mode.rawValue, frequency: 0, amplitude: 0)
        let targets = targets(for: record)
        record.frequency = targets.frequency
        record.amplitude = targets.amplitude
        controls.set(targets)
        lastRecord = record
        return record
    }

    /// Silence, e.g. when the program quits.
    public func silence() { controls.set(.silent) }

    /// Sounds the pixel at `point` as a touch there would (the column cursor); nil returns the sound
    /// to the pen.
    public func probe(at point: ImagePoint?) {
        guard let point else { return controls.set(lastRecord.map(targets(for:)) ?? .silent) }
        let pixel = point.nearestPixel
        guard image.contains(pixelX: pixel.x, y: pixel.y) else { return }
        let level = stretch.level(image[pixel.x, pixel.y])
        controls.set(SynthTargets(frequency: pitch.frequency(level: level), amplitude: profile.amplitude))
    }

    /// The level (0...1) of the pixel under an image point, nil outside the image.
    public func level(at point: ImagePoint) -> Double? {
        let pixel = point.nearestPixel
        guard image.contains(pixelX: pixel.x, y: pixel.y) else { return nil }
        return stretch.level(image[pixel.x, pixel.y])
    }

    private func targets(for record: PenRecord) -> SynthTargets {
        let touching = record.inImage && record.buttons.contains(PenButtons.tip) && record.pressure > 0
        guard touching else { return .silent }
        var targets = SynthTargets(frequency: pitch.frequency(level: record.level), amplitude: profile.amplitude)
        switch mode {
        case .intensityPitch, .unitCellTagging:
            break
        case .pressureAmplitude:
            targets.amplitude = loudness(pressure: record.pressure)
        case .tiltFilter:
            targets.amplitude = loudness(pressure: record.pressure)
            applyTilt(PenTilt(tiltX: record.tiltX, tiltY: record.tiltY), to: &targets)
        }
        return targets
    }

    /// Silence at the tip threshold, full level at full pressure, shaped by the curve.
    func loudness(pressure: Double) -> Double {
        let settings = profile.pressure
        let above = (pressure - settings.threshold) / (1 - settings.threshold)
        return settings.fullLevel * settings.curve(min(max(above, 0), 1))
    }

    /// Upright is open and bright, flat is dark: the cutoff (a multiple of the pitch) falls evenly in
    /// octaves over the lean range. The direction of the lean sets the resonance — it rises from
    /// `resonanceBase` as the pen leans towards the user, and stays there leaning sideways or away,
    /// so a plain lean is a plain filter — or the stereo position (left to right, more the further
    /// it leans).
    func applyTilt(_ tilt: PenTilt, to targets: inout SynthTargets) {
        let settings = profile.tilt
        let lean = min(tilt.altitude / settings.leanRange, 1)
        let multiple = settings.cutoffUpright * Double.pow(settings.cutoffFlat / settings.cutoffUpright, lean)
        targets.cutoff = min(max(multiple * targets.frequency, 20), 20_000)
        targets.timbre = settings.timbre
        let direction = tilt.azimuth * Double.pi / 180
        switch settings.azimuth {
        case .resonance:
            let towards = max(0, Double.sin(direction)) * lean
            targets.resonance = settings.resonanceBase + (settings.resonanceTowards - settings.resonanceBase) * towards
        case .pan:
            targets.pan = Double.cos(direction) * lean
        }
    }
}
