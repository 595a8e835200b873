/// The controller: turns pen events into synth targets, one way — pen → pixel → level → pitch.
public final class Instrument {
    public static let modeName = "intensity-pitch"

    public let image: GrayImage
    public let profile: Profile
    public let stretch: LevelStretch
    public let pitch: PitchMap
    public private(set) var viewport: Viewport
    private let controls: SynthControls

    public init(image: GrayImage, profile: Profile, statistics: SampleStatistics, viewport: Viewport, controls: SynthControls) {
        self.image = image
        self.profile = profile
        self.stretch = LevelStretch(statistics: statistics, lowPercentile: profile.lowPercentile,
                                    highPercentile: profile.highPercentile)
        self.pitch = PitchMap(baseFrequency: profile.baseFrequency, octaves: profile.octaves)
        self.viewport = viewport
        self.controls = controls
    }

    public func place(_ viewport: Viewport) { self.viewport = viewport }

    /// Handles one pen event: sets the synth's targets and returns what happened, for the session log.
    @discardableResult
    public func handle(_ event: PenEvent) -> PenRecord {
        let point = viewport.imagePoint(rootX: event.rootX, rootY: event.rootY)
        let pixel = point.nearestPixel
        let inImage = event.inWindow && image.contains(pixelX: pixel.x, y: pixel.y)
        let sample = inImage ? image[pixel.x, pixel.y] : 0
        let level = inImage ? stretch.level(sample) : 0
        let touching = inImage && event.buttons.contains(PenButtons.tip) && event.pressure > 0
        let frequency = touching ? pitch.frequency(level: level) : 0
        let amplitude = touching ? profile.amplitude : 0
        controls.set(frequency: frequency, amplitude: amplitude)
        return PenRecord(
            t: event.time, rootX: event.rootX, rootY: event.rootY, imageX: point.x, imageY: point.y,
            inImage: inImage, sample: Int(sample), level: level, pressure: event.pressure,
            tiltX: event.tiltX, tiltY: event.tiltY, buttons: event.buttons, mode: Self.modeName,
            frequency: frequency, amplitude: amplitude)
    }

    /// Silence, e.g. when the pointer leaves the window or the program quits.
    public func silence() { controls.set(frequency: 0, amplitude: 0) }
}
