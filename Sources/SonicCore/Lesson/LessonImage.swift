import RealModule

/// The images the lesson plays, made by `Synthetic/` at low noise, all of one size so that each takes the place of
/// the one before in the same session; and what each holds, for checking the answers.
public enum LessonImage: String, Sendable, CaseIterable {
    /// A square lattice with five bright columns, three dim ones, three vacancies and two interstitials.
    case defects
    /// A hexagonal crystal with one bright column and one vacancy, beside amorphous material.
    case crystal
    /// A perovskite-like crystal in two polar domains: its middle band displaced up, the rest down.
    case domains
    /// An EDS spectrum image at high counts: iron in a round region off the middle, nickel all around it, silicon
    /// everywhere, weak. It plays as its total counts; its spectra are the lesson's spectra (`spectra`).
    case spectrum

    /// The spectra the spectrum mode plays throughout a lesson: those of `.spectrum`, made once.
    public static var spectra: SpectrumCube { spectrumSample.cube }

    private static let spectrumSample = SpectrumSample.ironNickelSilicon(
        .high, enlargedBy: OverviewSamples.size / SpectrumSample.side)

    /// The image with atom columns; nil for the spectrum image.
    var sample: OverviewSample? {
        switch self {
        case .defects: OverviewSamples.defects(.low)
        case .crystal: OverviewSamples.crystalBesideAmorphous(.low)
        case .domains: OverviewSamples.polarDomains(.low)
        case .spectrum: nil
        }
    }

    public func render() -> GrayImage {
        if let sample { return sample.render() }
        let side = OverviewSamples.size
        // Spectra held in memory are always read: the blank image is never played.
        return (try? Self.spectra.totalCounts().image)
            ?? GrayImage(
                width: side, height: side, sampleType: .float32, samples: [Float](repeating: 0, count: side * side))
    }

    /// Where its columns, bright columns, vacancies and domain walls are, as made; or where its elements are.
    public var facts: LessonFacts {
        guard let sample else {
            let places = Self.spectrumSample.truth.map {
                ElementRegion(symbol: $0.symbol, width: Self.spectrumSample.width, present: $0.present)
            }
            return LessonFacts(spacing: 0, columns: [], bright: [], vacancies: [], walls: [], places: places)
        }
        let scene = sample.scene
        let sites = scene.sitePositions(margin: 0)
        func places(_ kind: OverviewFeature.Kind) -> [ImagePoint] {
            sample.truth.features.filter { $0.kind == kind }.map(\.position)
        }
        return LessonFacts(
            spacing: min(Double.hypot(scene.a.x, scene.a.y), Double.hypot(scene.b.x, scene.b.y)),
            columns: sites.filter { !$0.isVacant }.map { ImagePoint(x: $0.x, y: $0.y) },
            bright: places(.brightColumn), vacancies: places(.vacancy),
            walls: sample.truth.features.filter { $0.kind == .domainWall }.map(\.points))
    }
}

/// What a lesson image holds, in image pixels: the answers' truth.
public struct LessonFacts: Sendable {
    /// The shortest lattice vector's length.
    public var spacing: Double
    /// Every column's centre.
    public var columns: [ImagePoint]
    public var bright: [ImagePoint]
    public var vacancies: [ImagePoint]
    /// Each domain wall's ends, from the image's left edge to its right, the uppermost first.
    public var walls: [[ImagePoint]]
    /// A spectrum image's elements, where they are.
    public var places: [ElementRegion] = []

    /// Of `points`, the nearest to `point`, and how far it is.
    static func nearest(of points: [ImagePoint], to point: ImagePoint) -> (point: ImagePoint, distance: Double)? {
        points.map { (point: $0, distance: Double.hypot($0.x - point.x, $0.y - point.y)) }.min {
            $0.distance < $1.distance
        }
    }

    /// Where a wall crosses the vertical through `x`: its height there.
    static func height(of wall: [ImagePoint], at x: Double) -> Double? {
        guard let start = wall.first, let end = wall.last, end.x != start.x else { return nil }
        return start.y + (x - start.x) / (end.x - start.x) * (end.y - start.y)
    }
}

/// Where an element of a spectrum image is: its pixels, row by row.
public struct ElementRegion: Sendable {
    public var symbol: String
    public var width: Int
    public var present: [Bool]

    /// As the lesson says it: "iron".
    public var name: String { Element.named(symbol)?.name ?? symbol }
    /// Whether it is in every pixel.
    public var everywhere: Bool { !present.contains(false) }

    /// Whether the pixel under `point` holds it.
    public func holds(_ point: ImagePoint) -> Bool {
        let x = Int(point.x.rounded()), y = Int(point.y.rounded())
        guard x >= 0, y >= 0, x < width, y * width + x < present.count else { return false }
        return present[y * width + x]
    }

    /// Its pixel nearest `point`, if it is anywhere.
    public func nearest(to point: ImagePoint) -> ImagePoint? {
        let pixels = present.indices.lazy.filter { present[$0] }.map {
            ImagePoint(x: Double($0 % width), y: Double($0 / width))
        }
        return pixels.min {
            Double.hypot($0.x - point.x, $0.y - point.y) < Double.hypot($1.x - point.x, $1.y - point.y)
        }
    }
}
