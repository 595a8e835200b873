import RealModule

/// The whole image at a glance, for someone who cannot glance: what the image is, then — for a lattice — what lattice
/// it shows, where the crystal is, what stands out and where; for particles, how many, how large and where; for a
/// diffraction pattern, its beam and its spots' lattice or its rings; else its bright and dark regions, or that it is
/// noise — in a spoken summary, details on request, and features to step through.
///
/// A diffraction pattern is recognised first (`DiffractionPattern`), so its spots are never read as columns; then
/// the lattice; then particles (`ParticleSearch`); then regions or noise (`ImageRegions`).
///
/// A lattice's overview is built from the columns the finder found and the lattice read from them (`LatticeColumns`), so it costs little more
/// than finding the columns. Everything reported stands out from the image's own noise (`Significance`): the
/// counting noise the column fits see, not fixed ratios, so a noisy image does not sound full of false features.
public struct ImageOverview: Sendable {
    /// What an image is, in the order the overview asks; the raw value is its name in `describe --json`.
    public enum Kind: String, Sendable {
        case diffraction, lattice, particles, regions, noise
    }

    public let width: Int, height: Int
    public let kind: Kind
    /// Sentences, most important first, at most `summaryWords` words in all; the first stands alone.
    public private(set) var summary: [String]
    /// Sentences in order of importance: the lattice, the crystal, the domains, each feature, the large-scale
    /// intensity.
    public let details: [String]
    /// Nil where the image shows no lattice.
    public let lattice: LatticeDescription?
    /// Where the crystal is; nil where the image shows no lattice.
    public let crystal: CrystalRegion?
    /// Where the crystal lies, in words: "the whole image", "the left three fifths"; nil without a crystal.
    public let extent: String?
    /// What lies beside the crystal, where that can be told.
    public let surroundings: Surroundings?
    /// The notable features, in order of importance: each kind in the order of `OverviewFeature.Kind`, and within a
    /// kind, the one that stands out most first.
    public let features: [OverviewFeature]
    /// How the columns' brightness changes over the image.
    public let largeScale: LargeScaleIntensity
    /// The crystal's grains, boundaries, interfaces, dislocations and bending; nil where the image shows no lattice.
    public let physics: CrystalPhysics?
    /// The image's reflections, strongest first, each with its grain numbered as the crystal's are where the columns
    /// show them (`grain` is then an index into `physics.grains`).
    public let reflections: [Reflection]
    /// The particles, largest first; empty unless the image is particles.
    public let particles: [Particle]
    /// Nil unless the image is a diffraction pattern.
    public let diffraction: DiffractionPattern?
    /// Nil unless the image is regions or noise.
    public let regions: ImageRegions?

    public static let summaryWords = 60

    /// The overview with `sentence` said after its summary: what changes across a stack's frames.
    public func adding(summary sentence: String) -> ImageOverview {
        var overview = self
        overview.summary.append(sentence)
        return overview
    }

    /// The overview of `image`, its columns found afresh; lengths in picometres with a pixel size, d spacings with a
    /// reciprocal calibration (reciprocal nanometres a pixel).
    public init(image: GrayImage, pixelSize: PixelSize?, reciprocalPerPixel: Double? = nil) {
        let finder = ColumnFinder(image: image)
        self.init(
            finder: finder, columns: LatticeColumns(finding: finder, pixelSize: pixelSize),
            reciprocalPerPixel: reciprocalPerPixel)
    }

    /// The overview of the image `finder` searched, whose columns and lattice are `columns`; d spacings with a
    /// reciprocal calibration (reciprocal nanometres a pixel).
    public init(finder: ColumnFinder, columns: LatticeColumns, reciprocalPerPixel: Double? = nil) {
        let analysis = columns.analysis
        let width = finder.image.width, height = finder.image.height
        self.width = width
        self.height = height
        if let pattern = DiffractionPattern(finder: finder, reciprocalPerPixel: reciprocalPerPixel) {
            kind = .diffraction
            diffraction = pattern
            summary = Self.fitted(Phrases.diffractionSummary(pattern), words: Self.summaryWords)
            details = Phrases.diffractionDetails(pattern)
            particles = []; regions = nil; reflections = []
            lattice = nil; crystal = nil; extent = nil; surroundings = nil
            features = Self.features(of: pattern, width: width, height: height)
            largeScale = LargeScaleIntensity()
            physics = nil
            return
        }
        diffraction = nil
        let diffractogram = Diffractogram(image: finder.image)
        let reflections = Self.reflections(diffractogram, grains: analysis)
        self.reflections = reflections
        let reflectionDetail = Phrases.reflections(reflections, pixelSize: columns.pixelSize).map { [$0] } ?? []
        guard let spacing = finder.spacing, let lattice = LatticeDescription(analysis), let crystal = analysis.crystal
        else {
            if let found = ParticleSearch.find(in: finder.image, noise: finder.noise) {
                kind = .particles
                particles = found
                regions = nil
                let told = Self.told(found, pixelSize: columns.pixelSize, width: width, height: height)
                summary = told.summary; details = told.details; features = told.features
            } else {
                let found = ImageRegions(finder.image, noise: finder.noise)
                kind = found.layout == .noise ? .noise : .regions
                particles = []
                regions = found
                summary = [Phrases.regions(found)]
                details = summary + reflectionDetail
                features = []
            }
            lattice = nil; crystal = nil; extent = nil; surroundings = nil; largeScale = LargeScaleIntensity()
            physics = nil
            return
        }
        kind = .lattice
        particles = []
        regions = nil
        self.lattice = lattice
        self.crystal = crystal
        let extent = Places.extent(of: crystal)
        self.extent = extent
        let noise = CountingNoise(finder, spacing: spacing)
        let brightness = ColumnBrightness(analysis, noise: noise, width: width, height: height, spacing: spacing)
        largeScale = brightness.largeScale
        let domains = PolarDomains.find(in: analysis, width: width, height: height, spacing: spacing)
        let physics = CrystalPhysics(analysis, spacing: spacing, width: width, height: height)
        self.physics = physics
        let findings = Self.findings(
            analysis, brightness: brightness, domains: domains, physics: physics, noise: noise, width: width,
            height: height, spacing: spacing)
        var counts: [OverviewFeature.Kind: Int] = [:]
        for f in findings { counts[f.kind, default: 0] += 1 }
        var numbers: [OverviewFeature.Kind: Int] = [:]
        var features: [OverviewFeature] = []
        var sublatticesOfFindings: [Int?] = []
        for f in findings {
            numbers[f.kind, default: 0] += 1
            let feature = OverviewFeature(
                kind: f.kind, position: f.position, place: f.place,
                label: Phrases.featureLabel(f.kind, number: numbers[f.kind]!, of: counts[f.kind]!, place: f.place),
                relativeIntensity: f.relative, points: f.points, significance: f.significance, burgers: f.burgers,
                step: f.step)
            features.append(feature)
            sublatticesOfFindings.append(f.sublattice)
        }
        self.features = features

        let pixelSize = columns.pixelSize
        // The news first: what divides the crystal (its grains, then its interfaces), its domains, its bending,
        // what stands out in it and what lies beside it; then the lattice's cell; the large-scale intensity last.
        var sentences: [String] = []
        if physics.grains.count >= 2 {
            sentences.append(
                Phrases.grains(
                    physics.grains,
                    boundaries: physics.boundaries.map { Places.course(of: $0, width: width, height: height) }))
        }
        sentences += features.filter { $0.kind == .interface }.map {
            Phrases.interfaceSummary($0, width: width, height: height)
        }
        let domainSentence = domains.map {
            Self.domainSummary($0, width: width, height: height, spacing: spacing, pixelSize: pixelSize)
        }
        if let domainSentence { sentences.append(domainSentence) }
        if let bending = physics.bending { sentences.append(Phrases.bending(bending)) }
        let featureList = Phrases.featureList(
            OverviewFeature.Kind.allCases.filter { ![.domainWall, .grainBoundary, .interface].contains($0) }.map {
                ($0, counts[$0] ?? 0)
            })
        let surroundings = Surroundings.judge(analysis, crystal: crystal, spacing: spacing)
        self.surroundings = surroundings
        if let news = Phrases.latticeNews(
            lattice, extent: extent, surroundings: surroundings, features: featureList)
        {
            sentences += [news, Phrases.latticeParameters(lattice, pixelSize: pixelSize)]
        } else {
            sentences.append(Phrases.latticeSummary(lattice, extent: extent, pixelSize: pixelSize))
        }
        if featureList == nil { sentences.append(Phrases.noColumnStandsOut) }
        let intensity = [largeScale.gradient.map(Phrases.gradient), largeScale.region.map(Phrases.region)].compactMap {
            $0
        }
        sentences += intensity
        summary = Self.fitted(sentences, words: Self.summaryWords)
        // The details: each feature, then the lattice restated in full.
        var details = zip(features, sublatticesOfFindings).map {
            Phrases.featureDetail($0, sublattice: $1, pixelSize: pixelSize)
        }
        if let domains {
            details.append(Phrases.domains(domains.walls.map { Places.course(of: $0, width: width, height: height) }))
            details.append(
                Phrases.domainDisplacements(
                    sublattice: domains.sublattice, Self.aboutTheirMiddle(domains.displacements), pixelSize: pixelSize))
        }
        details.append(Phrases.latticeDetail(lattice, pixelSize: pixelSize))
        if lattice.sublattices.count > 1 { details.append(Phrases.sublatticeDetail(lattice.sublattices)) }
        if physics.grains.count >= 2 { details.append(Phrases.grainDetail(physics.grains)) }
        if let bending = physics.bending { details.append(Phrases.bendingDetail(bending)) }
        details += reflectionDetail
        details.append(
            Phrases.crystalDetail(
                fraction: crystal.fraction, extent: extent, outline: crystal.outline, width: width, height: height))
        self.details = details + intensity
    }

    /// A diffraction pattern's spots, strongest first, then its rings, innermost first, each a feature to step
    /// through and be guided to: a spot met within `DiffractionPattern.spotReach` pixels of it; a ring guided to
    /// where it crosses the image's first axis (right of the beam, else above, left, below) that lies in the image,
    /// and met, as a line, where the nib crosses it.
    static func features(of pattern: DiffractionPattern, width: Int, height: Int) -> [OverviewFeature] {
        let reach = Double(DiffractionPattern.spotReach)
        let spots = pattern.spots.enumerated().map { k, spot in
            let place = Places.region(of: spot.position, width: width, height: height)
            return OverviewFeature(
                kind: .spot, position: spot.position, place: place,
                label: Phrases.featureLabel(.spot, number: k + 1, of: pattern.spots.count, place: place),
                relativeIntensity: nil, points: [], significance: spot.intensity, radius: reach)
        }
        guard let centre = pattern.centre else { return spots }
        let rings = pattern.rings.enumerated().map { k, radius in
            let crossings = [(1.0, 0.0), (0, -1), (-1, 0), (0, 1)].map {
                ImagePoint(x: centre.x + radius * $0.0, y: centre.y + radius * $0.1)
            }
            let target =
                crossings.first { $0.x >= 0 && $0.y >= 0 && $0.x <= Double(width - 1) && $0.y <= Double(height - 1) }
                ?? crossings[0]
            let course = (0...72).map { step in
                let angle = Double(step) / 72 * 2 * Double.pi
                return ImagePoint(x: centre.x + radius * Double.cos(angle), y: centre.y + radius * Double.sin(angle))
            }
            let place = Places.region(of: target, width: width, height: height)
            return OverviewFeature(
                kind: .ring, position: target, place: place,
                label: Phrases.featureLabel(.ring, number: k + 1, of: pattern.rings.count, place: place),
                relativeIntensity: nil, points: course, significance: radius, radius: reach)
        }
        return spots + rings
    }

    /// The particles told: the summary, the details (all particles, then each), and each particle a feature, largest
    /// first.
    private static func told(_ particles: [Particle], pixelSize: PixelSize?, width: Int, height: Int) -> (
        summary: [String], details: [String], features: [OverviewFeature]
    ) {
        let unit = Phrases.diameterUnit(pixelSize)
        let features = particles.enumerated().map { k, particle in
            let place = Places.region(of: particle.position, width: width, height: height)
            let diameter = Phrases.diameter(particle.diameter, pixelSize: pixelSize, digits: 2)
            return OverviewFeature(
                kind: .particle, position: particle.position, place: place,
                label: Phrases.particleLabel(
                    number: k + 1, of: particles.count, place: place, diameter: diameter, unit: unit),
                relativeIntensity: nil, points: [], significance: particle.diameter, radius: particle.diameter / 2)
        }
        let summary = fitted(
            Phrases.particlesSummary(particles, pixelSize: pixelSize, width: width, height: height),
            words: summaryWords)
        let details =
            [Phrases.particlesDetail(particles, pixelSize: pixelSize, width: width, height: height)]
            + zip(features, particles).map { Phrases.particleDetail($0, touching: $1.touching) }
        return (summary, details, features)
    }

    /// A feature as found, before it is numbered within its kind.
    private struct Finding {
        var kind: OverviewFeature.Kind
        var position: ImagePoint
        var place: String
        var relative: Double?
        var points: [ImagePoint]
        var significance: Double
        var sublattice: Int?
        var burgers: PixelVector? = nil
        var step: Deformation? = nil
    }

    /// Every feature, in order of importance: the boundaries between grains, the interfaces, the dislocations, the
    /// domains' walls, the columns that stand out, the empty sites and the interstitials — those of single columns
    /// only where the lattice round them is their own (`CrystalPhysics.disturbs`).
    private static func findings(
        _ analysis: LatticeAnalysis, brightness: ColumnBrightness, domains: PolarDomains?, physics: CrystalPhysics,
        noise: CountingNoise, width: Int, height: Int, spacing: Double
    ) -> [Finding] {
        func region(_ p: ImagePoint) -> String { Places.region(of: p, width: width, height: height) }
        func course(_ points: [ImagePoint]) -> String { Places.course(of: points, width: width, height: height).words }
        var found: [Finding] = []
        found += physics.boundaries.map { boundary in
            Finding(
                kind: .grainBoundary, position: middle(of: boundary), place: course(boundary), relative: nil,
                points: boundary, significance: .infinity, sublattice: nil)
        }
        found += physics.interfaces.map { interface in
            Finding(
                kind: .interface, position: middle(of: interface.points), place: course(interface.points),
                relative: nil, points: interface.points, significance: interface.significance, sublattice: nil,
                step: interface.step)
        }
        found += physics.dislocations.map { dislocation in
            let p = ImagePoint(x: dislocation.core.x, y: dislocation.core.y)
            return Finding(
                kind: .dislocation, position: p, place: region(p), relative: nil, points: [],
                significance: Double(dislocation.circuits), sublattice: nil, burgers: dislocation.burgers)
        }
        if let domains {
            found += domains.walls.map { wall in
                Finding(
                    kind: .domainWall, position: middle(of: wall),
                    place: Places.course(of: wall, width: width, height: height).words, relative: nil, points: wall,
                    significance: domains.significance, sublattice: domains.sublattice)
            }
        }
        let single = found.count
        found += brightness.outliers.map { outlier in
            let c = analysis.columns[outlier.index]
            let p = ImagePoint(x: c.column.x, y: c.column.y)
            return Finding(
                kind: outlier.significance > 0 ? .brightColumn : .dimColumn, position: p, place: region(p),
                relative: outlier.relative, points: [], significance: abs(outlier.significance),
                sublattice: c.sublattice)
        }
        let empty = SiteFeatures.emptySites(
            analysis, brightness: brightness, noise: noise, width: width, height: height, spacing: spacing)
        for (kind, sites) in [(OverviewFeature.Kind.dimColumn, empty.dimColumns), (.vacancy, empty.vacancies)] {
            found += sites.map {
                Finding(
                    kind: kind, position: $0.position, place: region($0.position), relative: $0.relative, points: [],
                    significance: abs($0.significance), sublattice: $0.sublattice)
            }
        }
        found += SiteFeatures.interstitials(analysis, noise: noise, width: width, height: height, spacing: spacing)
            .map {
                Finding(
                    kind: .interstitial, position: $0.position, place: region($0.position), relative: nil,
                    points: [], significance: $0.significance, sublattice: nil)
            }
        let judged =
            found[..<single]
            + found[single...].filter {
                !physics.disturbs(PixelVector(x: $0.position.x, y: $0.position.y))
            }
        return judged.sorted { ($0.kind, -$0.significance) < ($1.kind, -$1.significance) }
    }

    /// The diffractogram's reflections, each reciprocal grain's given the number of the crystal's grain whose lattice
    /// it is (turned least against it, within the lattice's symmetry); kept as they are where the columns show no
    /// lattice.
    static func reflections(_ diffractogram: Diffractogram, grains analysis: LatticeAnalysis) -> [Reflection] {
        guard !analysis.grains.isEmpty else { return diffractogram.reflections }
        let numbers = diffractogram.grains.map { reciprocal -> Int in
            let cell = Matrix2(columns: reciprocal.a, reciprocal.b)
            return analysis.grains.indices.min { first, second in
                func turn(_ k: Int) -> Double {
                    let grain = analysis.grains[k].cell
                    guard let inverse = grain.inverse else { return .infinity }
                    let matched = cell * LatticeAnalysis.matching(cell, to: grain)
                    return abs(Deformation(gradient: matched * inverse).rotation)
                }
                return turn(first) < turn(second)
            }!
        }
        return diffractogram.reflections.map { reflection in
            var numbered = reflection
            numbered.grain = reflection.grain.map { numbers[$0] }
            return numbered
        }
    }

    /// The sentences from the first, as many as fit in `words` words (the first always).
    static func fitted(_ sentences: [String], words: Int) -> [String] {
        var kept: [String] = [], total = 0
        for sentence in sentences {
            let count = sentence.split(whereSeparator: \.isWhitespace).count
            guard kept.isEmpty || total + count <= words else { break }
            kept.append(sentence)
            total += count
        }
        return kept
    }

    /// The point halfway along a course.
    static func middle(of course: [ImagePoint]) -> ImagePoint {
        let lengths = zip(course, course.dropFirst()).map { PixelVector(x: $1.x - $0.x, y: $1.y - $0.y).length }
        var left = lengths.reduce(0, +) / 2
        for (k, length) in lengths.enumerated() {
            if left <= length && length > 0 {
                let t = left / length
                return ImagePoint(
                    x: course[k].x + t * (course[k + 1].x - course[k].x),
                    y: course[k].y + t * (course[k + 1].y - course[k].y))
            }
            left -= length
        }
        return course.first ?? ImagePoint(x: 0, y: 0)
    }

    /// "Two polar domains: in a band across the middle, …": the domain that is more of a patch said by its place
    /// (the smaller), the other as the rest.
    static func domainSummary(_ domains: PolarDomains, width: Int, height: Int, spacing: Double, pixelSize: PixelSize?)
        -> String
    {
        let everyMember = domains.members[0] + domains.members[1]
        let grid = PointGrid(everyMember, reach: 4 * spacing)
        let smaller = domains.members[0].count <= domains.members[1].count ? 0 : 1
        func inSmaller(_ p: ImagePoint) -> Bool {
            guard let k = grid.nearest(to: PixelVector(x: p.x, y: p.y), within: 4 * spacing) else { return false }
            return (k < domains.members[0].count ? 0 : 1) == smaller
        }
        let fraction = Double(domains.members[smaller].count) / Double(max(1, everyMember.count))
        let place = Places.extent(fraction: fraction, width: width, height: height, contains: inSmaller)
        let displacements = aboutTheirMiddle(domains.displacements)
        return Phrases.polarDomains(
            sublattice: domains.sublattice, place: place, [displacements[smaller], displacements[1 - smaller]],
            pixelSize: pixelSize)
    }

    /// Two domains' displacements from the point halfway between them: how each differs from the other.
    static func aboutTheirMiddle(_ displacements: [PixelVector]) -> [PixelVector] {
        let middle = 0.5 * (displacements[0] + displacements[1])
        return displacements.map { $0 - middle }
    }
}
