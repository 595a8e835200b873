/// The overview, told and travelled: its summary, then each detail in turn as the user asks again; its features
/// stepped through, the pen guided to the one chosen and told "Here." as the nib reaches it. What changes comes back
/// for the controller to make: the column cursor going to the feature, the guidance starting or ending.
struct OverviewTour {
    /// A nib that has arrived must go this many radii away before coming back says "Here." again, so one resting on
    /// the edge does not chatter.
    static let leaving = 1.5

    /// What describing says next: 0 the summary, k the k-th detail.
    private var describeStep = 0
    /// The feature stepped to last.
    private var featureIndex: Int?
    /// Whether the nib is at the place it is guided to, as last said.
    private var arrived = false

    /// The summary, then each detail not already in it, then that there are no more (and the summary comes next).
    mutating func describe(_ state: SessionState) -> [ControllerOutput] {
        guard let overview = state.overview else {
            return [.speak(Phrases.overviewNotReady)]
        }
        let details = overview.details.filter { !overview.summary.contains($0) }
        let step = describeStep
        describeStep = step > details.count ? 0 : step + 1
        if step == 0 { return [.speak(overview.summary.joined(separator: " "))] }
        return [.speak(step <= details.count ? details[step - 1] : Phrases.noMoreDetails)]
    }

    /// The next (or previous) feature, from the first (or last): the column cursor goes there, the pen is guided to it
    /// from `nib`, and its label is said — with "Here." when the nib is there already.
    mutating func step(forward: Bool, in state: SessionState, nib: ImagePoint?) -> [ControllerOutput] {
        guard let overview = state.overview, let lattice = state.lattice else {
            return [.speak(Phrases.overviewNotReady)]
        }
        let features = overview.features
        guard !features.isEmpty else { return [.speak(Phrases.nothingStandsOut)] }
        let next = featureIndex.map { forward ? $0 + 1 : $0 - 1 } ?? (forward ? 0 : features.count - 1)
        guard features.indices.contains(next) else {
            return [.speak(forward ? Phrases.lastFeature : Phrases.firstFeature)]
        }
        return go(to: next, spacing: lattice.spacing, in: overview, nib: nib)
    }

    /// The feature at `index`: the column cursor goes there, the pen is guided to it from `nib`, and its label is said.
    mutating func go(to index: Int, spacing: Double, in overview: ImageOverview, nib: ImagePoint?)
        -> [ControllerOutput]
    {
        guard overview.features.indices.contains(index) else { return [.speak(Phrases.overviewNotReady)] }
        featureIndex = index
        let feature = overview.features[index]
        return guide(
            to: feature.position, radius: feature.radius ?? Guidance.arrival * spacing, label: feature.label, nib: nib)
    }

    /// Guides the pen to `target` from `nib`, saying `label` — with "Here." when the nib is there already.
    mutating func guide(to target: ImagePoint, radius: Double, label: String, nib: ImagePoint?) -> [ControllerOutput] {
        let guidance = Guidance(target: target, radius: radius)
        arrived = nib.map(guidance.isReached) ?? false
        return [.cursor(target), .guidance(guidance), .speak(Phrases.feature(label, here: arrived))]
    }

    /// "Here." as the nib comes within the radius of the place it is guided to.
    mutating func follow(_ nib: ImagePoint?, in state: SessionState) -> [ControllerOutput] {
        guard let guidance = state.guidance, let nib else { return [] }
        if arrived {
            let away = Guidance(target: guidance.target, radius: Self.leaving * guidance.radius)
            if !away.isReached(by: nib) { arrived = false }
            return []
        }
        guard guidance.isReached(by: nib) else { return [] }
        arrived = true
        return [.speak(Phrases.here)]
    }

    /// The guidance ends (Escape, or a mode chosen), said after `words` (the mode's, or none).
    func endGuidance(after words: [String] = []) -> [ControllerOutput] {
        [.guidance(nil), .speak((words + [Phrases.guidanceEnded]).joined(separator: " "))]
    }
}
