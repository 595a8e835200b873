/// The tag commands, answered: a tap or the column cursor's column tagged (a tap snapped first when
/// the image shows a lattice), the latest tag undone, all cleared after asking, the origin marked,
/// the tags listed. The tags are the session state's, in the order of its `TagQueue`; every change
/// to them comes back as `save`, and a change to the unit cell they span as `cell`, for the
/// controller to make.
struct Tagging {
    /// How long a first clear command waits for the second that clears.
    static let confirmationTime = 5.0

    /// The level (0...1) of the image under a point, nil outside it.
    private let level: (ImagePoint) -> Double?
    /// How far a tap snaps, in column spacings.
    private let snapRadius: Double
    /// The nearest-neighbour column spacing, if the image shows a lattice: taps snap within a share of it.
    private let columnSpacing: Double?
    /// The size of a pixel, for speaking the cell in picometres; saved with the tags.
    let pixelSize: PixelSize?
    /// Until when a second clear command clears the tags.
    private(set) var clearingEnd: Double?

    init(
        level: @escaping (ImagePoint) -> Double?, snapRadius: Double, pixelSize: PixelSize?, columnSpacing: Double?
    ) {
        self.level = level
        self.snapRadius = snapRadius
        self.pixelSize = pixelSize
        self.columnSpacing = columnSpacing
    }

    /// The tags as they are to be saved.
    func snapshot(_ state: SessionState) -> TagSnapshot {
        TagSnapshot(book: state.tags.book, unplaced: state.tags.unplaced, pixelSize: pixelSize)
    }

    /// "Unit cell: a 24.1 pixels, …", once there is one.
    func cellDescription(_ state: SessionState) -> String? {
        state.cell.map { Phrases.unitCell($0, pixelSize: pixelSize) }
    }

    /// The cell the tags span, refined by every column on its lattice once the columns are known.
    func cell(_ state: SessionState) -> UnitCell? { state.tags.book.cell.map { refined($0, state) } }

    private func refined(_ cell: UnitCell, _ state: SessionState) -> UnitCell {
        state.columns.map { cell.refined(with: $0) } ?? cell
    }

    /// A tap in tagging mode: snapped to the nearest atom column if the image shows a lattice.
    func tap(at point: ImagePoint, in state: inout SessionState) -> [ControllerOutput] {
        guard level(point) != nil else { return [.speak(Phrases.notTaggedOutside)] }
        guard let spacing = columnSpacing else { return tag(point, snapped: false, in: &state) }
        return changing(&state) { [.snap($0.tags.awaitSnap(at: point, radius: snapRadius * spacing))] }
    }

    /// A column's centre, tagged as it is.
    func tagColumn(at point: ImagePoint, in state: inout SessionState) -> [ControllerOutput] {
        tag(point, snapped: true, in: &state)
    }

    private func tag(_ point: ImagePoint, snapped: Bool, in state: inout SessionState) -> [ControllerOutput] {
        changing(&state) { state in announce(state.tags.tag(at: point, snapped: snapped).map { [$0] } ?? [], state) }
    }

    /// A tap's snap, done: the tags waiting for it are placed, and announced in one sentence.
    func snapped(_ request: SnapRequest, to column: ImagePoint?, in state: inout SessionState) -> [ControllerOutput] {
        changing(&state) { state in announce(state.tags.snapped(request, to: column), state) }
    }

    /// Where the cell's tags are not neighbouring columns of the lattice the columns show — an edge more than one
    /// of its cells long, along a, b or their diagonal — how many columns apart the first such pair is.
    static func apart(_ state: SessionState) -> String? {
        guard let lattice = state.lattice, let a = lattice.analysis.a, let b = lattice.analysis.b,
            let inverse = Matrix2(columns: a, b).inverse, let tags = state.tags.book.cellTags
        else { return nil }
        for tag in tags.dropFirst() {
            let edge = PixelVector(x: tag.point.x - tags[0].point.x, y: tag.point.y - tags[0].point.y)
            let steps = inverse * edge
            guard max(abs(steps.x.rounded()), abs(steps.y.rounded())) > 1 else { continue }
            return Phrases.tagsApart(tags[0].id, tag.id, columns: Int((edge.length / lattice.spacing).rounded()))
        }
        return nil
    }

    /// Tags just placed, for the log, and said in one announcement so that no part cuts off another.
    private func announce(_ placed: [TagQueue.Placed], _ state: SessionState) -> [ControllerOutput] {
        guard !placed.isEmpty else { return [] }
        let texts = placed.map { placed in
            var text = Phrases.tagPlaced(placed.tag.id, at: describe(placed.tag), missedColumn: placed.missedColumn)
            if let cell = placed.completedCell {
                text += " " + Phrases.unitCell(refined(cell, state), pixelSize: pixelSize)
                if let apart = Self.apart(state) { text += " " + apart }
            }
            return placed.becameOrigin ? text + " " + Phrases.origin(placed.tag.id) : text
        }
        return placed.map { .tagAdded($0.tag) } + [.speak(texts.joined(separator: " "))]
    }

    func removeLast(in state: inout SessionState) -> [ControllerOutput] {
        changing(&state) { state in
            switch state.tags.removeLast() {
            case .waitingTag: [.speak(Phrases.removedWaitingTag)]
            case .tag(let tag): [.tagRemoved(tag), .speak(Phrases.removedTag(tag.id))]
            case .nothing: [.speak(Phrases.noTagsToRemove)]
            }
        }
    }

    /// Asks first; clears when asked again before `clearingEnd`.
    mutating func clear(at time: Double, in state: inout SessionState) -> [ControllerOutput] {
        let total = state.tags.book.tags.count + state.tags.waitingCount
        guard total > 0 else { return [.speak(Phrases.noTagsToClear)] }
        guard clearingEnd != nil else {
            clearingEnd = time + Self.confirmationTime
            return [.speak(Phrases.confirmClearing(total))]
        }
        clearingEnd = nil
        return changing(&state) { state in
            state.tags.clear().reversed().map(ControllerOutput.tagRemoved) + [.speak(Phrases.cleared(total))]
        }
    }

    /// Anything else asked for before the second clear command stops the clearing.
    mutating func cancelClearing() { clearingEnd = nil }

    /// The time to clear has run out by `time`.
    mutating func expireClearing(by time: Double) {
        if let end = clearingEnd, time >= end { clearingEnd = nil }
    }

    func markOrigin(in state: inout SessionState) -> [ControllerOutput] {
        changing(&state) { state in
            switch state.tags.markOrigin() {
            case .waitingTag: [.speak(Phrases.waitingTagWillBeOrigin)]
            case .tag(let tag): [.speak(Phrases.origin(tag.id))]
            case .nothing: [.speak(Phrases.noTagForOrigin)]
            }
        }
    }

    /// Every tag and where it is, those still being placed, and the cell.
    func list(_ state: SessionState) -> String {
        Phrases.tagList(
            state.tags.book.tags.map { ($0.id, describe($0)) }, waiting: state.tags.waitingCount,
            cell: cellDescription(state))
    }

    /// What `body` says, and if it changed the tags, that they are to be saved and the cell they now span.
    private func changing(
        _ state: inout SessionState, _ body: (inout SessionState) -> [ControllerOutput]
    ) -> [ControllerOutput] {
        let revision = state.tags.revision
        var outputs = body(&state)
        guard state.tags.revision != revision else { return outputs }
        outputs.append(.save(snapshot(state)))
        let cell = cell(state)
        if cell != state.cell { outputs.append(.cell(cell, ticks: state.cellTicks)) }
        return outputs
    }

    /// A tag's place as spoken: to a tenth of a pixel when snapped to a column's refined centre.
    private func describe(_ tag: Tag) -> String {
        Phrases.point(tag.point, level: level(tag.point) ?? 0, precise: tag.snapped)
    }
}
