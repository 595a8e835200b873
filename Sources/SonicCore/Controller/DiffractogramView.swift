/// The image's diffractogram shown and played in its place: its power spectrum's logarithm, centred, drawn at the
/// image's size, so that the view, the pen and the sweeps play it as they play the image.
public struct ShownDiffractogram: Sendable, Equatable {
    public let diffractogram: Diffractogram
    /// What shows and plays, through its own stretch.
    public let played: PlayedImage
    /// The image it took the place of, which plays again when it goes.
    let image: PlayedImage

    /// How near a reflection's peak (or its Friedel mate's) the nib names it: a share of the diffractogram's side,
    /// and at least a few of its pixels, about as wide as the peak is drawn.
    static let reach = 0.02
    static let leastReach = 3.0

    /// The diffractogram of the image `instrument` plays, ready to play in its place.
    public init(of instrument: Instrument) {
        let image = PlayedImage(image: instrument.image, stretch: instrument.stretch, tables: instrument.sweepTables)
        let diffractogram = Diffractogram(image: instrument.image)
        self.diffractogram = diffractogram
        self.image = image
        played = instrument.preparation.prepare(
            Self.picture(diffractogram, width: instrument.image.width, height: instrument.image.height),
            ownStretch: true)
    }

    /// The same pictures are the same view.
    public static func == (a: ShownDiffractogram, b: ShownDiffractogram) -> Bool {
        a.played == b.played && a.image == b.image
    }

    /// The diffractogram's levels at `width` × `height`: each pixel the highest of those it covers, so that a
    /// reflection's peak shows at any size.
    static func picture(_ diffractogram: Diffractogram, width: Int, height: Int) -> GrayImage {
        let size = diffractogram.size
        func covered(_ k: Int, of count: Int) -> Range<Int> {
            let start = k * size / count
            return start..<max(start + 1, (k + 1) * size / count)
        }
        let columns = (0..<width).map { covered($0, of: width) }
        var samples = [UInt16](repeating: 0, count: width * height)
        let levels = diffractogram.image.samples
        for y in 0..<height {
            let rows = covered(y, of: height)
            for x in 0..<width {
                var highest: Float = 0
                for v in rows { for u in columns[x] { highest = max(highest, levels[v * size + u]) } }
                samples[y * width + x] = UInt16(highest)
            }
        }
        return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
    }

    /// The point of the diffractogram under a point of the picture.
    func diffractogramPoint(_ point: ImagePoint) -> ImagePoint {
        let size = Double(diffractogram.size)
        let sx = size / Double(played.image.width), sy = size / Double(played.image.height)
        return ImagePoint(x: (point.x + 0.5) * sx - 0.5, y: (point.y + 0.5) * sy - 0.5)
    }

    /// The reflection whose peak lies nearest `point` of the picture, if within reach.
    public func reflection(near point: ImagePoint) -> Reflection? {
        let radius = max(Self.leastReach, Self.reach * Double(diffractogram.size))
        return diffractogram.reflection(near: diffractogramPoint(point), within: radius).map {
            diffractogram.reflections[$0]
        }
    }

    /// The frequency at `point` of the picture, in cycles per pixel of the image.
    public func frequency(at point: ImagePoint) -> PixelVector {
        diffractogram.frequency(at: diffractogramPoint(point))
    }
}

/// The key that shows the image's diffractogram in its place, and the image again; and what "where am I" says on it.
struct DiffractogramView {
    /// The last diffractogram made, shown again without being made again while the same image plays.
    private var made: ShownDiffractogram?

    /// The diffractogram in the image's place, or the image back: said, and shown, played and logged.
    mutating func toggle(in state: SessionState, instrument: Instrument) -> [ControllerOutput] {
        guard state.diffractogram == nil else { return [.diffractogram(nil), .speak(Phrases.imageShown)] }
        let shown = made.flatMap { $0.image.image == instrument.image ? $0 : nil } ?? ShownDiffractogram(of: instrument)
        made = shown
        return [.diffractogram(shown), .speak(Phrases.diffractogramShown(shown.diffractogram.reflections.count))]
    }

    /// "reflection 390 picometres along 0 degrees, grain 1, intensity 82 percent", or how far from the centre the
    /// nib is where no reflection is near.
    static func said(at point: ImagePoint, level: Double, in shown: ShownDiffractogram, pixelSize: PixelSize?)
        -> String
    {
        let place =
            shown.reflection(near: point).map { Phrases.reflection($0, pixelSize: pixelSize) }
            ?? Phrases.noReflection(fromCentre: shown.frequency(at: point).length, pixelSize: pixelSize)
        return place + ", intensity \(Phrases.percent(level)) percent"
    }
}
