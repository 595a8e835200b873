/// Zoom and pan: where the image sits in the window. Every change comes back as `viewport`, for the
/// controller to make (the screen, the log and the still pen follow it).
struct Navigation {
    private let imageWidth: Int
    private let imageHeight: Int
    /// Nil until the window is placed.
    private(set) var view: View?
    /// The upper barrel button's drag is moving the image.
    private var dragging = false

    init(imageWidth: Int, imageHeight: Int) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// The window now covers `window` (root coordinates).
    mutating func place(window: ScreenRect) -> [ControllerOutput] {
        if view == nil {
            view = View(imageWidth: imageWidth, imageHeight: imageHeight, window: window)
        } else {
            view?.place(in: window)
        }
        return changed
    }

    /// One zoom step in or out, about the pen (`pen`, when over the image), or the column cursor's
    /// column (`cursor`).
    mutating func zoom(inward: Bool, pen: PenRecord?, cursor: ImagePoint?) -> [ControllerOutput] {
        guard let view else { return [] }
        let target = view.nextStep(in: inward)
        guard target != view.zoom else { return [.speak(Phrases.zoomLimit(inward: inward))] }
        return zoom(to: target, pen: pen, cursor: cursor)
    }

    /// Zooms about the pen (or the column cursor's column, or the window's centre), which stays put
    /// on screen.
    mutating func zoom(to level: Double, pen: PenRecord?, cursor: ImagePoint?) -> [ControllerOutput] {
        guard var view else { return [] }
        let anchor: (x: Double, y: Double)
        if let pen, pen.inImage {
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
        return changed + [.speak(Phrases.zoom(level))]
    }

    /// A quarter of the window the way the arrow points: the view moves, the image slides the other way.
    mutating func pan(_ direction: Direction) -> [ControllerOutput] {
        guard var view else { return [] }
        let step = 0.25 * Double(min(view.window.width, view.window.height))
        guard view.pan(dx: -step * direction.step.x, dy: -step * direction.step.y) else {
            return [.speak(view.zoom == 1 ? Phrases.wholeImageInView : Phrases.atEdge(direction))]
        }
        self.view = view
        return changed + [.speak(shown)]
    }

    /// From now until `endDrag`, the image follows the pen's drags.
    mutating func startDrag() { dragging = true }

    /// The pen moved (dx, dy) screen pixels while dragging: so does the image.
    mutating func drag(dx: Double, dy: Double) -> [ControllerOutput] {
        guard dragging, view?.pan(dx: dx, dy: dy) == true else { return [] }
        return changed
    }

    /// The drag is over: says what is in view now.
    mutating func endDrag() -> [ControllerOutput] {
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
        return Phrases.showing(
            x: (clamp(topLeft.x, imageWidth), clamp(bottomRight.x, imageWidth)),
            y: (clamp(topLeft.y, imageHeight), clamp(bottomRight.y, imageHeight)))
    }

    /// The new placement, for the controller to make.
    private var changed: [ControllerOutput] { view.map { [.viewport($0.viewport)] } ?? [] }
}
