import CX11
import CXft

/// Text as Xft draws it on a test's X server (white on black, in the font the program asks for), read
/// back from the server: what the program's screen should hold. One connection serves every rendering.
final class TextRenderer {
    private let display: OpaquePointer

    init(display name: String) throws {
        guard let display = XOpenDisplay(name) else { throw HarnessError("cannot open X display \(name)") }
        self.display = display
    }

    deinit { XCloseDisplay(display) }

    func ink(_ text: String, pixelSize: Int, family: String) throws -> InkMask {
        let screen = XDefaultScreen(display)
        let visual = XDefaultVisual(display, screen), colourMap = XDefaultColormap(display, screen)
        guard let font = XftFontOpenName(display, screen, "\(family):pixelsize=\(pixelSize)") else {
            throw HarnessError("fontconfig has no font for \(family)")
        }
        defer { XftFontClose(display, font) }
        var extents = XGlyphInfo()
        XftTextExtentsUtf8(display, font, text, Int32(text.utf8.count), &extents)
        let width = Int(extents.xOff) + 2 * pixelSize, height = Int(font.pointee.height) + 2 * pixelSize
        let pixmap = XCreatePixmap(
            display, XRootWindow(display, screen), UInt32(width), UInt32(height),
            UInt32(XDefaultDepth(display, screen)))
        defer { XFreePixmap(display, pixmap) }
        guard let draw = XftDrawCreate(display, pixmap, visual, colourMap) else {
            throw HarnessError("cannot draw text on the test's X server")
        }
        defer { XftDrawDestroy(draw) }
        var white = XftColor(), black = XftColor()
        var light = XRenderColor(red: 0xFFFF, green: 0xFFFF, blue: 0xFFFF, alpha: 0xFFFF)
        var dark = XRenderColor(red: 0, green: 0, blue: 0, alpha: 0xFFFF)
        XftColorAllocValue(display, visual, colourMap, &light, &white)
        XftColorAllocValue(display, visual, colourMap, &dark, &black)
        XftDrawRect(draw, &black, 0, 0, UInt32(width), UInt32(height))
        XftDrawStringUtf8(
            draw, &white, font, Int32(pixelSize), Int32(pixelSize) + font.pointee.ascent, text,
            Int32(text.utf8.count))
        guard let image = XGetImage(display, pixmap, 0, 0, UInt32(width), UInt32(height), XAllPlanes(), ZPixmap)
        else { throw HarnessError("cannot read the rendered text back from the test's X server") }
        defer { sonic_destroy_image(image) }
        // A pixmap has no visual, so its image's colour masks are empty: the screen's visual has them.
        let green = visual!.pointee.green_mask
        let shift = UInt(green.trailingZeroBitCount)
        var ink: [Bool] = []
        for y in 0..<height {
            for x in 0..<width {
                let pixel = image.pointee.f.get_pixel(image, Int32(x), Int32(y))
                ink.append((pixel & green) >> shift > (green >> shift) / 2)
            }
        }
        return InkMask(width: width, height: height, ink: ink).cropped()
    }
}

/// Where text is inked: pixels brighter than half, in a box cropped to the ink.
struct InkMask {
    let width: Int
    let height: Int
    /// Row by row.
    let ink: [Bool]

    /// The ink of a screenshot's region.
    init(_ shot: Screenshot, x: Range<Int>, y: Range<Int>) {
        width = x.count
        height = y.count
        ink = y.flatMap { row in x.map { column in shot[column, row] >> 8 & 0xFF > 127 } }
    }

    init(width: Int, height: Int, ink: [Bool]) {
        self.width = width
        self.height = height
        self.ink = ink
    }

    subscript(x: Int, y: Int) -> Bool { ink[y * width + x] }

    /// Cropped to the box around its ink.
    func cropped() -> InkMask {
        let points = (0..<height).flatMap { y in (0..<width).filter { self[$0, y] }.map { (x: $0, y: y) } }
        guard let left = points.map(\.x).min(), let right = points.map(\.x).max(), let top = points.first?.y,
            let bottom = points.last?.y
        else { return InkMask(width: 0, height: 0, ink: []) }
        return InkMask(
            width: right - left + 1, height: bottom - top + 1,
            ink: (top...bottom).flatMap { y in (left...right).map { self[$0, y] } })
    }

    /// Where `pattern` appears in this mask, ink for ink and background for background; nil if nowhere.
    func find(_ pattern: InkMask) -> (x: Int, y: Int)? {
        guard pattern.width > 0, pattern.width <= width, pattern.height <= height else { return nil }
        let inked = (0..<pattern.height).flatMap { y in (0..<pattern.width).filter { pattern[$0, y] }.map { ($0, y) } }
        let clear = (0..<pattern.height).flatMap { y in (0..<pattern.width).filter { !pattern[$0, y] }.map { ($0, y) } }
        for y in 0...(height - pattern.height) {
            for x in 0...(width - pattern.width)
            where inked.allSatisfy({ self[x + $0.0, y + $0.1] }) && clear.allSatisfy({ !self[x + $0.0, y + $0.1] }) {
                return (x, y)
            }
        }
        return nil
    }
}
