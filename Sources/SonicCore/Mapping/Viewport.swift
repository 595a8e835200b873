/// A rectangle in root-window (screen) pixels.
public struct ScreenRect: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A point in image coordinates: (0, 0) is the centre of the top-left pixel, y grows downwards.
public struct ImagePoint: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// The pixel whose square contains this point.
    public var nearestPixel: (x: Int, y: Int) {
        (Int((x + 0.5).rounded(.down)), Int((y + 0.5).rounded(.down)))
    }
}

/// Where the image sits on the screen: pixel (i, j)'s centre is drawn at root-window
/// `(originX + (i + 0.5)·scale, originY + (j + 0.5)·scale)`.
public struct Viewport: Sendable, Equatable {
    public let originX: Double
    public let originY: Double
    /// Screen pixels per image pixel.
    public let scale: Double

    public init(originX: Double, originY: Double, scale: Double) {
        precondition(scale > 0 && scale.isFinite, "scale must be positive")
        self.originX = originX
        self.originY = originY
        self.scale = scale
    }

    /// The largest placement of the image inside `area` that keeps its aspect ratio, centred (letterboxed).
    public init(fitting width: Int, _ height: Int, into area: ScreenRect) {
        let scale = min(Double(area.width) / Double(width), Double(area.height) / Double(height))
        let marginX = (Double(area.width) - Double(width) * scale) / 2
        let marginY = (Double(area.height) - Double(height) * scale) / 2
        self.init(originX: Double(area.x) + marginX, originY: Double(area.y) + marginY, scale: scale)
    }

    public func imagePoint(rootX: Double, rootY: Double) -> ImagePoint {
        ImagePoint(x: (rootX - originX) / scale - 0.5, y: (rootY - originY) / scale - 0.5)
    }

    public func rootPoint(of p: ImagePoint) -> (x: Double, y: Double) {
        (originX + (p.x + 0.5) * scale, originY + (p.y + 0.5) * scale)
    }
}
