/// How the image is shown in the window: how far zoomed in from fitting, and which image point sits
/// at the window's centre. Zooming keeps a chosen point (under the pen) where it is on screen;
/// panning never slides the image away from the window's edges.
public struct View: Sendable, Equatable {
    public static let zoomSteps: [Double] = [1, 1.5, 2, 3, 4, 6, 8, 12, 16]

    public let imageWidth: Int
    public let imageHeight: Int
    public private(set) var window: ScreenRect
    public private(set) var zoom = 1.0
    /// The image point at the window's centre.
    public private(set) var centre: ImagePoint

    public init(imageWidth: Int, imageHeight: Int, window: ScreenRect) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.window = window
        centre = ImagePoint(x: Double(imageWidth - 1) / 2, y: Double(imageHeight - 1) / 2)
    }

    /// Screen pixels per image pixel.
    public var scale: Double {
        min(Double(window.width) / Double(imageWidth), Double(window.height) / Double(imageHeight)) * zoom
    }

    /// The placement; at zoom 1 it is the centred, letterboxed fit.
    public var viewport: Viewport {
        let s = scale
        return Viewport(
            originX: Double(window.x) + Double(window.width) / 2 - (centre.x + 0.5) * s,
            originY: Double(window.y) + Double(window.height) / 2 - (centre.y + 0.5) * s, scale: s)
    }

    public mutating func place(in window: ScreenRect) {
        self.window = window
        centre = clamped(centre)
    }

    /// Zooms to `newZoom` (1...16), keeping the image point under root point `anchor` there.
    public mutating func zoom(to newZoom: Double, keeping anchor: (x: Double, y: Double)) {
        let point = viewport.imagePoint(rootX: anchor.x, rootY: anchor.y)
        zoom = min(max(newZoom, 1), 16)
        let s = scale
        centre = clamped(
            ImagePoint(
                x: (Double(window.x) + Double(window.width) / 2 - anchor.x) / s + point.x,
                y: (Double(window.y) + Double(window.height) / 2 - anchor.y) / s + point.y))
    }

    /// The next zoom step in or out from the current zoom.
    public func nextStep(in inward: Bool) -> Double {
        inward ? Self.zoomSteps.first { $0 > zoom + 1e-9 } ?? zoom : Self.zoomSteps.last { $0 < zoom - 1e-9 } ?? zoom
    }

    /// Moves the image by (dx, dy) screen pixels; false if it could not move (at the edge).
    @discardableResult
    public mutating func pan(dx: Double, dy: Double) -> Bool {
        let s = scale
        let moved = clamped(ImagePoint(x: centre.x - dx / s, y: centre.y - dy / s))
        defer { centre = moved }
        return abs(moved.x - centre.x) > 1e-9 || abs(moved.y - centre.y) > 1e-9
    }

    /// The centre kept so the image covers the window where it is larger than it, and stays
    /// centred where it is smaller.
    private func clamped(_ c: ImagePoint) -> ImagePoint {
        let s = scale
        func axis(_ value: Double, _ size: Int, _ extent: Int) -> Double {
            let half = Double(extent) / 2 / s
            let low = half - 0.5, high = Double(size) - 0.5 - half
            return low > high ? Double(size - 1) / 2 : min(max(value, low), high)
        }
        return ImagePoint(x: axis(c.x, imageWidth, window.width), y: axis(c.y, imageHeight, window.height))
    }
}
