import RealModule

extension Phrases {
    // MARK: - Particles

    /// A particle's diameter in nanometres with a pixel size, else in pixels, to `digits` significant digits.
    static func diameter(_ pixels: Double, pixelSize: PixelSize?, digits: Int) -> String {
        NumberText.significant(pixelSize.map { pixels * $0.picometres / 1000 } ?? pixels, digits: digits)
    }

    static func diameterUnit(_ pixelSize: PixelSize?) -> String { pixelSize == nil ? "pixels" : "nanometres" }

    /// "14 particles, 2.4 to 8 nanometres across, 4.6 on average.", "One particle, 6.2 nanometres across, at the
    /// centre."; then where the largest and smallest are, and which touch.
    static func particlesSummary(_ particles: [Particle], pixelSize: PixelSize?, width: Int, height: Int) -> [String] {
        let unit = diameterUnit(pixelSize)
        func size(_ d: Double) -> String { diameter(d, pixelSize: pixelSize, digits: 2) }
        func place(_ p: Particle) -> String { Places.region(of: p.position, width: width, height: height) }
        guard particles.count > 1 else {
            return ["One particle, \(size(particles[0].diameter)) \(unit) across, at the \(place(particles[0]))."]
        }
        let sizes = particles.map(\.diameter)
        let mean = sizes.reduce(0, +) / Double(sizes.count)
        var sentences = [
            "\(particles.count) particles, \(size(sizes.min()!)) to \(size(sizes.max()!)) \(unit) across, "
                + "\(size(mean)) on average."
        ]
        // The list is largest first.
        sentences.append(
            "The largest is at the \(place(particles[0])), the smallest at the \(place(particles[particles.count - 1]))."
        )
        sentences.append(touchingSummary(particles, width: width, height: height))
        return sentences
    }

    /// "None touch.", "Two touch, at the left.", "3 pairs touch: at the upper left, the centre and the bottom."
    static func touchingSummary(_ particles: [Particle], width: Int, height: Int) -> String {
        var pairs: [(Int, Int)] = []
        for (i, p) in particles.enumerated() { for j in p.touching where j > i { pairs.append((i, j)) } }
        guard !pairs.isEmpty else { return "None touch." }
        let places = pairs.map { i, j in
            let a = particles[i].position, b = particles[j].position
            return Places.region(of: ImagePoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2), width: width, height: height)
        }
        if pairs.count == 1 { return "Two touch, at the \(places[0])." }
        return "\(pairs.count) pairs touch: at \(listed(places.map { "the \($0)" }))."
    }

    /// "Particles: 14 on 6.1 percent of the image, 12.1 to 40.3 pixels across, mean 23.4."
    static func particlesDetail(_ particles: [Particle], pixelSize: PixelSize?, width: Int, height: Int) -> String {
        let sizes = particles.map(\.diameter)
        let area = sizes.reduce(0) { $0 + Double.pi * $1 * $1 / 4 }
        let mean = sizes.reduce(0, +) / Double(sizes.count)
        func size(_ d: Double) -> String { diameter(d, pixelSize: pixelSize, digits: 3) }
        return "Particles: \(particles.count) on \(oneDecimalPercent(area / Double(width * height))) percent of the "
            + "image, \(size(sizes.min()!)) to \(size(sizes.max()!)) \(diameterUnit(pixelSize)) across, mean "
            + "\(size(mean))."
    }

    /// "Particle 2 of 14, upper left, 6.2 nanometres": what is said on stepping to a particle.
    static func particleLabel(number: Int, of count: Int, place: String, diameter: String, unit: String) -> String {
        "Particle \(number) of \(count), \(place), \(diameter) \(unit)"
    }

    /// "Particle 2 of 14, upper left, 6.2 nanometres, at x 52.3, y 40.1, touching particle 5."
    static func particleDetail(_ feature: OverviewFeature, touching: [Int]) -> String {
        let others =
            touching.isEmpty
            ? ""
            : ", touching \(touching.count == 1 ? "particle" : "particles") \(listed(touching.map { "\($0 + 1)" }))"
        return "\(feature.label), at \(position(feature.position))\(others)."
    }

    // MARK: - Diffraction patterns

    /// "2.561 reciprocal nanometres apart, d 390.5 picometres" with a calibration, else "38.02 pixels apart", for
    /// the reciprocal lengths of `pixels`.
    static func reciprocalSpacings(_ pixels: [Double], _ pattern: DiffractionPattern) -> String {
        let number = NumberText.readable
        guard let perPixel = pattern.reciprocalPerPixel else {
            return "\(listed(pixels.map(number))) pixels apart"
        }
        let d = pixels.compactMap(pattern.dPicometres).map(number)
        return "\(listed(pixels.map { number($0 * perPixel) })) reciprocal nanometres apart, d \(listed(d)) picometres"
    }

    /// "A diffraction pattern: spots of a square lattice, 2.561 reciprocal nanometres apart, d 390.5 picometres,
    /// turned 7 degrees clockwise.", "A diffraction pattern: 5 rings about the direct beam, their radii in the
    /// ratios 1, 1.155, 1.633, 1.915 and 2."; then the spots and the beam, or the rings' d spacings.
    static func diffractionSummary(_ pattern: DiffractionPattern) -> [String] {
        guard let centre = pattern.centre else {
            let regions = pattern.regions.map { ": \(regionsBody($0))" } ?? ""
            return ["A diffraction pattern, its direct beam outside the image\(regions)."]
        }
        let beam = "the direct beam at \(position(centre))"
        if let lattice = pattern.lattice {
            let lengths =
                [.square, .hexagonal].contains(lattice.kind)
                ? [lattice.g1.length] : [lattice.g1.length, lattice.g2.length]
            let angle =
                [.oblique, .centredRectangular].contains(lattice.kind)
                ? ", gamma \(Int(lattice.gamma.rounded())) degrees" : ""
            return [
                "A diffraction pattern: spots of \(article(lattice.kind.spoken)) \(lattice.kind.spoken) lattice, "
                    + "\(reciprocalSpacings(lengths, pattern))\(angle), \(turned(lattice.rotation, precise: false)).",
                "\(counted(pattern.spots.count, "spot")) around \(beam)."
            ]
        }
        if !pattern.rings.isEmpty {
            let ratios = pattern.rings.map { NumberText.significant($0 / pattern.rings[0], digits: 4) }
            let count = pattern.rings.count
            let first =
                count == 1
                ? "A diffraction pattern: one ring about the direct beam."
                : "A diffraction pattern: \(count) rings about the direct beam, their radii in the ratios "
                    + "\(listed(ratios))."
            let spacings =
                pattern.reciprocalPerPixel == nil
                ? "Radii \(listed(pattern.rings.map(NumberText.readable))) pixels."
                : "d spacings \(listed(pattern.rings.compactMap(pattern.dPicometres).map(NumberText.readable))) "
                    + "picometres."
            return [first, spacings, "Their centre: \(beam)."]
        }
        if !pattern.spots.isEmpty {
            return ["A diffraction pattern: \(counted(pattern.spots.count, "spot")) on no lattice, around \(beam)."]
        }
        return ["A diffraction pattern: \(beam); no spots or rings stand out from the noise."]
    }

    /// "a" or "an", as the word after it begins.
    static func article(_ word: String) -> String { "aeiou".contains(word.prefix(1)) ? "an" : "a" }

    /// The pattern in full: its lattice and d spacings, or each ring; the beam; the spots, strongest first.
    static func diffractionDetails(_ pattern: DiffractionPattern) -> [String] {
        var details: [String] = []
        let number = NumberText.readable
        if let lattice = pattern.lattice {
            details.append(
                "Reciprocal lattice: \(lattice.kind.spoken), g1 \(number(lattice.g1.length)) and g2 "
                    + "\(number(lattice.g2.length)) pixels, \(UnitCell.oneDecimal(lattice.gamma)) degrees apart, "
                    + "\(turned(lattice.rotation, precise: true)); it holds \(lattice.indexed) of the "
                    + "\(counted(pattern.spots.count, "spot"))."
            )
            if let perPixel = pattern.reciprocalPerPixel {
                let lengths = [lattice.g1.length, lattice.g2.length]
                details.append(
                    "g1 and g2: \(listed(lengths.map { number($0 * perPixel) })) reciprocal nanometres, d "
                        + "\(listed(lengths.compactMap(pattern.dPicometres).map(number))) picometres.")
            }
        }
        for (k, radius) in pattern.rings.enumerated() {
            var words = "Ring \(k + 1) of \(pattern.rings.count): radius \(number(radius)) pixels"
            if let perPixel = pattern.reciprocalPerPixel, let d = pattern.dPicometres(radius) {
                words += ", \(number(radius * perPixel)) reciprocal nanometres, d \(number(d)) picometres"
            }
            details.append(words + ".")
        }
        if let centre = pattern.centre {
            details.append("Direct beam at \(position(centre)).")
        } else {
            details.append("The direct beam is outside the image.")
        }
        if let perPixel = pattern.reciprocalPerPixel {
            details.append("Calibration: \(NumberText.readable(perPixel)) reciprocal nanometres a pixel.")
        }
        if !pattern.spots.isEmpty {
            let shown = pattern.spots.prefix(spotsListed).map { position($0.position) }
            let more = pattern.spots.count > spotsListed ? "; and \(pattern.spots.count - spotsListed) more" : ""
            details.append("Spots, strongest first: \(shown.joined(separator: "; "))\(more).")
        }
        return details
    }

    /// The details list at most this many spots.
    static let spotsListed = 12

    // MARK: - Regions and noise

    /// "Only noise: nothing stands out from it."
    public static let onlyNoise = "Only noise: nothing in the image stands out from it."

    /// "A bright region covers the top third of the image, 33 percent of it; the rest is darker and even.",
    /// "The image grows evenly brighter towards the right.", "12 bright bands across the image, 50 percent of it,
    /// between darker ones."
    static func regions(_ regions: ImageRegions) -> String {
        regions.layout == .noise ? onlyNoise : "No lattice: \(regionsBody(regions))."
    }

    /// "a bright region covers the top third of the image, 33 percent of it; the rest is darker and even", "the
    /// image grows evenly brighter towards the right", "nothing stands out from the noise".
    static func regionsBody(_ regions: ImageRegions) -> String {
        let share = "\(percent(regions.brightShare)) percent of it"
        let ofImage = "\(percent(regions.brightShare)) percent of the image"
        let rest = regions.evenRest ? "the rest is darker and even" : "the rest is darker"
        switch regions.layout {
        case .noise: return "nothing stands out from the noise"
        case .gradient(let towards): return "the image grows evenly brighter towards the \(towards)"
        case .region(let place):
            let covered = place == Places.wholeImage ? "nearly the whole image" : "\(place) of the image"
            return "a bright region covers \(covered), \(share); \(rest)"
        case .bandsAcross(let count):
            return "\(count) bright bands across the image, \(ofImage), between darker ones"
        case .bandsDown(let count):
            return "\(count) bright bands down the image, \(ofImage), between darker ones"
        case .patches(let count, let largest):
            return "\(count) bright patches, \(ofImage), the largest at the \(largest); \(rest)"
        }
    }
}
