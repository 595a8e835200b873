@testable import SonicCore

/// What plays an image in the tests, built the one way: an instrument on `image` with `profile`, the
/// targets it sets and the session's state, the image shown at `scale` from (0, 0); every change goes
/// through the session's one way to the sound, as in `play` and `render`.
final class TestPlayer {
    let controls = SynthControls()
    let sound: SessionSound
    var state: SessionState

    init(_ image: GrayImage, profile: Profile = .plainMapping, scale: Double = 1) {
        sound = SessionSound(
            instrument: Instrument(image: image, profile: profile, statistics: SampleStatistics(image)),
            controls: controls)
        state = sound.instrument.initialState
        state.viewport = Viewport(originX: 0, originY: 0, scale: scale)
    }

    var instrument: Instrument { sound.instrument }
    /// The latest targets set.
    var targets: SynthTargets { controls.targets }

    @discardableResult
    func handle(_ event: PenEvent) -> PenRecord { sound.apply(.pen(event), to: &state, at: event.time)! }

    func set(mode: Mode) { sound.apply(.mode(mode), to: &state, at: 0) }

    func set(lattice: LatticeColumns?) { sound.apply(.lattice(lattice), to: &state, at: 0) }

    /// A controller of a session on this image (the state starting afresh, as in `play`), its window
    /// placed to show the image at this player's scale from (0, 0).
    func controller(
        named name: String = "test.png", tags: TagBook = TagBook(), pixelSize: PixelSize? = nil,
        columnSpacing: Double? = nil, frames: SessionFrames? = nil
    ) -> SessionController {
        let controller = SessionController(
            sound: sound, opened: OpenedImage(fileName: name), tags: tags, pixelSize: pixelSize,
            columnSpacing: columnSpacing, frames: frames)
        let image = instrument.image
        _ = controller.place(
            window: ScreenRect(
                x: 0, y: 0, width: Int((Double(image.width) * state.viewport.scale).rounded()),
                height: Int((Double(image.height) * state.viewport.scale).rounded())))
        return controller
    }
}

extension Profile {
    /// The built-in profile without its headroom: level 1 at the 99.5th percentile, as the tests' pitches are worked
    /// out by hand (the headroom is tested on its own).
    static var plainMapping: Profile {
        var profile = Profile.builtIn
        if case .percentiles(let low, let high, _) = profile.level.range {
            profile.level.range = .percentiles(low: low, high: high, headroom: 0)
        }
        return profile
    }
}
