/// Zoom and pan: where the image sits in the window. Every change goes to the instrument, to the
/// screen and the log (`viewport`), and the still pen sounds afresh what it is over now.
final class Navigation {
    private let instrument: Instrument
    /// Nil until the window is placed.
    private(set) var view: View?
    /// The upper barrel button's drag is moving the image.
    private var dragging = false

    init(instrument: Instrument) { self.instrument = instrument }

    /// The window now covers `window` (root coordinates).
    func place(window: ScreenRect, at time: Double) -> [ControllerOutput] {
        if view == nil {
            view = View(imageWidth: instrument.image.width, imageHeight: instrument.image.height, window: window)
        } else {
            view?.place(in: window)
        }
        return changed(at: time)
    }

    /// One zoom step in or out, about the pen, or the column cursor's column (`cursor`).
    func zoom(inward: Bool, cursor: ImagePoint?, at time: Double) -> [ControllerOutput] {
        guard let view else { return [] }
        let target = view.nextStep(in: inward)
        guard target != view.zoom else { return [.speak(Phrases.zoomLimit(inward: inward))] }
        return zoom(to: target, cursor: cursor, at: time)
    }

    /// Zooms about the pen (or the column cursor's column, or the window's centre), which stays put
    /// on screen.
    func zoom(to level: Double, cursor: ImagePoint?, at time: Double) -> [ControllerOutput] {
        guard var view else { return [] }
        let anchor: (x: Double, y: Double)
        if let pen = instrument.lastRecord, pen.inImage {
            anchor = (pen.rootX, pen.rootY)
        } else if let cursor {
            anchor = view.viewport.rootPoint(of: cursor)
        } else {
            anchor = (
                Double(view.window.x) + Double(view.window.width) / 2,
                Double(view.window.y) + Double(view.window.height) / 2
            )
        }
        view.zoom(to: level, keeping: anchor)
        self.view = view
        return changed(at: time) + [.speak(Phrases.zoom(level))]
    }

    /// A quarter of the window the way the arrow points: the view moves, the image slides the other way.
    func pan(_ direction: Direction, at time: Double) -> [ControllerOutput] {
        guard var view else { return [] }
        let step = 0.25 * Double(min(view.window.width, view.window.height))
        guard view.pan(dx: -step * direction.step.x, dy: -step * direction.step.y) else {
            return [.speak(view.zoom == 1 ? Phrases.wholeImageInView : Phrases.atEdge(direction))]
        }
        self.view = view
        return changed(at: time) + [.speak(shown)]
    }

    /// From now until `endDrag`, the image follows the pen's drags.
    func startDrag() { dragging = true }

    /// The pen moved (dx, dy) screen pixels while dragging: so does the image.
    func drag(dx: Double, dy: Double, at time: Double) -> [ControllerOutput] {
        guard dragging, view?.pan(dx: dx, dy: dy) == true else { return [] }
        return changed(at: time)
    }

    /// The drag is over: says what is in view now.
    func endDrag() -> [ControllerOutput] {
        defer { dragging = false }
        return dragging ? [.speak(shown)] : []
    }

    /// "Showing x 120 to 311, y 40 to 147": the part of the image in view.
    var shown: String {
        guard let view else { return "" }
        let v = view.viewport, w = view.window
        let topLeft = v.imagePoint(rootX: Double(w.x), rootY: Double(w.y))
        let bottomRight = v.imagePoint(rootX: Double(w.x + w.width), rootY: Double(w.y + w.height))
        func clamp(_ value: Double, _ size: Int) -> Int { min(max(Int(value.rounded()), 0), size - 1) }
        let width = instrument.image.width, height = instrument.image.height
        return Phrases.showing(
            x: (clamp(topLeft.x, width), clamp(bottomRight.x, width)),
            y: (clamp(topLeft.y, height), clamp(bottomRight.y, height)))
    }

    /// The new placement to the instrument, the screen and the log, and what the still pen is over now.
    private func changed(at time: Double) -> [ControllerOutput] {
        guard let view else { return [] }
        instrument.place(view.viewport)
        return [.viewport(view.viewport)] + (instrument.refresh(at: time).map { [.pen($0)] } ?? [])
    }
}
