import CX11
import CXft
import SonicCore

/// Text on the window through Xft, so it is Unicode ("Tilt 20°", "Å") at any size: lines of white
/// on a solid black band, at the desktop's text scale.
final class TextBands {
    private let display: OpaquePointer
    private let draw: OpaquePointer?
    private var textColour = XftColor()
    private var bandColour = XftColor()
    /// The fonts opened so far, by pixel size.
    private var fonts: [Int: UnsafeMutablePointer<XftFont>] = [:]
    /// The desktop's text scale: its Xft.dpi resource, as the desktop's own programs read it.
    let desktopDPI: Double

    init(display: OpaquePointer, window: Window, visual: UnsafeMutablePointer<Visual>, colourMap: Colormap) {
        self.display = display
        draw = XftDrawCreate(display, window, visual, colourMap)
        desktopDPI =
            TextSize.dpi(resource: XGetDefault(display, "Xft", "dpi").map { String(cString: $0) })
            ?? TextSize.defaultDPI
        // High contrast: white text on a solid black band.
        var light = XRenderColor(red: 0xFFFF, green: 0xFFFF, blue: 0xFFFF, alpha: 0xFFFF)
        var dark = XRenderColor(red: 0, green: 0, blue: 0, alpha: 0xFFFF)
        XftColorAllocValue(display, visual, colourMap, &light, &textColour)
        XftColorAllocValue(display, visual, colourMap, &dark, &bandColour)
    }

    /// Lets the fonts and the drawing go; called while the display is still open.
    func close() {
        for font in fonts.values { XftFontClose(display, font) }
        fonts = [:]
        if let draw { XftDrawDestroy(draw) }
    }

    /// Lines of text, white on a solid black band whose top-left corner is at (x, y).
    func drawBand(_ lines: [String], font: UnsafeMutablePointer<XftFont>, x: Int32, y: Int32) {
        guard let draw else { return }
        let height = font.pointee.height, padding = max(4, height / 4)
        let widths = lines.map { line in
            var extents = XGlyphInfo()
            XftTextExtentsUtf8(display, font, line, Int32(line.utf8.count), &extents)
            return Int32(extents.xOff)
        }
        XftDrawRect(
            draw, &bandColour, x, y, UInt32((widths.max() ?? 0) + 2 * padding),
            UInt32(height * Int32(lines.count) + 2 * padding))
        for (index, line) in lines.enumerated() {
            XftDrawStringUtf8(
                draw, &textColour, font, x + padding, y + padding + font.pointee.ascent + height * Int32(index),
                line, Int32(line.utf8.count))
        }
    }

    /// The font at `size` on this desktop, opened once; nil if fontconfig finds none.
    func font(_ size: TextSize) -> UnsafeMutablePointer<XftFont>? {
        let pixels = Int(size.pixelSize(dpi: desktopDPI).rounded())
        if let font = fonts[pixels] { return font }
        let font = XftFontOpenName(display, XDefaultScreen(display), "\(TextSize.fontFamily):pixelsize=\(pixels)")
        fonts[pixels] = font
        return font
    }
}
