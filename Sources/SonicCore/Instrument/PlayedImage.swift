/// An image made ready to play in place of the one played (a stack's frame, an energy window's map): the stretch it
/// plays through and the sweeps' tables, both found from its samples, which the session does away from its event
/// loop.
public struct PlayedImage: Sendable, Equatable {
    public let image: GrayImage
    public let stretch: LevelStretch
    let tables: SweepTables

    /// The tables follow from the image and the stretch.
    public static func == (a: PlayedImage, b: PlayedImage) -> Bool { a.image == b.image && a.stretch == b.stretch }
}

/// What makes an image ready to play for an instrument: its profile, and the stretch it plays through. Values only,
/// so that it works on any thread.
public struct ImagePreparation: Sendable {
    let profile: Profile
    let stretch: LevelStretch

    /// `image` through its own stretch (a window's map), or through the one played now (the frames of a stack, so
    /// that a frame brighter than another sounds higher).
    public func prepare(_ image: GrayImage, ownStretch: Bool) -> PlayedImage {
        let stretch = ownStretch ? profile.level.stretch(SampleStatistics(image)) : self.stretch
        return PlayedImage(
            image: image, stretch: stretch,
            tables: SweepTables(image: image, profile: profile, stretch: stretch))
    }
}
