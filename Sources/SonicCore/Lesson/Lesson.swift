import RealModule

/// What the checks of a lesson step look at when the user answers: the pen, the unit cell, what was used during the
/// step, and the truth of the image played.
public struct LessonSituation: Sendable {
    /// Where the nib is over the image; nil when the pen is off it.
    public var nib: ImagePoint?
    /// 0...1.
    public var pressure: Double
    /// Degrees from upright.
    public var lean: Double
    public var cell: UnitCell?
    /// Whether the guide (N) led the pen during the step.
    public var guided: Bool
    /// Whether a sweep played during the step.
    public var swept: Bool
    public var facts: LessonFacts

    public init(
        nib: ImagePoint?, pressure: Double = 0, lean: Double = 0, cell: UnitCell? = nil, guided: Bool = false,
        swept: Bool = false, facts: LessonFacts
    ) {
        self.nib = nib
        self.pressure = pressure
        self.lean = lean
        self.cell = cell
        self.guided = guided
        self.swept = swept
        self.facts = facts
    }
}

/// A check's answer: passed or missed, in the words said.
public enum LessonVerdict: Sendable, Equatable {
    case passed(String)
    case missed(String)

    public var passed: Bool { if case .passed = self { true } else { false } }
    public var words: String {
        switch self {
        case .passed(let words), .missed(let words): words
        }
    }
}

/// One step of the lesson: the image and mode it plays, what it asks, how the user answers and how that is checked.
public struct LessonStep: Sendable {
    public enum Answer: Sendable {
        /// Enter answers, wherever the nib is then.
        case enter
        /// The unit cell made by tags answers, as it is made.
        case cell
    }

    /// Its name in the progress file and the session log.
    public let id: String
    public let image: LessonImage
    public let mode: Mode
    /// What is said as the step starts.
    public let instruction: String
    public let answer: Answer
    public let check: @Sendable (LessonSituation) -> LessonVerdict
    /// An answer that passes, made from the truth of the step's image: what the course takes when timed
    /// (`LessonPhrases.walkthrough`), and what the tests hold each check to.
    public let example: @Sendable (LessonFacts) -> LessonSituation
}

/// The lesson that teaches listening, as one table: each step's image, mode, instruction and check. The controller
/// runs it (`LessonRun`), the help and the manual take its keys from `Bindings`.
public enum Lesson {
    /// A nib this near a column, in column spacings, is on it — as the guide's "Here." says (`Guidance.arrival`).
    public static let onColumn = Guidance.arrival
    /// The pressure that counts as pressing hard, 0...1.
    public static let firmPressure = 0.6
    /// The lean, in degrees from upright, that counts as leaning well over.
    public static let wellLeaning = 30.0
    /// How long the course takes a newcomer, in minutes: what it says (`LessonPhrases.walkthrough`, timed as the
    /// default voice speaks it) and `secondsPerStep` for each step besides.
    public static let minutes = 19
    /// What a newcomer is given for each step besides what is said: moving and listening with the pen, a miss and
    /// its answer, the keys.
    public static let secondsPerStep = 90.0

    public static let steps: [LessonStep] = [
        LessonStep(
            id: "pitch", image: .defects, mode: .intensityPitch,
            instruction:
                "Pitch. Touch the image with the nib and move it slowly: the brighter the image under the nib, the higher the note. The bright dots are atom columns, in rows; between them it is dark and the note is low. Rest the nib on a column, where the note is highest, and press Enter.",
            answer: .enter, check: { onAnyColumn($0) },
            example: { LessonSituation(nib: $0.columns[$0.columns.count / 2], facts: $0) }),
        LessonStep(
            id: "loudness", image: .defects, mode: .pressureAmplitude,
            instruction:
                "Loudness. In this mode, pressing harder plays louder. Press the nib down hard on the image, so the note is loud, and press Enter while you hold it.",
            answer: .enter, check: { pressedHard($0) },
            example: { LessonSituation(nib: $0.columns[0], pressure: 0.8, facts: $0) }),
        LessonStep(
            id: "lean", image: .defects, mode: .tiltFilter,
            instruction:
                "Lean. In this mode, leaning the pen darkens the sound, as if muffled. Touch the image, lean the pen well over to one side, and press Enter while it leans.",
            answer: .enter, check: { leaning($0) },
            example: { LessonSituation(nib: $0.columns[0], lean: 40, facts: $0) }),
        LessonStep(
            id: "rhythm", image: .defects, mode: .intensityPitch,
            instruction:
                "Rhythm. Rest the nib on the image and press X: the row under the pen plays from left to right, each column a beat of a steady rhythm, a missing column a beat left out. When you have heard it, press Enter.",
            answer: .enter, check: { $0.swept ? .passed("Yes: that was a row of columns.") : .missed(noSweep) },
            example: { LessonSituation(nib: $0.columns[0], swept: true, facts: $0) }),
        LessonStep(
            id: "bright-guided", image: .defects, mode: .intensityPitch,
            instruction:
                "Finding with the guide. A few columns of this lattice are brighter than the rest. Press N: beeps lead the pen to the first of them, and Here is said when the nib is on it. Then press Enter.",
            answer: .enter, check: { onBright($0, guideWanted: true) },
            example: { LessonSituation(nib: $0.bright.first, guided: true, facts: $0) }),
        LessonStep(
            id: "bright-alone", image: .crystal, mode: .intensityPitch,
            instruction:
                "Finding without the guide. The crystal fills the left of this image; on the right is amorphous material, irregular. One column is brighter than all the others, so its note is higher. Find it without pressing N, and press Enter on it.",
            answer: .enter, check: { onBright($0, guideWanted: false) },
            example: { LessonSituation(nib: $0.bright.first, facts: $0) }),
        LessonStep(
            id: "vacancy", image: .defects, mode: .intensityPitch,
            instruction:
                "A vacancy. A vacancy is a missing column: a low, quiet place where the rows lead you to expect a note. This lattice has three. Find one, with N or without it, and press Enter on it.",
            answer: .enter, check: { onVacancy($0) }, example: { LessonSituation(nib: $0.vacancies.first, facts: $0) }),
        LessonStep(
            id: "domains", image: .domains, mode: .latticeDisplacement,
            instruction:
                "Two domains. In this crystal the small columns between the large ones sit a little up in a band across the middle of the image, and a little down above and below it. In this mode each column near the nib plays its displacement: displaced up, a bright, buzzing note; displaced down, a pure, dark one. Put the nib in the middle band, where the notes are bright, and press Enter.",
            answer: .enter, check: { inMiddleDomain($0) },
            example: { LessonSituation(nib: middleOfDomains($0), facts: $0) }),
        LessonStep(
            id: "cell", image: .defects, mode: .unitCellTagging,
            instruction:
                "A unit cell. In this mode a tap tags the column under the nib. Tap a column, then its neighbour to one side, then its neighbour above or below it: three tags make a unit cell. BackSpace removes the last tag.",
            answer: .cell, check: { neighbouringCell($0) },
            example: { LessonSituation(nib: $0.columns.first, cell: neighbours($0), facts: $0) }),
        LessonStep(
            id: "spectrum", image: .spectrum, mode: .spectrum,
            instruction:
                "A spectrum's timbre. Each pixel of this image holds a spectrum: iron in a round region, nickel all around it. In this mode the pen plays the spectrum under the nib as a chord, low energies low and high energies high, so each element's lines are tones of their own; pressing harder takes in the pixels around the nib. Iron's strongest line lies below nickel's, so over iron that tone is lower. Move the nib slowly across the image until the chord drops, and press Enter in iron's region.",
            answer: .enter, check: { inPlace(of: "Fe", $0) },
            example: { LessonSituation(nib: middle(of: "Fe", $0), facts: $0) })
    ]

    /// The step named `id`, by its place in the table.
    public static func index(of id: String) -> Int? { steps.firstIndex { $0.id == id } }

    static let offImage = "The nib is not on the image: touch it, then press Enter."
    static let noSweep = "No sweep yet: rest the nib on the image and press X."

    static func onAnyColumn(_ s: LessonSituation) -> LessonVerdict {
        guard let nib = s.nib, let column = LessonFacts.nearest(of: s.facts.columns, to: nib) else {
            return .missed(offImage)
        }
        if column.distance <= onColumn * s.facts.spacing { return .passed("Yes, that is a column.") }
        return .missed(
            "That is between columns; the nearest is "
                + LessonPhrases.offset(of: column.point, from: nib, spacing: s.facts.spacing, from: "the nib") + ".")
    }

    static func pressedHard(_ s: LessonSituation) -> LessonVerdict {
        guard s.nib != nil else { return .missed(offImage) }
        let said = Phrases.percent(s.pressure)
        if s.pressure >= firmPressure { return .passed("Yes: a firm press, \(said) percent.") }
        return .missed(
            "That was a light touch, \(said) percent of full pressure: press harder, and Enter as you hold it.")
    }

    static func leaning(_ s: LessonSituation) -> LessonVerdict {
        guard s.nib != nil else { return .missed(offImage) }
        let degrees = Int(s.lean.rounded())
        if s.lean >= wellLeaning { return .passed("Yes: the pen leans \(degrees) degrees.") }
        return .missed("The pen leans \(degrees) degrees: lean it further, at least \(Int(wellLeaning)).")
    }

    static func onBright(_ s: LessonSituation, guideWanted: Bool) -> LessonVerdict {
        if !guideWanted && s.guided {
            return .missed("That was with the guide: press Shift+Enter to start the step again, and find it without N.")
        }
        return on(s.facts.bright, s, named: guideWanted ? "a bright column" : "the brightest column")
    }

    static func onVacancy(_ s: LessonSituation) -> LessonVerdict { on(s.facts.vacancies, s, named: "a vacancy") }

    /// Passed when the nib is on one of `targets`; else where the nib is from the nearest.
    static func on(_ targets: [ImagePoint], _ s: LessonSituation, named name: String) -> LessonVerdict {
        guard let nib = s.nib, let target = LessonFacts.nearest(of: targets, to: nib) else { return .missed(offImage) }
        if target.distance <= onColumn * s.facts.spacing { return .passed("Yes, \(name).") }
        return .missed(
            "That one is " + LessonPhrases.offset(of: nib, from: target.point, spacing: s.facts.spacing, from: "it")
                + ".")
    }

    static func inMiddleDomain(_ s: LessonSituation) -> LessonVerdict {
        guard let nib = s.nib else { return .missed(offImage) }
        let heights = s.facts.walls.compactMap { LessonFacts.height(of: $0, at: nib.x) }.sorted()
        guard let top = heights.first, let bottom = heights.last, heights.count == 2 else {
            return .missed("This image has no two domains.")
        }
        if nib.y < top { return .missed("That is above the middle band, where the columns sit down: move down.") }
        if nib.y > bottom { return .missed("That is below the middle band, where the columns sit down: move up.") }
        return .passed("Yes: the middle band, where the small columns sit up.")
    }

    /// Passed when the nib is over a pixel holding the element `symbol`; else which element's region it is in, and
    /// which way the element's region lies.
    static func inPlace(of symbol: String, _ s: LessonSituation) -> LessonVerdict {
        guard let nib = s.nib else { return .missed(offImage) }
        guard let place = s.facts.places.first(where: { $0.symbol == symbol }), let nearest = place.nearest(to: nib)
        else { return .missed("This image holds no \(symbol).") }
        if place.holds(nib) { return .passed("Yes: \(place.name)'s region.") }
        let here = s.facts.places.first { !$0.everywhere && $0.holds(nib) }
        return .missed(
            (here.map { "That is \($0.name)'s region" } ?? "That is not \(place.name)'s region")
                + "; \(place.name)'s is "
                + LessonPhrases.direction(of: nearest, from: nib, from: "the nib") + ".")
    }

    // MARK: - What the examples answer with

    /// Halfway between the two domain walls, across the middle of the image.
    static func middleOfDomains(_ facts: LessonFacts) -> ImagePoint? {
        let x = facts.columns.map(\.x).reduce(0, +) / Double(max(1, facts.columns.count))
        let heights = facts.walls.compactMap { LessonFacts.height(of: $0, at: x) }
        guard heights.count == 2 else { return nil }
        return ImagePoint(x: x, y: (heights[0] + heights[1]) / 2)
    }

    /// A unit cell on the first column and its neighbours along the image's axes, as a column spacing makes it.
    static func neighbours(_ facts: LessonFacts) -> UnitCell? {
        guard let origin = facts.columns.first else { return nil }
        return UnitCell(
            origin: origin, vectorA: ImagePoint(x: facts.spacing, y: 0), vectorB: ImagePoint(x: 0, y: facts.spacing))
    }

    /// The centre of the pixels holding `symbol`.
    static func middle(of symbol: String, _ facts: LessonFacts) -> ImagePoint? {
        guard let place = facts.places.first(where: { $0.symbol == symbol }) else { return nil }
        let inside = place.present.indices.filter { place.present[$0] }
        guard !inside.isEmpty else { return nil }
        let count = Double(inside.count)
        return ImagePoint(
            x: inside.reduce(0.0) { $0 + Double($1 % place.width) } / count,
            y: inside.reduce(0.0) { $0 + Double($1 / place.width) } / count)
    }

    static func neighbouringCell(_ s: LessonSituation) -> LessonVerdict {
        guard let cell = s.cell else { return .missed("No cell yet: three tags on neighbouring columns make one.") }
        let sides = [cell.a, cell.b].map { Double.hypot($0.x, $0.y) }
        let said = sides.map { NumberText.significant($0, digits: 2) }
        let spacing = NumberText.significant(s.facts.spacing, digits: 2)
        if sides.allSatisfy({ abs($0 / s.facts.spacing - 1) <= 0.25 }) {
            return .passed("Yes: a unit cell, its sides \(said[0]) and \(said[1]) pixels.")
        }
        return .missed(
            "Its sides are \(said[0]) and \(said[1]) pixels, and neighbouring columns are \(spacing) apart: press BackSpace to take tags back, and tap neighbours."
        )
    }
}
