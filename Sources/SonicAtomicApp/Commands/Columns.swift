import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Columns: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Find every atom column in an image and print its refined centre, peak, fit quality, integrated intensity, "
            + "sublattice, lattice site and displacement.",
        discussion: """
            Centres are image coordinates: (0, 0) is the centre of the top-left pixel, y down. `peak` is the \
            fitted Gaussian's height above the local background (in the file's sample units); `quality` (0-1) is how \
            well a Gaussian on a plane fits the column; `sigma` is its width in pixels; `intensity` is its integrated \
            intensity, peak x 2 pi sigma squared. Columns at the same place in every cell form a sublattice, numbered brightest \
            first; `relative_intensity` is a column's intensity over its sublattice's median (1.3: 30 percent brighter); \
            `site` counts cells along the lattice vectors a and b from the cell nearest the middle; `dx`, `dy` is the \
            column's displacement from its ideal site, in pixels and, with a pixel size (--pixel-size, or the \
            file's calibration), in picometres. The ideal sites are a lattice fitted robustly to the brightest \
            sublattice, moved by each other sublattice's own offset. Columns outside the crystal (amorphous \
            material beside it) are left out, and a diffraction pattern (as describe recognises one) has none. \
            With --near, only the given points are snapped to their nearest column (within 0.6 column spacings), \
            as a tap in tagging mode does, and the lattice is not read.
            """)

    @Argument(help: "An image file: PNG, DM3/DM4, TIFF, EMD, HyperSpy (.hspy) or Bruker (.bcf).")
    var image: String

    @OptionGroup var imageChoice: ImageChoice

    @Option(help: "Of a stack: the frame to find the columns in (1, 2, ...). Default: the first.")
    var frame: Int?

    @Option(help: "Of a stack: find the columns in its frames added (sum) or averaged (mean).")
    var frames: FrameCombination?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Print CSV instead of a table.")
    var csv = false

    @Option(help: "Snap just this point (X,Y in image coordinates); may be given several times.")
    var near: [String] = []

    @OptionGroup var pixelSize: PixelSizeChoice

    func validate() throws {
        if json && csv { throw ValidationError("choose --json or --csv, not both") }
        if let frame, frame < 1 { throw ValidationError("--frame counts from 1") }
        if frame != nil && frames != nil { throw ValidationError("choose --frame or --frames, not both") }
        for point in near where Self.point(point) == nil {
            throw ValidationError("--near takes X,Y in image coordinates, e.g. --near 120.5,88")
        }
    }

    static func point(_ text: String) -> ImagePoint? {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return parts.count == 2 && parts.allSatisfy(\.isFinite) ? ImagePoint(x: parts[0], y: parts[1]) : nil
    }

    /// One line of the output: the point asked about (with --near), and the column.
    private struct Row {
        var near: ImagePoint?
        var column: AnalysedColumn?
    }

    func run() throws {
        let opened = try openImage(image, number: imageChoice.number, frame: frame, frames: frames)
        let picture = opened.image
        let scale = pixelSize.size ?? opened.calibration.pixelSize
        let finder = ColumnFinder(image: picture)
        let rows: [Row]
        var lattice: LatticeAnalysis?
        // A diffraction pattern's spots are not atom columns: none are listed, as `describe` tells its spots.
        let reciprocal = scale == nil ? opened.calibration.reciprocalPerPixel : nil
        let diffraction = near.isEmpty && DiffractionPattern(finder: finder, reciprocalPerPixel: reciprocal) != nil
        if diffraction {
            warn("\(image) is a diffraction pattern: it has no atom columns (describe tells its spots or rings)")
            rows = []
        } else if near.isEmpty {
            let analysis = LatticeAnalysis(finding: finder)
            lattice = analysis
            rows = analysis.columns.map { Row(near: nil, column: $0) }
        } else {
            let radius = Profile.builtIn.gestures.snapRadius * (finder.spacing ?? 0)
            rows = near.compactMap(Self.point).map { p in
                let column = finder.spacing == nil ? nil : finder.snap(x: p.x, y: p.y, radius: radius)
                return Row(near: p, column: column.map { AnalysedColumn(column: $0) })
            }
        }
        let output = format(
            rows, spacing: diffraction ? nil : finder.spacing, lattice: lattice, pixelSize: scale, width: picture.width,
            height: picture.height)
        print(output, terminator: "")
    }

    /// The fields of a column, in the documented order, as (name, value) with nil for none.
    private static func fields(_ analysed: AnalysedColumn?, pixelSize: PixelSize?) -> [(String, Double?)] {
        let c = analysed?.column
        let d = analysed?.displacement
        let pm = pixelSize?.picometres
        return [
            ("x", c?.x), ("y", c?.y), ("peak", c?.peak), ("quality", c?.quality), ("sigma", c?.sigma),
            ("intensity", c?.integratedIntensity), ("relative_intensity", analysed?.relativeIntensity),
            ("sublattice", analysed?.sublattice.map(Double.init)), ("site_n", analysed?.site.map { Double($0.n) }),
            ("site_m", analysed?.site.map { Double($0.m) }), ("dx", d?.x), ("dy", d?.y),
            ("dx_pm", d.flatMap { d in pm.map { d.x * $0 } }), ("dy_pm", d.flatMap { d in pm.map { d.y * $0 } })
        ]
    }

    private static func integral(_ name: String) -> Bool { ["sublattice", "site_n", "site_m"].contains(name) }

    private func format(
        _ rows: [Row], spacing: Double?, lattice: LatticeAnalysis?, pixelSize: PixelSize?, width: Int, height: Int
    ) -> String {
        let snapping = !near.isEmpty
        if json {
            // Built by hand: key order as documented, numbers to full precision.
            func vector(_ v: PixelVector?) -> String {
                v.map { "[\(JSONLine.number($0.x)),\(JSONLine.number($0.y))]" } ?? "null"
            }
            var out =
                "{\"image\":\(JSONLine.quoted(URL(fileURLWithPath: image).lastPathComponent)),\"width\":\(width),"
                + "\"height\":\(height),\"spacing\":\(spacing.map(JSONLine.number) ?? "null"),"
                + "\"pixel_size\":\(pixelSize.map { JSONLine.number($0.picometres) } ?? "null"),"
                + "\"lattice_a\":\(vector(lattice?.a)),\"lattice_b\":\(vector(lattice?.b)),"
                + "\"sublattices\":\(lattice?.sublatticeCount ?? 0),\"columns\":["
            out += rows.map { row in
                var fields: [String] = []
                if let near = row.near {
                    fields += ["\"near_x\":\(JSONLine.number(near.x))", "\"near_y\":\(JSONLine.number(near.y))"]
                }
                for (name, value) in Self.fields(row.column, pixelSize: pixelSize) {
                    let text = value.map { Self.integral(name) ? String(Int($0)) : JSONLine.number($0) } ?? "null"
                    fields.append("\"\(name)\":\(text)")
                }
                return "{" + fields.joined(separator: ",") + "}"
            }.joined(separator: ",")
            return out + "]}\n"
        }
        let separator = csv ? "," : "\t"
        let names = Self.fields(nil, pixelSize: nil).map(\.0)
        let header = (snapping ? ["near_x", "near_y"] : []) + names
        var lines = [header.joined(separator: separator)]
        for row in rows {
            // The text table is for people (six significant digits, a ten-thousandth at most); CSV keeps every digit.
            func text(_ value: Double) -> String { csv ? String(value) : NumberText.significant(value, digits: 6) }
            var cells = snapping ? [row.near!.x, row.near!.y].map(text) : []
            cells += Self.fields(row.column, pixelSize: pixelSize).map { name, value in
                value.map { Self.integral(name) ? String(Int($0)) : text($0) } ?? ""
            }
            lines.append(cells.joined(separator: separator))
        }
        if !csv && !json {
            var summary =
                spacing.map { "# \(rows.count) rows; column spacing \(String(format: "%.2f", $0)) pixels" }
                ?? "# no lattice found"
            if let lattice, let a = lattice.a, let b = lattice.b {
                summary +=
                    "; lattice a (\(String(format: "%.2f", a.x)), \(String(format: "%.2f", a.y))), "
                    + "b (\(String(format: "%.2f", b.x)), \(String(format: "%.2f", b.y))) pixels; "
                    + "\(lattice.sublatticeCount) sublattice\(lattice.sublatticeCount == 1 ? "" : "s")"
            }
            if let pixelSize { summary += "; pixel size \(pixelSize)" }
            lines.insert(summary, at: 0)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
