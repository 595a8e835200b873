import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Say what an image shows as a whole: its lattice, where the crystal is, and what stands out and where.",
        discussion: """
            First a summary of at most 60 words, most important first, whose first line stands alone; then the \
            details, one a line: the lattice, the grains, the reflections, the crystal's extent and outline, and each \
            feature (grain boundaries, interfaces, dislocations, domain walls, bright and dim columns, vacancies, \
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
        let opened = try openImage(image, number: imageChoice.number)
        let scale = pixelSize.size ?? opened.entry.calibration.pixelSize
        let overview = ImageOverview(image: opened.image, pixelSize: scale)
        print(json ? Self.json(overview, pixelSize: scale) : Self.text(overview), terminator: "")
    }

    /// The summary, a sentence a line, then the details.
    static func text(_ overview: ImageOverview) -> String {
        (overview.summary + ["Details:"] + overview.details).joined(separator: "\n") + "\n"
    }

    /// The documented JSON, built by hand: keys in the documented order, numbers to full precision; lengths in
    /// pixels, and in picometres too with a pixel size.
    static func json(_ overview: ImageOverview, pixelSize: PixelSize?) -> String {
        func number(_ value: Double) -> String { JSONLine.number(value) }
        func vector(_ v: PixelVector) -> String { "[\(number(v.x)),\(number(v.y))]" }
        func points(_ points: [ImagePoint]) -> String {
            "[" + points.map { "[\(number($0.x)),\(number($0.y))]" }.joined(separator: ",") + "]"
        }
        let lattice = overview.lattice.map { l in
            let sublattices = l.sublattices.map {
                "{\"columns\":\($0.columns),\"relativeIntensity\":\(number($0.relativeIntensity))}"
            }
            return "{\"type\":\(JSONLine.quoted(l.kind.rawValue)),\"aPx\":\(number(l.a)),\"bPx\":\(number(l.b)),"
                + "\"gammaDeg\":\(number(l.gamma)),\"rotationDeg\":\(number(l.rotation)),\"columns\":\(l.columns),"
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
                fields.append("\"relativeIntensity\":\(number(relative))")
            }
            if [.domainWall, .grainBoundary, .interface].contains(f.kind) {
                fields.append("\"points\":\(points(f.points))")
            }
            if f.kind == .interface, let step = f.step {
                fields += [
                    "\"exxStep\":\(number(step.exx))", "\"eyyStep\":\(number(step.eyy))",
                    "\"exyStep\":\(number(step.exy))", "\"rotationStepDeg\":\(number(step.rotationDegrees))"
                ]
            }
            if f.kind == .dislocation, let burgers = f.burgers {
                fields.append("\"burgersPx\":\(vector(burgers))")
                if let pm = pixelSize?.picometres {
                    fields.append("\"burgersPm\":\(vector(PixelVector(x: burgers.x * pm, y: burgers.y * pm)))")
                }
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let grains = (overview.physics?.grains ?? []).map { g in
            "{\"rotationDeg\":\(number(g.rotationDegrees)),\"fraction\":\(number(g.fraction)),"
                + "\"side\":\(JSONLine.quoted(g.side))}"
        }
        let reflections = overview.reflections.map { r in
            var fields = ["\"dPx\":\(number(r.spacing))"]
            if let pm = pixelSize?.picometres { fields.append("\"dPm\":\(number(r.spacing * pm))") }
            fields += [
                "\"angleDeg\":\(number(r.direction))", "\"intensity\":\(number(r.intensity))",
                "\"grain\":\(r.grain.map(String.init) ?? "null")"
            ]
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"summary\":\(JSONLine.quoted(overview.summary.joined(separator: " "))),"
            + "\"details\":[\(overview.details.map(JSONLine.quoted).joined(separator: ","))],"
            + "\"lattice\":\(lattice ?? "null"),\"grains\":[\(grains.joined(separator: ","))],"
            + "\"crystal\":\(crystal ?? "null"),\"features\":[\(features.joined(separator: ","))],"
            + "\"reflections\":[\(reflections.joined(separator: ","))]}\n"
    }
}
