import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles
import SonicTIFF

extension StrainMethod: ExpressibleByArgument {}

struct Strain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Measure the strain and rotation of the crystal against a reference lattice: at each atom column, or by "
            + "geometric phase analysis at every pixel.",
        discussion: """
            exx, eyy and exy are strains (fractions in JSON and CSV, percent in the text: 0.01 is 1 % longer); the \
            rotation is in degrees, positive turning x towards +y (clockwise on screen, y down). With --method \
            columns (the default) each column's cell, fitted to its neighbours, is measured against the reference \
            lattice: precise, column by column, for images whose columns are resolved. With --method gpa, geometric \
            phase analysis of the two strongest reflections gives a value at every pixel, smoothed over a length set \
            by the mask round each reflection: for lattice fringes and columns not told apart. The reference lattice \
            is the largest region where the lattice is the same throughout (for GPA, the image less its edges), or \
            the rectangle --reference gives. The text gives the reference, then each component's median, rms and \
            range, and where its extremes are. Coordinates are image pixels: (0, 0) is the centre of the top-left \
            pixel, y down. Lengths are in picometres with a pixel size (--pixel-size, or the file's calibration).
            """)

    @Argument(help: "An image file: PNG, DM3/DM4, TIFF, EMD, HyperSpy (.hspy) or Bruker (.bcf).")
    var image: String

    @OptionGroup var imageChoice: ImageChoice

    @Option(help: "Of a stack: the frame to measure (1, 2, ...). Default: the first.")
    var frame: Int?

    @OptionGroup var pixelSize: PixelSizeChoice

    @Option(
        help: ArgumentHelp(
            "The reference lattice's region, X0,Y0,X1,Y1 in image coordinates. Default: the largest undisturbed region.",
            valueName: "x0,y0,x1,y1"))
    var reference: String?

    @Option(help: "columns: each column's cell; gpa: geometric phase analysis at every pixel.")
    var method: StrainMethod = .columns

    @Option(
        name: .customLong("mask-radius"),
        help: ArgumentHelp(
            "With --method gpa: the Gaussian mask's radius round each reflection, in cycles per pixel. Default: a quarter of the distance to the nearest other reflection.",
            valueName: "r"))
    var maskRadius: Double?

    @Flag(help: "Print JSON instead of sentences.")
    var json = false

    @Flag(help: "Print CSV, one row per column, instead of sentences.")
    var csv = false

    @Option(
        help: ArgumentHelp(
            "Also write PREFIX-exx.tif, PREFIX-eyy.tif, PREFIX-exy.tif and PREFIX-rotation.tif: 32-bit float maps of the image's size.",
            valueName: "prefix"))
    var out: String?

    func validate() throws {
        if json && csv { throw ValidationError("choose --json or --csv, not both") }
        if let frame, frame < 1 { throw ValidationError("--frame counts from 1") }
        if let reference, ImageRectangle(reference) == nil {
            throw ValidationError(
                "--reference takes X0,Y0,X1,Y1 in image coordinates, two different corners, e.g. --reference 10,10,200,120"
            )
        }
        if let maskRadius {
            guard method == .gpa else { throw ValidationError("--mask-radius is for --method gpa") }
            guard maskRadius > 0 && maskRadius < 0.5 else {
                throw ValidationError("--mask-radius is in cycles per pixel, more than 0 and less than 0.5")
            }
        }
    }

    func run() throws {
        let opened = try openImage(image, number: imageChoice.number, frame: frame)
        let picture = opened.image
        let scale = pixelSize.size ?? opened.calibration.pixelSize
        let region = try referenceRegion(width: picture.width, height: picture.height)
        let finder = ColumnFinder(image: picture)
        let field =
            try method == .columns
            ? byColumns(finder, of: picture, region: region) : byPhase(finder, of: picture, region: region)
        if let out { try write(field, prefix: out, pixelSize: scale) }
        let name = URL(fileURLWithPath: image).lastPathComponent
        let output =
            json
            ? Self.json(field, image: name, pixelSize: scale)
            : csv ? Self.csv(field) : Self.text(field, pixelSize: scale)
        print(output, terminator: "")
    }

    /// The region --reference gives, within the image; or the command ends with one line and the bad-input status.
    private func referenceRegion(width: Int, height: Int) throws -> ImageRectangle? {
        guard let reference, let given = ImageRectangle(reference) else { return nil }
        let clipped = ImageRectangle(
            x0: max(given.x0, -0.5), y0: max(given.y0, -0.5), x1: min(given.x1, Double(width) - 0.5),
            y1: min(given.y1, Double(height) - 0.5))
        guard given.x0 < Double(width) - 0.5, given.y0 < Double(height) - 0.5, given.x1 > -0.5, given.y1 > -0.5
        else {
            throw fail(
                "the reference region \(reference) lies outside the \(width) × \(height) image", status: .badInput)
        }
        return clipped
    }

    /// Ends the command when a reference region given is smaller than a lattice spacing across.
    private func checkSize(of region: ImageRectangle?, spacing: Double) throws {
        guard let region, let reference else { return }
        if min(region.x1 - region.x0, region.y1 - region.y0) < spacing {
            throw fail(
                "the reference region \(reference) is too small to hold a cell of the lattice: it must be at least "
                    + "\(Self.spoken(spacing, digits: 3)) pixels across",
                status: .badInput)
        }
    }

    private func byColumns(_ finder: ColumnFinder, of picture: GrayImage, region: ImageRectangle?) throws -> StrainField
    {
        guard let spacing = finder.spacing else {
            throw fail("no lattice of atom columns in \(image)", status: .badInput)
        }
        try checkSize(of: region, spacing: spacing)
        let analysis = LatticeAnalysis(finding: finder, referenceRegion: region)
        guard analysis.a != nil else { throw fail("no lattice of atom columns in \(image)", status: .badInput) }
        guard let lattice = analysis.reference else {
            throw fail(
                "the reference region \(reference ?? "") holds no cell of the lattice's columns", status: .badInput)
        }
        return StrainField(
            analysis: analysis, reference: lattice, spacing: spacing, width: picture.width, height: picture.height)
    }

    private func byPhase(_ finder: ColumnFinder, of picture: GrayImage, region: ImageRectangle?) throws -> StrainField {
        // Checked first against the columns' spacing where there is one, so a region holding no pixel is not
        // taken for an image without a lattice.
        try checkSize(of: region, spacing: finder.spacing ?? 1)
        guard
            let gpa = GeometricPhase(image: picture, maskRadius: maskRadius, reference: region)
        else {
            throw fail(
                "no lattice in \(image): its diffractogram shows no two reflections of one lattice", status: .badInput)
        }
        try checkSize(of: region, spacing: max(gpa.a.length, gpa.b.length))
        let columns =
            finder.spacing == nil
            ? [] : LatticeAnalysis(finding: finder).columns.map { ImagePoint(x: $0.column.x, y: $0.column.y) }
        return StrainField(gpa: gpa, given: region != nil, columns: columns)
    }

    private func write(_ field: StrainField, prefix: String, pixelSize: PixelSize?) throws {
        let calibration = pixelSize.map { size in
            Calibration(
                x: AxisCalibration(scale: size.picometres, unit: "pm"),
                y: AxisCalibration(scale: size.picometres, unit: "pm"))
        }
        let names = ["exx", "eyy", "exy", "rotation"]
        for (name, samples) in zip(names, field.maps()) {
            let path = "\(prefix)-\(name).tif"
            let map = GrayImage(width: field.width, height: field.height, sampleType: .float32, samples: samples)
            do { try TIFFWriter.writeFloat(map, calibration: calibration ?? .none, to: path) } catch {
                throw fail("cannot write \(path): \(error)", status: .badInput)
            }
        }
    }

    // MARK: - Output

    /// At most `digits` significant digits and `decimals` decimals, without exponent or trailing zeros: what a voice
    /// reads well. 0.02134 → "0.0213", 3.0512 → "3.05".
    static func spoken(_ value: Double, digits: Int = 3, decimals: Int = 3) -> String {
        guard value.isFinite else { return "none" }
        guard value != 0 else { return "0" }
        let magnitude = Int(log10(abs(value)).rounded(.down))
        let places = min(max(0, digits - 1 - magnitude), decimals)
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// A strain as percent ("0.21 %"), or a rotation in degrees, with its unit or without.
    static func said(_ value: Double, _ component: StrainField.Component, unit: Bool = true) -> String {
        let number = component == .rotation ? spoken(value) : spoken(100 * value)
        return unit ? number + (component == .rotation ? " degrees" : " %") : number
    }

    static func place(_ p: ImagePoint, width: Int, height: Int) -> String {
        "x \(Int(p.x.rounded())), y \(Int(p.y.rounded())), \(Places.region(of: p, width: width, height: height))"
    }

    static func length(_ pixels: Double, pixelSize: PixelSize?) -> String {
        pixelSize.map { spoken(pixels * $0.picometres, digits: 4, decimals: 1) + " picometres" }
            ?? spoken(pixels, digits: 4, decimals: 2) + " pixels"
    }

    static func gamma(_ r: StrainField.Reference) -> Double {
        acos((r.a.x * r.b.x + r.a.y * r.b.y) / (r.a.length * r.b.length)) * 180 / Double.pi
    }

    /// Short lines: how it was measured, the reference, then each component's spread and where its extremes are.
    static func text(_ field: StrainField, pixelSize: PixelSize?) -> String {
        let r = field.reference
        var lines: [String] = []
        let region =
            "x \(Int(r.region.x0.rounded())) to \(Int(r.region.x1.rounded())), "
            + "y \(Int(r.region.y0.rounded())) to \(Int(r.region.y1.rounded()))"
        switch field.method {
        case .columns:
            let count = field.columns?.count ?? 0
            let measured = field.columns?.filter { $0.deformation != nil }.count ?? 0
            lines.append("Strain from the columns' cells: \(count) columns, \(measured) measured.")
            lines.append(
                "Reference: \(r.given ? "the region given" : "the largest undisturbed region"), \(region), "
                    + "\(r.columnCount ?? 0) columns.")
        case .gpa:
            lines.append(
                "Strain by geometric phase analysis, smoothed over "
                    + "\(spoken(r.smoothingLength ?? 0, digits: 3, decimals: 1)) pixels.")
            lines.append(
                "Reference: \(r.given ? "the region given" : "the image less its edges"), \(region).")
            if let columns = field.columns { lines.append("Sampled at \(columns.count) columns.") }
        }
        lines.append(
            "Reference lattice: a \(length(r.a.length, pixelSize: pixelSize)), "
                + "b \(length(r.b.length, pixelSize: pixelSize)), gamma \(spoken(gamma(r), digits: 4, decimals: 1)) degrees."
        )
        if field.method == .gpa { lines.append("Over the pixels clear of the edges:") }
        for (component, spread) in zip(StrainField.Component.allCases, field.spreads) {
            let name = component == .rotation ? "Rotation" : "\(component)"
            guard let s = spread else {
                lines.append("\(name): not measured.")
                continue
            }
            lines.append(
                "\(name): median \(said(s.median, component)), rms \(said(s.rms, component)), "
                    + "from \(said(s.lowest, component, unit: component != .rotation)) to \(said(s.highest, component))."
            )
            lines.append(
                "\(name) lowest at \(place(s.lowestAt, width: field.width, height: field.height)); "
                    + "highest at \(place(s.highestAt, width: field.width, height: field.height)).")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The documented JSON, built by hand: keys in the documented order, numbers to full precision.
    static func json(_ field: StrainField, image: String, pixelSize: PixelSize?) -> String {
        func number(_ value: Double) -> String { JSONLine.number(value) }
        func pair(_ x: Double, _ y: Double) -> String { "[\(number(x)),\(number(y))]" }
        let r = field.reference
        var reference = [
            "\"method\":\(JSONLine.quoted(field.method.rawValue))",
            "\"region\":[\(number(r.region.x0)),\(number(r.region.y0)),\(number(r.region.x1)),\(number(r.region.y1))]",
            "\"given\":\(r.given)", "\"lattice_a\":\(pair(r.a.x, r.a.y))", "\"lattice_b\":\(pair(r.b.x, r.b.y))",
            "\"a_px\":\(number(r.a.length))", "\"b_px\":\(number(r.b.length))"
        ]
        if let pm = pixelSize?.picometres {
            reference += ["\"a_pm\":\(number(r.a.length * pm))", "\"b_pm\":\(number(r.b.length * pm))"]
        }
        reference.append("\"gamma_deg\":\(number(gamma(r)))")
        if let count = r.columnCount { reference.append("\"columns\":\(count)") }
        if let radius = r.maskRadius { reference.append("\"mask_radius\":\(number(radius))") }
        if let smoothing = r.smoothingLength { reference.append("\"smoothing_px\":\(number(smoothing))") }
        let names = ["exx", "eyy", "exy", "rotation_deg"]
        let summary = zip(names, field.spreads).map { name, spread in
            let value = spread.map { s in
                "{\"median\":\(number(s.median)),\"rms\":\(number(s.rms)),\"min\":\(number(s.lowest)),"
                    + "\"max\":\(number(s.highest)),\"min_at\":\(pair(s.lowestAt.x, s.lowestAt.y)),"
                    + "\"max_at\":\(pair(s.highestAt.x, s.highestAt.y))}"
            }
            return "\"\(name)\":\(value ?? "null")"
        }
        var out =
            "{\"image\":\(JSONLine.quoted(image)),\"width\":\(field.width),\"height\":\(field.height),"
            + "\"pixel_size\":\(pixelSize.map { number($0.picometres) } ?? "null"),"
            + "\"reference\":{\(reference.joined(separator: ","))},"
            + "\"summary\":{\(summary.joined(separator: ","))}"
        if let columns = field.columns {
            let rows = columns.map { c in
                let values = StrainField.Component.allCases.map { c.deformation.map($0.value).map(number) ?? "null" }
                return "{\"x\":\(number(c.point.x)),\"y\":\(number(c.point.y)),"
                    + zip(names, values).map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}"
            }
            out += ",\"columns\":[\(rows.joined(separator: ","))]"
        }
        return out + "}\n"
    }

    /// A header, then a row per column; a value there is none of is empty.
    static func csv(_ field: StrainField) -> String {
        var lines = ["x,y,exx,eyy,exy,rotation_deg"]
        for c in field.columns ?? [] {
            let values = StrainField.Component.allCases.map { c.deformation.map($0.value).map { String($0) } ?? "" }
            lines.append(([String(c.point.x), String(c.point.y)] + values).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
