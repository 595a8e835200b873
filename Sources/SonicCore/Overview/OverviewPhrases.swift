import Foundation

extension Phrases {
    // MARK: - The overview

    /// "Square lattice, a 390 picometres, turned 3 degrees clockwise, 545 columns in 2 sublattices.", with where the
    /// crystal lies when it does not fill the image: "Hexagonal lattice covering the left three fifths of the image:
    /// a 20.0 pixels, …". Said first, and alone: it stands on its own.
    public static func latticeSummary(_ lattice: LatticeDescription, extent: String, pixelSize: PixelSize?) -> String {
        let kind = lattice.kind.spoken.prefix(1).uppercased() + lattice.kind.spoken.dropFirst()
        let place = extent == Places.wholeImage ? "," : " covering \(extent) of the image:"
        let sublattices = lattice.sublattices.count > 1 ? " in \(lattice.sublattices.count) sublattices" : ""
        return "\(kind) lattice\(place) \(cell(lattice, pixelSize: pixelSize, precise: false)), "
            + "\(turned(lattice.rotation, precise: false)), \(counted(lattice.columns, "column"))\(sublattices)."
    }

    /// The cell's lengths and, where the kind does not fix it, its angle: "a 390 picometres", "a 390 and b 550
    /// picometres, gamma 104 degrees"; to a tenth (and every length and angle) when `precise`.
    static func cell(_ lattice: LatticeDescription, pixelSize: PixelSize?, precise: Bool) -> String {
        func number(_ pixels: Double) -> String {
            let value = pixels * (pixelSize?.picometres ?? 1)
            return precise || pixelSize == nil ? UnitCell.oneDecimal(value) : String(Int(value.rounded()))
        }
        let unit = pixelSize == nil ? "pixels" : "picometres"
        let gamma =
            "gamma \(precise ? UnitCell.oneDecimal(lattice.gamma) : String(Int(lattice.gamma.rounded()))) degrees"
        if precise { return "a \(number(lattice.a)) \(unit), b \(number(lattice.b)) \(unit), \(gamma)" }
        switch lattice.kind {
        case .square, .hexagonal: return "a \(number(lattice.a)) \(unit)"
        case .rectangular: return "a \(number(lattice.a)) and b \(number(lattice.b)) \(unit)"
        case .centredRectangular, .oblique: return "a \(number(lattice.a)) and b \(number(lattice.b)) \(unit), \(gamma)"
        }
    }

    /// "turned 3 degrees clockwise" (as the image is seen), "not turned".
    static func turned(_ degrees: Double, precise: Bool) -> String {
        let amount = precise ? UnitCell.oneDecimal(abs(degrees)) : String(Int(abs(degrees).rounded()))
        guard amount != "0" && amount != "0.0" else { return "not turned" }
        return "turned \(amount) \(amount == "1" ? "degree" : "degrees") \(degrees > 0 ? "clockwise" : "anticlockwise")"
    }

    /// Where the columns show no lattice: "No lattice of atom columns.", or "Columns about 24.0 pixels apart, on no
    /// lattice."
    public static func noLattice(spacing: Double?) -> String {
        spacing.map { "Columns about \(UnitCell.oneDecimal($0)) pixels apart, on no lattice." }
            ?? "No lattice of atom columns."
    }

    /// "bright column", "vacancy"; in the plural "bright columns", "vacancies".
    static func name(_ kind: OverviewFeature.Kind, plural: Bool = false) -> String {
        switch kind {
        case .domainWall: plural ? "domain walls" : "domain wall"
        case .brightColumn: plural ? "bright columns" : "bright column"
        case .dimColumn: plural ? "dim columns" : "dim column"
        case .vacancy: plural ? "vacancies" : "vacancy"
        case .interstitial: plural ? "interstitials" : "interstitial"
        }
    }

    /// "Vacancy 2 of 3, upper left": what is said on stepping to a feature.
    public static func featureLabel(_ kind: OverviewFeature.Kind, number: Int, of count: Int, place: String) -> String {
        let name = name(kind)
        return "\(name.prefix(1).uppercased() + name.dropFirst()) \(number) of \(count), \(place)"
    }

    /// "5 bright columns, 1 dim column, 3 vacancies and 2 interstitials.", or "No column or site stands out."
    static func featureCounts(_ counts: [(kind: OverviewFeature.Kind, count: Int)]) -> String {
        let parts = counts.filter { $0.count > 0 }.map { "\($0.count) \(name($0.kind, plural: $0.count != 1))" }
        guard let last = parts.last else { return "No column or site stands out." }
        return (parts.count == 1 ? last : parts.dropLast().joined(separator: ", ") + " and " + last) + "."
    }

    /// "Two domains: walls across the image at a third and two thirds of its height.", "Two domains: a wall down
    /// the image at half its width."
    static func domains(_ courses: [Places.Course]) -> String {
        let shares = courses.compactMap { course -> String? in
            if case .across(let share) = course { share } else { nil }
        }
        let downShares = courses.compactMap { course -> String? in
            if case .down(let share) = course { share } else { nil }
        }
        let course: String
        if courses.count > 1 && shares.count == courses.count {
            course = "walls across the image \(Places.Course.at(listed(shares), of: "height"))"
        } else if courses.count > 1 && downShares.count == courses.count {
            course = "walls down the image \(Places.Course.at(listed(downShares), of: "width"))"
        } else if courses.count == 1 {
            course = "a wall \(courses[0].words)"
        } else {
            course = "\(courses.count) walls, " + listed(courses.map(\.words))
        }
        return "Two domains: \(course)."
    }

    /// "a third", "a third and two thirds", "a fifth, two fifths and four fifths".
    static func listed(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// "In one domain sublattice 2 is displaced 15 picometres, towards the top; in the other, displaced 15
    /// picometres, towards the bottom."
    static func domainDisplacements(sublattice: Int, _ displacements: [PixelVector], pixelSize: PixelSize?) -> String {
        "In one domain sublattice \(sublattice) is \(displaced(displacements[0], pixelSize: pixelSize)); in the other, "
            + "\(displaced(displacements[1], pixelSize: pixelSize))."
    }

    /// "The columns grow 60 percent brighter towards the right."
    static func gradient(_ gradient: LargeScaleIntensity.Gradient) -> String {
        let ways = ["right", "upper right", "top", "upper left", "left", "lower left", "bottom", "lower right"]
        let angle = atan2(-gradient.towards.y, gradient.towards.x) * 180 / Double.pi
        let way = ways[(Int((angle / 45).rounded()) + 8) % 8]
        return "The columns grow \(percent(gradient.change)) percent brighter towards the \(way)."
    }

    /// "The columns at the upper left are 25 percent brighter than the rest."
    static func region(_ region: LargeScaleIntensity.Region) -> String {
        "The columns at the \(region.place) are \(percent(abs(region.change))) percent "
            + "\(region.change > 0 ? "brighter" : "dimmer") than the rest."
    }

    /// "Lattice: square, a 390.5 picometres, b 390.6 picometres, gamma 90.0 degrees, turned 3.0 degrees clockwise,
    /// 545 columns."
    static func latticeDetail(_ lattice: LatticeDescription, pixelSize: PixelSize?) -> String {
        "Lattice: \(lattice.kind.spoken), \(cell(lattice, pixelSize: pixelSize, precise: true)), "
            + "\(turned(lattice.rotation, precise: true)), \(counted(lattice.columns, "column"))."
    }

    /// "Sublattice 1 holds 289 columns; sublattice 2 holds 256, 0.40 times as bright."
    static func sublatticeDetail(_ sublattices: [LatticeDescription.Sublattice]) -> String {
        sublattices.enumerated().map { k, s in
            k == 0
                ? "Sublattice 1 holds \(counted(s.columns, "column"))"
                : "sublattice \(k + 1) holds \(s.columns), \(String(format: "%.2f", s.relativeIntensity)) times as bright"
        }.joined(separator: "; ") + "."
    }

    /// "The crystal covers the whole image.", or "The crystal covers 59 percent of the image, the left three
    /// fifths; its outline runs through x 0, y 0; x 238, y 0; …."
    static func crystalDetail(fraction: Double, extent: String, outline: ImagePolygon, width: Int, height: Int)
        -> String
    {
        guard extent != Places.wholeImage else { return "The crystal covers the whole image." }
        // Whole pixels, the image's edge said as its first or last pixel.
        func pixel(_ value: Double, _ size: Int) -> Int { min(size - 1, max(0, Int(value.rounded()))) }
        let corners = outline.points.map { "x \(pixel($0.x, width)), y \(pixel($0.y, height))" }
        return "The crystal covers \(percent(fraction)) percent of the image, \(extent); its outline runs through "
            + corners.joined(separator: "; ") + "."
    }

    /// "x 71.1, y 113.8"
    static func position(_ p: ImagePoint) -> String { "x \(UnitCell.oneDecimal(p.x)), y \(UnitCell.oneDecimal(p.y))" }

    /// One feature in full: its label, where it is, and what it is.
    static func featureDetail(_ feature: OverviewFeature, sublattice: Int?) -> String {
        let relative = feature.relativeIntensity.map { String(format: "%.2f", $0) } ?? ""
        let what =
            switch feature.kind {
            case .domainWall:
                "from \(position(feature.points.first ?? feature.position)) to \(position(feature.points.last ?? feature.position))"
            case .brightColumn, .dimColumn:
                "at \(position(feature.position)), \(relative) times as bright as its sublattice there"
            case .vacancy:
                "at \(position(feature.position)), an empty site\(sublattice.map { " of sublattice \($0)" } ?? "")"
            case .interstitial: "at \(position(feature.position)), off the lattice's sites"
            }
        return "\(feature.label), \(what)."
    }
}
