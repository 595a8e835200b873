/// What the braille display needs of the session: its status line, the places in a message a routing key acts on,
/// and what those keys do.
extension SessionController {
    /// How near the pen must come to a tag it is guided to when the lattice is not known, in pixels.
    static let tagGuidanceRadius = 4.0

    /// "M1 x 97 y 92 82% F3/12 zoom 2": the mode's number, where the pen is and the level under it, the frame of a
    /// stack, the zoom, the diffractogram, and the sound when it does not play.
    public var brailleStatus: String {
        var parts = ["M\(modes.number)"]
        if let record = instrument.lastRecord {
            if record.inImage {
                let x = Int(record.imageX.rounded())
                let y = Int(record.imageY.rounded())
                parts.append("x \(x) y \(y) \(Phrases.percent(record.level))%")
            } else {
                parts.append("outside")
            }
        } else {
            parts.append("no pen")
        }
        if let frame = framePlayed { parts.append("F\(frame.number)/\(frame.count)") }
        let zoom = navigation.view?.zoom ?? 1
        if zoom != 1 { parts.append("zoom \(NumberText.significant(zoom, digits: 3))") }
        if state.diffractogram != nil { parts.append("FFT") }
        if !state.soundPlays { parts.append("no sound") }
        return parts.joined(separator: " ")
    }

    /// The part of the image the tactile picture shows: what the window shows of it, the whole image until zoomed in.
    public var brailleRegion: ImageRegion {
        let image = instrument.image
        let whole = ImageRegion(x: -0.5, y: -0.5, width: Double(image.width), height: Double(image.height))
        guard let view = navigation.view, view.zoom > 1, view.scale > 0 else { return whole }
        let halfWidth = Double(view.window.width) / 2 / view.scale
        let halfHeight = Double(view.window.height) / 2 / view.scale
        let left = max(whole.x, view.centre.x - halfWidth)
        let top = max(whole.y, view.centre.y - halfHeight)
        let right = min(whole.x + whole.width, view.centre.x + halfWidth)
        let bottom = min(whole.y + whole.height, view.centre.y + halfHeight)
        guard right > left, bottom > top else { return whole }
        return ImageRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Where the overview's features are that the tactile picture marks: the columns and sites that stand out, the
    /// dislocations, the particles and a diffraction pattern's spots. The lines that divide the crystal and the rings
    /// are no points to mark.
    public var brailleMarks: [ImagePoint] {
        let lines: Set<OverviewFeature.Kind> = [.grainBoundary, .interface, .domainWall, .ring]
        return (state.overview?.features ?? []).filter { !lines.contains($0.kind) }.map(\.position)
    }

    /// The places in `text` (a message as the display writes it) a routing key acts on: each tag it names, to the
    /// next tag named, and each of the overview's features whose label it holds.
    public func brailleTargets(in text: String) -> [BrailleTarget] {
        let characters = Array(text)
        let ids = Set(book.tags.map(\.id))
        var named: [(start: Int, id: Int)] = []
        for match in text.matches(of: #/Tag (\d+)/#) {
            guard let id = Int(match.output.1), ids.contains(id) else { continue }
            named.append((text.distance(from: text.startIndex, to: match.range.lowerBound), id))
        }
        var targets = named.enumerated().map { k, tag in
            BrailleTarget(
                characters: tag.start..<(k + 1 < named.count ? named[k + 1].start : characters.count),
                action: .guideToTag(tag.id))
        }
        for (index, feature) in (state.overview?.features ?? []).enumerated() {
            let label = Array(BrailleText.compact(feature.label))
            guard !label.isEmpty, label.count <= characters.count else { continue }
            for start in 0...(characters.count - label.count)
            where Array(characters[start..<(start + label.count)]) == label {
                targets.append(BrailleTarget(characters: start..<(start + label.count), action: .guideToFeature(index)))
            }
        }
        return targets
    }

    /// A routing key on the display asked for `action` at `time`: the pen is guided there, as to a feature stepped to.
    public func brailleRouted(_ action: BrailleAction, at time: Double) -> [ControllerOutput] {
        now = max(now, time)
        let nib = instrument.nib(in: state)
        var outputs: [ControllerOutput]
        switch action {
        case .guideToTag(let id):
            guard let tag = book.tags.first(where: { $0.id == id }) else { return settle([.speak(Phrases.tagGone)]) }
            outputs = tour.guide(
                to: ImagePoint(x: tag.x, y: tag.y),
                radius: state.lattice.map { Guidance.arrival * $0.spacing } ?? Self.tagGuidanceRadius,
                label: Phrases.tagLabel(id), nib: nib)
        case .guideToFeature(let index):
            guard let overview = state.overview, let lattice = state.lattice else {
                return settle([.speak(Phrases.overviewNotReady)])
            }
            outputs = tour.go(to: index, spacing: lattice.spacing, in: overview, nib: nib)
        }
        for case .cursor(let point?) in outputs { columnCursor.move(to: point, at: now) }
        return settle(outputs)
    }

    /// What a multi-line display's text lines show when the display is switched from the picture to them: the
    /// overview's summary and its other details, as D says them (or that the overview is still to come), and the
    /// tags as L lists them, as a table (`BrailleTable.sheet`).
    public var brailleSheet: BrailleMessage {
        func message(_ spoken: String) -> BrailleMessage {
            let text = BrailleText.compact(spoken)
            return BrailleMessage(text, targets: brailleTargets(in: text))
        }
        let details =
            state.overview.map { overview in
                (overview.summary + overview.details.filter { !overview.summary.contains($0) }).map(message)
            } ?? [message(Phrases.overviewNotReady)]
        return BrailleTable.sheet(details: details, tags: message(tagging.list(state)))
    }

    /// The braille display is reached again after brltty went away: said, and shown.
    public func brailleBack() -> [ControllerOutput] { settle([.speak(Phrases.brailleBack)]) }
}
