import Foundation

extension Phrases {
    // MARK: - The overview

    /// "Square lattice, a 390.5 picometres, turned 3 degrees clockwise, 545 columns in 2 sublattices.", with where the
    /// crystal lies when it does not fill the image: "Hexagonal lattice covering the left three fifths of the image:
    /// a 20.0 pixels, …". Said first, and alone: it stands on its own.
    public static func latticeSummary(_ lattice: LatticeDescription, extent: String, pixelSize: PixelSize?) -> String {
        let kind = lattice.kind.spoken.prefix(1).uppercased() + lattice.kind.spoken.dropFirst()
        let place = extent == Places.wholeImage ? "," : " covering \(extent) of the image:"
        let sublattices = lattice.sublattices.count > 1 ? " in \(lattice.sublattices.count) sublattices" : ""
        return "\(kind) lattice\(place) \(cell(lattice, pixelSize: pixelSize, precise: false)), "
            + "\(turned(lattice.rotation, precise: false)), \(counted(lattice.columns, "column"))\(sublattices)."
    }

    /// The cell's lengths and, where the kind does not fix it, its angle: "a 390.5 picometres", "a 390.5 and b 550.2
    /// picometres, gamma 104 degrees"; every length and angle when `precise`. Lengths to a tenth either way, so
    /// the summary and the details say one cell alike.
    static func cell(_ lattice: LatticeDescription, pixelSize: PixelSize?, precise: Bool) -> String {
        func number(_ pixels: Double) -> String { UnitCell.oneDecimal(pixels * (pixelSize?.picometres ?? 1)) }
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

    /// "bright column", "vacancy"; in the plural "bright columns", "vacancies".
    static func name(_ kind: OverviewFeature.Kind, plural: Bool = false) -> String {
        switch kind {
        case .grainBoundary: plural ? "grain boundaries" : "grain boundary"
        case .interface: plural ? "interfaces" : "interface"
        case .dislocation: plural ? "dislocations" : "dislocation"
        case .domainWall: plural ? "domain walls" : "domain wall"
        case .brightColumn: plural ? "bright columns" : "bright column"
        case .dimColumn: plural ? "dim columns" : "dim column"
        case .vacancy: plural ? "vacancies" : "vacancy"
        case .interstitial: plural ? "interstitials" : "interstitial"
        case .particle: plural ? "particles" : "particle"
        case .spot: plural ? "spots" : "spot"
        case .ring: plural ? "rings" : "ring"
        }
    }

    /// "Vacancy 2 of 3, upper left": what is said on stepping to a feature.
    public static func featureLabel(_ kind: OverviewFeature.Kind, number: Int, of count: Int, place: String) -> String {
        let name = name(kind)
        return "\(name.prefix(1).uppercased() + name.dropFirst()) \(number) of \(count), \(place)"
    }

    /// The feature under the nib, for "where am I": "bright column 2 of 5, 1.36 times as bright", "vacancy 1 of 3",
    /// "on domain wall 1 of 2".
    static func featureUnderNib(_ feature: OverviewFeature, number: Int, of count: Int) -> String {
        let named = "\(name(feature.kind)) \(number) of \(count)"
        switch feature.kind {
        case .brightColumn, .dimColumn:
            let relative = feature.relativeIntensity.map { ", \(String(format: "%.2f", $0)) times as bright" } ?? ""
            return named + relative
        case .grainBoundary, .domainWall, .interface, .ring: return "on " + named
        case .dislocation, .vacancy, .interstitial, .spot: return named
        case .particle: return "in " + named
        }
    }

    /// "off the crystal, amorphous", "off the crystal, empty", "off the crystal".
    static func offTheCrystal(_ surroundings: Surroundings?) -> String {
        "off the crystal" + (surroundings.map { ", \($0.rawValue)" } ?? "")
    }

    /// "5 bright columns, 1 dim column, 3 vacancies and 2 interstitials"; nil where none stands out.
    static func featureList(_ counts: [(kind: OverviewFeature.Kind, count: Int)]) -> String? {
        let parts = counts.filter { $0.count > 0 }.map { "\($0.count) \(name($0.kind, plural: $0.count != 1))" }
        return parts.isEmpty ? nil : listed(parts)
    }

    static let noColumnStandsOut = "No column or site stands out."

    /// The lattice with its news, for the summary's first sentence: "Square lattice with 5 bright columns and 3
    /// vacancies.", "Hexagonal lattice covering the left three fifths of the image, the rest amorphous, with 1 bright
    /// column and 1 vacancy."; nil where it fills the image and nothing in it stands out.
    static func latticeNews(
        _ lattice: LatticeDescription, extent: String, surroundings: Surroundings?, features: String?
    ) -> String? {
        guard features != nil || extent != Places.wholeImage else { return nil }
        let kind = lattice.kind.spoken.capitalizedFirst
        var sentence = "\(kind) lattice"
        if extent != Places.wholeImage {
            sentence += " covering \(extent) of the image" + (surroundings.map { ", the rest \($0.rawValue)" } ?? "")
        }
        if let features { sentence += (extent == Places.wholeImage ? "" : ",") + " with \(features)" }
        return sentence + "."
    }

    /// The lattice's cell and columns, after the news: "Cell a 390.5 picometres, turned 3 degrees clockwise; 545
    /// columns in 2 sublattices."
    static func latticeParameters(_ lattice: LatticeDescription, pixelSize: PixelSize?) -> String {
        let sublattices = lattice.sublattices.count > 1 ? " in \(lattice.sublattices.count) sublattices" : ""
        return "Cell \(cell(lattice, pixelSize: pixelSize, precise: false)), "
            + "\(turned(lattice.rotation, precise: false)); \(counted(lattice.columns, "column"))\(sublattices)."
    }

    /// "Two polar domains: in a band across the middle, sublattice 2 is displaced 15 picometres, towards the top; in
    /// the rest, towards the bottom." — the domain said first is the one `place` names, the other is the rest.
    static func polarDomains(sublattice: Int, place: String, _ displacements: [PixelVector], pixelSize: PixelSize?)
        -> String
    {
        let first = displaced(displacements[0], pixelSize: pixelSize)
        let second = displaced(displacements[1], pixelSize: pixelSize)
        // About their middle the two are opposite: the second is said by its way alone.
        let way = second.range(of: ", ").map { String(second[$0.upperBound...]) } ?? second
        return "Two polar domains: in \(place), sublattice \(sublattice) is \(first); in the rest, \(way)."
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
    static func featureDetail(_ feature: OverviewFeature, sublattice: Int?, pixelSize: PixelSize?) -> String {
        let relative = feature.relativeIntensity.map { String(format: "%.2f", $0) } ?? ""
        let course =
            "from \(position(feature.points.first ?? feature.position)) to \(position(feature.points.last ?? feature.position))"
        let what =
            switch feature.kind {
            case .grainBoundary, .domainWall: course
            case .interface: "\(course); beyond it the lattice is \(stepped(feature.step ?? .none))"
            case .dislocation:
                "at \(position(feature.position)), Burgers vector \(burgers(feature.burgers ?? .zero, pixelSize: pixelSize))"
            case .brightColumn, .dimColumn:
                "at \(position(feature.position)), \(relative) times as bright as its sublattice there"
            case .vacancy:
                "at \(position(feature.position)), an empty site\(sublattice.map { " of sublattice \($0)" } ?? "")"
            case .interstitial: "at \(position(feature.position)), off the lattice's sites"
            case .particle, .spot: "at \(position(feature.position))"
            case .ring: "through \(position(feature.position))"
            }
        return "\(feature.label), \(what)."
    }

    // MARK: - Real crystals

    /// "Two grains turned 27 degrees to each other; the boundary runs down the image at two fifths of its width."
    static func grains(_ grains: [CrystalPhysics.Grain], boundaries: [Places.Course]) -> String {
        let count = grains.count == 2 ? "Two" : "\(grains.count)"
        let apart = abs(grains[1].rotationDegrees - grains[0].rotationDegrees)
        let turn = grains.count == 2 ? " turned \(Int(apart.rounded())) degrees to each other" : ""
        let course =
            boundaries.count == 1
            ? "; the boundary runs \(boundaries[0].words)"
            : boundaries.isEmpty ? "" : "; \(boundaries.count) boundaries"
        return "\(count) grains\(turn)\(course)."
    }

    /// "Grain 1, the right three fifths, is turned 31.0 degrees clockwise; grain 2, the left two fifths, 4.0 degrees
    /// clockwise."
    static func grainDetail(_ grains: [CrystalPhysics.Grain]) -> String {
        grains.enumerated().map { k, g in
            let turn = turned(g.rotationDegrees, precise: true)
            return "grain \(k + 1), \(g.side), \(percent(g.fraction)) percent of the image, is \(turn)"
        }.joined(separator: "; ").capitalizedFirst + "."
    }

    /// "An interface runs down the image at half its width: beyond it the lattice is 3.0 percent wider."
    static func interfaceSummary(_ interface: OverviewFeature, width: Int, height: Int) -> String {
        "An interface runs \(Places.course(of: interface.points, width: width, height: height).words): beyond it the "
            + "lattice is \(stepped(interface.step ?? .none))."
    }

    /// What an interface's step does to the lattice, its largest parts first — wider or narrower (along x), taller or
    /// shorter (along y), sheared, turned: "3.0 percent wider", "0.4 percent shorter and turned 0.5 degrees
    /// clockwise"; "the same" where nothing is large enough to say.
    static func stepped(_ step: Deformation) -> String {
        var parts: [(size: Double, words: String)] = []
        let sizes = [(step.exx, "wider", "narrower"), (step.eyy, "taller", "shorter")]
        for (value, more, less) in sizes where abs(value) >= InterfaceSearch.smallest {
            parts.append((abs(value), "\(oneDecimalPercent(abs(value))) percent \(value > 0 ? more : less)"))
        }
        if abs(step.exy) >= InterfaceSearch.smallest {
            parts.append((abs(step.exy), "sheared \(oneDecimalPercent(abs(step.exy))) percent"))
        }
        if abs(step.rotation) >= InterfaceSearch.smallest {
            parts.append((abs(step.rotation), turned(step.rotationDegrees, precise: true)))
        }
        let words = parts.sorted { $0.size > $1.size }.map(\.words)
        return words.isEmpty ? "the same" : listed(words)
    }

    /// "1.2" for 0.012: a share in percent to a tenth.
    static func oneDecimalPercent(_ share: Double) -> String { UnitCell.oneDecimal(100 * share) }

    /// "390 picometres pointing right, turned 4 degrees clockwise": a Burgers vector's length and way.
    static func burgers(_ vector: PixelVector, pixelSize: PixelSize?) -> String {
        let length = vector.length * (pixelSize?.picometres ?? 1)
        let unit = pixelSize == nil ? "pixels" : "picometres"
        let angle = Double.atan2(y: vector.y, x: vector.x) * 180 / Double.pi
        let ways = ["right", "down", "left", "up"]
        let quarter = Int(((angle + 360).truncatingRemainder(dividingBy: 360) / 90).rounded()) % 4
        let off = angle - Double(quarter) * 90
        let offBy = (off + 540).truncatingRemainder(dividingBy: 360) - 180
        let lengthWords = pixelSize == nil ? UnitCell.oneDecimal(length) : String(Int(length.rounded()))
        let turn = abs(offBy) < 0.5 ? "" : ", \(turned(offBy, precise: false))"
        return "\(lengthWords) \(unit) pointing \(ways[quarter])\(turn)"
    }

    /// "The lattice is bent: it turns 3 degrees clockwise from the left to the right."
    static func bending(_ bending: CrystalPhysics.Bending) -> String {
        let turn = Int((bending.to - bending.from).rounded())
        return "The lattice is bent: it turns \(turn) \(turn == 1 ? "degree" : "degrees") clockwise "
            + "\(fromTo(bending.towards))."
    }

    /// "The lattice turns from 1.5 degrees anticlockwise at the left to 1.5 degrees clockwise at the right, against
    /// the reference lattice."
    static func bendingDetail(_ bending: CrystalPhysics.Bending) -> String {
        let ways = ends(bending.towards)
        return "The lattice turns from \(turnedAt(bending.from)) at the \(ways.from) to \(turnedAt(bending.to)) at the "
            + "\(ways.to), against the reference lattice."
    }

    /// "1.5 degrees clockwise", "not at all".
    private static func turnedAt(_ degrees: Double) -> String {
        let words = turned(degrees, precise: true)
        return words == "not turned" ? "not turned" : String(words.dropFirst("turned ".count))
    }

    /// The sides a direction runs between: ("left", "right"), ("upper left", "lower right").
    static func ends(_ towards: PixelVector) -> (from: String, to: String) {
        let ways = ["right", "lower right", "bottom", "lower left", "left", "upper left", "top", "upper right"]
        let angle = atan2(towards.y, towards.x) * 180 / Double.pi
        let k = (Int((angle / 45).rounded()) + 8) % 8
        return (ways[(k + 4) % 8], ways[k])
    }

    /// "from the left to the right".
    static func fromTo(_ towards: PixelVector) -> String {
        let ways = ends(towards)
        return "from the \(ways.from) to the \(ways.to)"
    }

    /// The reflections as a microscopist reads a diffractogram, each spacing once with its directions, strongest
    /// first: "Reflections: 390.5 picometres along 0 and 90 degrees; 276.1 picometres along 45 and 135 degrees."; nil
    /// for none. At most `spokenSpacings` spacings, the strongest reflection of each first.
    static func reflections(_ reflections: [Reflection], pixelSize: PixelSize?) -> String? {
        var groups: [(spacing: Double, directions: [Double])] = []
        for r in reflections {
            if let k = groups.firstIndex(where: { abs($0.spacing - r.spacing) <= sameSpacing * $0.spacing }) {
                if !groups[k].directions.contains(where: { abs($0 - r.direction) < 0.5 }) {
                    groups[k].directions.append(r.direction)
                }
            } else if groups.count < spokenSpacings {
                groups.append((r.spacing, [r.direction]))
            }
        }
        guard !groups.isEmpty else { return nil }
        let unit = pixelSize == nil ? "pixels" : "picometres"
        let parts = groups.map { group in
            let d = UnitCell.oneDecimal(group.spacing * (pixelSize?.picometres ?? 1))
            let angles = group.directions.sorted().map { String(Int($0.rounded()) % 180) }
            return "\(d) \(unit) along \(listed(angles)) degrees"
        }
        return "Reflections: " + parts.joined(separator: "; ") + "."
    }

    /// Reflections whose spacings differ by less than this share are said as one.
    static let sameSpacing = 0.01
    static let spokenSpacings = 4
}

extension String {
    /// The text with its first letter a capital.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
