/// How a true-colour screen packs a gray level into a pixel word.
public struct PixelFormat: Sendable, Equatable {
    public var redMask: UInt32, greenMask: UInt32, blueMask: UInt32

    public init(redMask: UInt32, greenMask: UInt32, blueMask: UInt32) {
        self.redMask = redMask; self.greenMask = greenMask; self.blueMask = blueMask
    }

    public static let rgb888 = PixelFormat(redMask: 0xFF0000, greenMask: 0x00FF00, blueMask: 0x0000FF)

    /// The pixel for gray level `g` (0...255), scaled into each channel's mask.
    public func pixel(gray g: UInt8) -> UInt32 { pixel(red: g, green: g, blue: g) }

    /// The pixel for a colour, each channel 0...255 scaled into its mask.
    public func pixel(red: UInt8, green: UInt8, blue: UInt8) -> UInt32 {
        func channel(_ value: UInt8, _ mask: UInt32) -> UInt32 {
            guard mask != 0 else { return 0 }
            let shift = UInt32(mask.trailingZeroBitCount)
            let maxValue = mask >> shift
            return ((UInt32(value) * maxValue + 127) / 255) << shift
        }
        return channel(red, redMask) | channel(green, greenMask) | channel(blue, blueMask)
    }
}

/// Draws the image into a window's pixels exactly as the pen reads it: the screen pixel whose
/// centre maps into image pixel (i, j) shows that pixel; outside the image is black (letterbox).
public struct ImageRaster {
    /// One screen pixel per image pixel, computed once: redraws after a zoom or pan only copy.
    private let pixels: [UInt32]
    private let width: Int
    private let height: Int

    /// Shown through the same stretch that sets the pitch: what a sighted colleague sees is what the
    /// listener hears (dark is low, or high when the stretch is inverted).
    public init(image: GrayImage, stretch: LevelStretch, format: PixelFormat) {
        width = image.width
        height = image.height
        func pixel(level: Double) -> UInt32 { format.pixel(gray: UInt8((level * 255).rounded())) }
        if let range = image.sampleType.smallIntegerRange {
            // Every value the type holds, looked up exactly.
            let palette = range.map { pixel(level: stretch.level(value: Double($0))) }
            let lowest = Float(range.lowerBound)
            pixels = image.samples.map { palette[Int($0 - lowest)] }
        } else {
            // The stretch between its ends in steps far finer than the screen's 256 grays.
            let steps = 4096
            let table = (0...steps).map {
                pixel(
                    level: stretch.level(value: stretch.low + (stretch.high - stretch.low) * Double($0) / Double(steps))
                )
            }
            let span = stretch.high - stretch.low
            let scale = span > 0 ? Double(steps) / span : 0
            pixels = image.samples.map {
                table[min(steps, max(0, Int(((Double($0) - stretch.low) * scale).rounded())))]
            }
        }
    }

    /// Pixels of the window at `window` (root coordinates), row-major.
    public func render(window: ScreenRect, viewport: Viewport) -> [UInt32] {
        let columns = Self.sourceIndices(
            count: window.width, start: window.x, origin: viewport.originX,
            scale: viewport.scale, limit: width)
        let rows = Self.sourceIndices(
            count: window.height, start: window.y, origin: viewport.originY,
            scale: viewport.scale, limit: height)
        // Starts black: the letterbox needs no drawing.
        var pixels = [UInt32](repeating: 0, count: window.width * window.height)
        pixels.withUnsafeMutableBufferPointer { out in
            self.pixels.withUnsafeBufferPointer { image in
                for (y, row) in rows.enumerated() where row >= 0 {
                    let line = y * window.width
                    let source = row * width
                    for (x, column) in columns.enumerated() where column >= 0 {
                        out[line + x] = image[source + column]
                    }
                }
            }
        }
        return pixels
    }

    /// For each screen pixel along one axis, the image index its centre falls in, or −1 outside.
    static func sourceIndices(count: Int, start: Int, origin: Double, scale: Double, limit: Int) -> [Int] {
        (0..<count).map { k in
            let index = Int(((Double(start + k) + 0.5 - origin) / scale).rounded(.down))
            return index >= 0 && index < limit ? index : -1
        }
    }
}
