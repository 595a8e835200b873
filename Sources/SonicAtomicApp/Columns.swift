import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles

struct Columns: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find every atom column in an image and print its refined centre, peak and fit quality.",
        discussion: """
            Centres are image coordinates: (0, 0) is the centre of the top-left pixel, y down. `peak` is the \
            fitted Gaussian's height above the local background (in the file's sample units); `quality` (0-1) is how \
            well a Gaussian on a plane fits the column. With --near, only the given points are snapped to \
            their nearest column (within 0.6 column spacings), as a tap in tagging mode does.
            """)

    @Argument(help: "An image file: PNG, DM3/DM4, TIFF or EMD.")
    var image: String

    @Option(
        name: .customLong("image"), help: "Which image of a file holding several (1, 2, ...). Default: the largest.")
    var imageNumber: Int?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Print CSV instead of a table.")
    var csv = false

    @Option(help: "Snap just this point (X,Y in image coordinates); may be given several times.")
    var near: [String] = []

    func validate() throws {
        if json && csv { throw ValidationError("choose --json or --csv, not both") }
        if let imageNumber, imageNumber < 1 { throw ValidationError("--image counts from 1") }
        for point in near where Self.point(point) == nil {
            throw ValidationError("--near takes X,Y in image coordinates, e.g. --near 120.5,88")
        }
    }

    static func point(_ text: String) -> ImagePoint? {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return parts.count == 2 && parts.allSatisfy(\.isFinite) ? ImagePoint(x: parts[0], y: parts[1]) : nil
    }

    func run() throws {
        let picture: GrayImage
        do { picture = try ImageFiles.open(image, number: imageNumber).image } catch {
            throw fail("cannot read image \(image): \(error)", status: ExitStatus.badInput)
        }
        let finder = ColumnFinder(image: picture)
        let rows: [(near: ImagePoint?, column: AtomColumn?)]
        if near.isEmpty {
            rows = finder.findAll().map { (nil, $0) }
        } else {
            let radius = Profile.builtIn.gestures.snapRadius * (finder.spacing ?? 0)
            rows = near.compactMap(Self.point).map { p in
                (p, finder.spacing == nil ? nil : finder.snap(x: p.x, y: p.y, radius: radius))
            }
        }
        print(format(rows, spacing: finder.spacing, width: picture.width, height: picture.height), terminator: "")
    }

    private func format(_ rows: [(near: ImagePoint?, column: AtomColumn?)], spacing: Double?, width: Int, height: Int)
        -> String
    {
        let snapping = !near.isEmpty
        if json {
            // Built by hand: key order as documented, numbers to full precision.
            var out =
                "{\"image\":\(JSONLine.quoted(URL(fileURLWithPath: image).lastPathComponent)),\"width\":\(width),"
                + "\"height\":\(height),\"spacing\":\(spacing.map(JSONLine.number) ?? "null"),\"columns\":["
            out += rows.map { row in
                var fields: [String] = []
                if let near = row.near {
                    fields += ["\"nearX\":\(JSONLine.number(near.x))", "\"nearY\":\(JSONLine.number(near.y))"]
                }
                if let c = row.column {
                    fields += [
                        "\"x\":\(JSONLine.number(c.x))", "\"y\":\(JSONLine.number(c.y))",
                        "\"peak\":\(JSONLine.number(c.peak))", "\"quality\":\(JSONLine.number(c.quality))"
                    ]
                } else {
                    fields += ["\"x\":null", "\"y\":null", "\"peak\":null", "\"quality\":null"]
                }
                return "{" + fields.joined(separator: ",") + "}"
            }.joined(separator: ",")
            return out + "]}\n"
        }
        let separator = csv ? "," : "\t"
        let header = (snapping ? ["near_x", "near_y"] : []) + ["x", "y", "peak", "quality"]
        var lines = [header.joined(separator: separator)]
        for row in rows {
            var cells = snapping ? [row.near!.x, row.near!.y].map { String($0) } : []
            cells += row.column.map { [$0.x, $0.y, $0.peak, $0.quality].map { String($0) } } ?? ["", "", "", ""]
            lines.append(cells.joined(separator: separator))
        }
        if !csv && !json {
            let summary =
                spacing.map { "# \(rows.count) rows; column spacing \(String(format: "%.2f", $0)) pixels" }
                ?? "# no lattice found"
            lines.insert(summary, at: 0)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
