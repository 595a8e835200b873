import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Say what an image shows as a whole: what it is (a lattice, particles, a diffraction pattern, regions or "
            + "noise), then for a lattice where the crystal is and what stands out and where.",
        discussion: """
            First a summary of at most 60 words, most important first, whose first line stands alone and says what \
            the image is; then the details, one a line. A diffraction pattern (one bright direct beam with spots on \
            a lattice or rings about it, or any image its file calibrates in reciprocal lengths) is told by its \
            centre, its spots' reciprocal lattice or its rings' radii, their ratios and d spacings (in picometres \
            with the file's reciprocal calibration). Particles on a support are counted and sized (diameters in \
            nanometres with a pixel size, else in pixels), the largest and smallest placed, touching ones named, \
            each with its place and coordinates. A spectrum image (or, by default, a file holding one) first names \
            the elements its spectra show above their background and where each is ("Fe in a patch at the centre, \
            15 percent of the area; Si everywhere, weak."), then each with its line and centre, and any \
            unidentified peak. An image with none of these is told by its bright and dark \
            regions, or called noise when nothing stands out from it. A stack's first frame is described, and \
            the summary ends with what changes across its frames: how far and which way the image drifts, and \
            whether it grows brighter or dimmer. For a lattice: the lattice, the grains, the \
            reflections, the crystal's extent and outline, and each feature (grain boundaries, interfaces, dislocations, domain walls, bright and dim columns, vacancies, \
            interstitials) with its place and coordinates, most important first, \
            and how the columns' brightness changes across the image. Only what stands out from the image's own \
            noise is reported. Coordinates are image pixels: (0, 0) is the centre of the top-left pixel, y down. \
            Lengths are in picometres with a pixel size (--pixel-size, or the file's calibration), else in pixels.
            """)

    @Argument(help: "An image file: PNG, DM3/DM4, TIFF, EMD, HyperSpy (.hspy) or Bruker (.bcf).")
    var image: String

    @OptionGroup var imageChoice: ImageChoice

    @OptionGroup var pixelSize: PixelSizeChoice

    @Flag(help: "Print one JSON object instead of sentences.")
    var json = false

    func run() throws {
        let opened = try openImage(image, number: imageChoice.number, summedSpectrum: true)
        let scale = pixelSize.size ?? opened.entry.calibration.pixelSize
        // A reciprocal calibration gives a diffraction pattern's d spacings, unless a pixel size is given instead.
        let reciprocal = scale == nil ? opened.entry.calibration.reciprocalPerPixel : nil
        let overview = ImageOverview(image: opened.image, pixelSize: scale, reciprocalPerPixel: reciprocal)
        // A stack: its first frame described, then what changes across its frames.
        var changes: StackChanges?
        if case .stack(let stack) = opened.entry.content {
            changes = StackChanges(frames: (0..<stack.count).compactMap { try? stack.frame($0) })
        }
        let elements: FoundElements?
        do { elements = try FoundElements(in: opened, chosen: imageChoice.number) } catch {
            throw fail("cannot read the spectra of \(image): \(error)", status: .badInput)
        }
        print(
            json
                ? Self.json(overview, pixelSize: scale, changes: changes, elements: elements)
                : Self.text(overview, changes: changes, pixelSize: scale, elements: elements), terminator: "")
    }

    /// The summary, a sentence a line (a spectrum image's elements first, a stack's changes last), then the
    /// details.
    static func text(
        _ overview: ImageOverview, changes: StackChanges?, pixelSize: PixelSize?, elements: FoundElements? = nil
    ) -> String {
        let stack = changes.map { [Phrases.stackChanges($0, pixelSize: pixelSize)] } ?? []
        let summary = (elements.map { [$0.sentence] } ?? []) + overview.summary + stack
        let details = (elements?.details ?? []) + overview.details
        return (summary + ["Details:"] + details).joined(separator: "\n") + "\n"
    }

    /// The documented JSON, built by hand: keys in the documented order, numbers to full precision; lengths in
    /// pixels, and in picometres too with a pixel size.
    static func json(
        _ overview: ImageOverview, pixelSize: PixelSize?, changes: StackChanges?, elements: FoundElements? = nil
    ) -> String {
        func number(_ value: Double) -> String { JSONLine.number(value) }
        func vector(_ v: PixelVector) -> String { "[\(number(v.x)),\(number(v.y))]" }
        func points(_ points: [ImagePoint]) -> String {
            "[" + points.map { "[\(number($0.x)),\(number($0.y))]" }.joined(separator: ",") + "]"
        }
        let lattice = overview.lattice.map { l in
            let sublattices = l.sublattices.map {
                "{\"columns\":\($0.columns),\"relative_intensity\":\(number($0.relativeIntensity))}"
            }
            return "{\"type\":\(JSONLine.quoted(l.kind.rawValue)),\"a_px\":\(number(l.a)),\"b_px\":\(number(l.b)),"
                + "\"gamma_deg\":\(number(l.gamma)),\"rotation_deg\":\(number(l.rotation)),\"columns\":\(l.columns),"
                + "\"sublattices\":[\(sublattices.joined(separator: ","))]}"
        }
        let crystal = overview.crystal.map { c in
            "{\"fraction\":\(number(c.fraction)),\"side\":\(JSONLine.quoted(overview.extent ?? "")),"
                + "\"outline\":\(points(c.outline.points))}"
        }
        let features = overview.features.map { f in
            var fields = [
                "\"kind\":\(JSONLine.quoted(f.kind.rawValue))", "\"x\":\(number(f.position.x))",
                "\"y\":\(number(f.position.y))"
            ]
            if f.kind == .brightColumn || f.kind == .dimColumn, let relative = f.relativeIntensity {
                fields.append("\"relative_intensity\":\(number(relative))")
            }
            if [.domainWall, .grainBoundary, .interface].contains(f.kind) {
                fields.append("\"points\":\(points(f.points))")
            }
            if f.kind == .interface, let step = f.step {
                fields += [
                    "\"exx_step\":\(number(step.exx))", "\"eyy_step\":\(number(step.eyy))",
                    "\"exy_step\":\(number(step.exy))", "\"rotation_step_deg\":\(number(step.rotationDegrees))"
                ]
            }
            if f.kind == .dislocation, let burgers = f.burgers {
                fields.append("\"burgers_px\":\(vector(burgers))")
                if let pm = pixelSize?.picometres {
                    fields.append("\"burgers_pm\":\(vector(PixelVector(x: burgers.x * pm, y: burgers.y * pm)))")
                }
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let grains = (overview.physics?.grains ?? []).map { g in
            "{\"rotation_deg\":\(number(g.rotationDegrees)),\"fraction\":\(number(g.fraction)),"
                + "\"side\":\(JSONLine.quoted(g.side))}"
        }
        let reflections = overview.reflections.map { r in
            var fields = ["\"d_px\":\(number(r.spacing))"]
            if let pm = pixelSize?.picometres { fields.append("\"d_pm\":\(number(r.spacing * pm))") }
            fields += [
                "\"angle_deg\":\(number(r.direction))", "\"intensity\":\(number(r.intensity))",
                "\"grain\":\(r.grain.map(String.init) ?? "null")"
            ]
            return "{" + fields.joined(separator: ",") + "}"
        }
        let particles = overview.particles.map { p in
            var fields = [
                "\"x\":\(number(p.position.x))", "\"y\":\(number(p.position.y))",
                "\"diameter_px\":\(number(p.diameter))"
            ]
            if let pm = pixelSize?.picometres { fields.append("\"diameter_pm\":\(number(p.diameter * pm))") }
            fields.append("\"touching\":[\(p.touching.map(String.init).joined(separator: ","))]")
            return "{" + fields.joined(separator: ",") + "}"
        }
        let diffraction = overview.diffraction.map { d in
            let spots = d.spots.map {
                "{\"x\":\(number($0.position.x)),\"y\":\(number($0.position.y)),\"intensity\":\(number($0.intensity))}"
            }
            let rings = d.rings.map { r in
                "{\"radius_px\":\(number(r))" + (d.dPicometres(r).map { ",\"d_pm\":\(number($0))" } ?? "") + "}"
            }
            let lattice = d.lattice.map { l in
                var fields = [
                    "\"type\":\(JSONLine.quoted(l.kind.rawValue))", "\"g1_px\":\(vector(l.g1))",
                    "\"g2_px\":\(vector(l.g2))",
                    "\"gamma_deg\":\(number(l.gamma))", "\"rotation_deg\":\(number(l.rotation))",
                    "\"indexed\":\(l.indexed)"
                ]
                if let d1 = d.dPicometres(l.g1.length), let d2 = d.dPicometres(l.g2.length) {
                    fields += ["\"d1_pm\":\(number(d1))", "\"d2_pm\":\(number(d2))"]
                }
                return "{" + fields.joined(separator: ",") + "}"
            }
            return "{\"centre\":\(d.centre.map { "[\(number($0.x)),\(number($0.y))]" } ?? "null"),"
                + "\"reciprocal_nm_per_px\":\(d.reciprocalPerPixel.map(number) ?? "null"),"
                + "\"spots\":[\(spots.joined(separator: ","))],\"rings\":[\(rings.joined(separator: ","))],"
                + "\"reciprocal_lattice\":\(lattice ?? "null")}"
        }
        let stack = changes.map { c in
            "{\"frames\":\(c.shifts.count),\"shifts_px\":[\(c.shifts.map(vector).joined(separator: ","))],"
                + "\"brightness_change\":\(c.brightness.map(number) ?? "null")}"
        }
        let sentences =
            (elements.map { [$0.sentence] } ?? []) + overview.summary
            + (changes.map { [Phrases.stackChanges($0, pixelSize: pixelSize)] } ?? [])
        let found = (elements?.places ?? []).map { place in
            "{\"symbol\":\(JSONLine.quoted(place.element.element.symbol)),\"fraction\":\(number(place.fraction)),"
                + "\"x\":\(number(place.x)),\"y\":\(number(place.y)),\"where\":\(JSONLine.quoted(place.words)),"
                + "\"feature\":\(JSONLine.quoted(place.element.feature)),\"weak\":\(place.weak)}"
        }
        return "{\"kind\":\(JSONLine.quoted(overview.kind.rawValue)),"
            + "\"summary\":\(JSONLine.quoted(sentences.joined(separator: " "))),"
            + "\"details\":[\(overview.details.map(JSONLine.quoted).joined(separator: ","))],"
            + "\"lattice\":\(lattice ?? "null"),\"grains\":[\(grains.joined(separator: ","))],"
            + "\"crystal\":\(crystal ?? "null"),\"features\":[\(features.joined(separator: ","))],"
            + "\"reflections\":[\(reflections.joined(separator: ","))],"
            + "\"particles\":[\(particles.joined(separator: ","))],\"diffraction\":\(diffraction ?? "null"),"
            + "\"stack\":\(stack ?? "null"),\"elements\":[\(found.joined(separator: ","))]}\n"
    }
}

/// The elements of the spectrum image described (or, when the file's largest image plays, of the file's largest
/// spectrum image) and where each is.
struct FoundElements {
    let places: [ElementPlace]
    let reading: SpectrumReading
    let axis: SignalAxis

    /// Nil when neither the signal chosen nor, by default, the file holds a spectrum image.
    init?(in opened: ImageFiles.Opened, chosen: Int?) throws(ImageFileError) {
        var entry = opened.entry
        if entry.kind != .spectrumImage {
            guard chosen == nil, let found = try? Map.spectra(nil, in: opened.contents),
                opened.contents.entries[found.0].kind == .spectrumImage
            else { return nil }
            entry = opened.contents.entries[found.0]
        }
        guard let cube = entry.spectra else { return nil }
        (reading, places) = try ElementMaps.places(in: cube)
        axis = cube.spectralAxis
    }

    /// "Fe in a patch at the centre, 15 percent of the area; Si everywhere, weak."
    var sentence: String { ElementMaps.sentence(places) }

    /// One line an element, with its line or edge and its centre; then each unidentified peak.
    var details: [String] {
        let units = axis.units.isEmpty ? "" : " \(axis.units)"
        let perUnit = EnergyUnit(axis.units)?.electronvolts ?? 1
        let named = places.map { place in
            "\(place.element.element.symbol), by its \(place.element.feature) at "
                + "\(NumberText.readable(place.element.energy / perUnit))\(units): \(place.words), "
                + "\(NumberText.significant(100 * place.fraction, digits: 2)) percent of the pixels, centred at x "
                + "\(NumberText.significant(place.x, digits: 3)), y \(NumberText.significant(place.y, digits: 3))."
        }
        let unidentified = reading.peaks.filter { $0.line == nil }.map {
            "Unidentified peak at \(NumberText.readable($0.position))\(units)."
        }
        return named + unidentified
    }
}
