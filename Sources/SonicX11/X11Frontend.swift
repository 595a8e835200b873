import CX11
import CXInput2
import CXft
import Glibc
import SonicCore

/// What the window system tells the program.
public enum FrontendEvent: Sendable, Equatable {
    /// A pen or mouse report.
    case pen(PenEvent)
    /// A key, by its name as the user reads it ("Escape", "Q", "Tab", "Shift+Tab", "+", ...).
    case key(String)
    /// The window now covers this part of the root window (first mapping, move or resize).
    case placed(ScreenRect)
    /// The window manager asked the window to close.
    case closeRequested
    /// The pen tablet's device went away (unplugged), or one appeared.
    case penLost
    case penFound
    /// The window gained (true) or lost the keyboard focus.
    case focused(Bool)
}

public struct X11Error: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The X11 front end: a full-screen window showing the image, and pen, mouse and key input turned
/// into window-system-free events. Outside this module nothing in the program touches Xlib.
public final class X11Frontend {
    private let display: OpaquePointer
    private let window: Window
    private let root: Window
    private let visual: UnsafeMutablePointer<Visual>
    private let depth: Int32
    private let graphics: GC
    private var raster: ImageRaster
    private let pixelFormat: PixelFormat
    private let deleteWindowAtom: Atom
    /// Whether a window manager runs (then full screen is asked of it; otherwise the window covers the root).
    public let hasWindowManager: Bool
    /// The window's X id, which a braille display follows.
    public var windowID: UInt { UInt(window) }

    /// The drawn image for the window as placed now; Expose repaints from it.
    private var frame: UnsafeMutablePointer<XImage>?
    private var placement = ScreenRect(x: 0, y: 0, width: 0, height: 0)
    private var focused = false
    private var viewport: Viewport?
    /// Drawn over the image.
    private var overlay = Overlay()
    private let colours: (tag: UInt, unsnapped: UInt, cell: UInt, cursor: UInt, outline: UInt)
    private let text: TextBands
    private let pen: PenInput

    /// Opens the display named by $DISPLAY and maps a full-screen window titled `title`.
    public init(title: String, image: GrayImage, stretch: LevelStretch, clock: @escaping () -> Double) throws(X11Error)
    {
        guard let display = XOpenDisplay(nil) else {
            let name = getenv("DISPLAY").map { String(cString: $0) } ?? ""
            throw X11Error(
                message: name.isEmpty
                    ? "no X display: DISPLAY is not set (run from a graphical session)"
                    : "cannot open X display \"\(name)\"")
        }
        XSetErrorHandler(ignoreProtocolError)
        XSetIOErrorHandler(exitOnLostConnection)
        guard let xiOpcode = PenInput.extensionOpcode(display) else {
            XCloseDisplay(display)
            throw X11Error(message: "the X server lacks XInput 2.2, needed for pen input")
        }
        let screen = XDefaultScreen(display)
        let visual = XDefaultVisual(display, screen)!
        let depth = XDefaultDepth(display, screen)
        guard visual.pointee.`class` == TrueColor, depth >= 15 else {
            XCloseDisplay(display)
            throw X11Error(message: "the X screen is not true-colour (depth \(depth)); cannot show the image")
        }
        self.display = display
        self.visual = visual
        self.depth = depth
        root = XRootWindow(display, screen)
        let format = PixelFormat(
            redMask: UInt32(truncatingIfNeeded: visual.pointee.red_mask),
            greenMask: UInt32(truncatingIfNeeded: visual.pointee.green_mask),
            blueMask: UInt32(truncatingIfNeeded: visual.pointee.blue_mask))
        raster = ImageRaster(image: image, stretch: stretch, format: format)
        pixelFormat = format
        hasWindowManager = Self.windowManagerRuns(display, root)

        let width = UInt32(XDisplayWidth(display, screen)), height = UInt32(XDisplayHeight(display, screen))
        let black = XBlackPixel(display, screen)
        window = XCreateSimpleWindow(display, root, 0, 0, width, height, 0, black, black)
        graphics = XCreateGC(display, window, 0, nil)
        pen = PenInput(display: display, opcode: xiOpcode, window: window, root: root, clock: clock)
        let colourMap = XDefaultColormap(display, screen)
        text = TextBands(display: display, window: window, visual: visual, colourMap: colourMap)
        func colour(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt { UInt(format.pixel(red: r, green: g, blue: b)) }
        colours = (
            tag: colour(255, 210, 0), unsnapped: colour(255, 80, 60), cell: colour(0, 220, 255),
            cursor: colour(80, 255, 80), outline: colour(0, 0, 0)
        )
        deleteWindowAtom = XInternAtom(display, "WM_DELETE_WINDOW", False)
        var protocols = [deleteWindowAtom]
        XSetWMProtocols(display, window, &protocols, 1)
        setTitle(title)
        if hasWindowManager {
            // Asked before mapping, the window manager maps the window straight to full screen.
            var state = [XInternAtom(display, "_NET_WM_STATE_FULLSCREEN", False)]
            XChangeProperty(
                display, window, XInternAtom(display, "_NET_WM_STATE", False), XA_ATOM, 32,
                PropModeReplace, &state, 1)
        } else {
            // No window manager: follow the root window's size ourselves.
            XSelectInput(display, root, StructureNotifyMask)
        }
        XSelectInput(display, window, ExposureMask | StructureNotifyMask | KeyPressMask | FocusChangeMask)
        XMapWindow(display, window)
        XFlush(display)
    }

    deinit {
        if let frame { sonic_destroy_image(frame) }
        text.close()
        XFreeGC(display, graphics)
        XDestroyWindow(display, window)
        XCloseDisplay(display)
    }

    /// Draws the image at `viewport` for the window's current placement.
    public func show(_ viewport: Viewport) {
        guard placement.width > 0, placement.height > 0 else { return }
        self.viewport = viewport
        if let frame { sonic_destroy_image(frame) }
        frame = makeImage(
            raster.render(window: placement, viewport: viewport),
            width: placement.width, height: placement.height)
        paint(x: 0, y: 0, width: placement.width, height: placement.height)
        XFlush(display)
    }

    /// Shows `image` (of the same size: a stack's other frame, a spectrum image's window map) in place of the one
    /// shown, through `stretch`.
    public func show(_ image: GrayImage, stretch: LevelStretch) {
        raster = ImageRaster(image: image, stretch: stretch, format: pixelFormat)
        if let viewport { show(viewport) }
    }

    /// Replaces what is drawn over the image.
    public func draw(_ overlay: Overlay) {
        guard overlay != self.overlay else { return }
        self.overlay = overlay
        paint(x: 0, y: 0, width: placement.width, height: placement.height)
        XFlush(display)
    }

    /// Whether any input device reports pen pressure (a tablet); without one the mouse plays.
    public var hasPenTablet: Bool { pen.hasPen }

    /// Waits up to `timeout` milliseconds for input and returns everything that arrived.
    public func nextEvents(timeout: Int32) -> [FrontendEvent] {
        if XPending(display) == 0 {
            var descriptor = pollfd(fd: XConnectionNumber(display), events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, timeout)
        }
        var events: [FrontendEvent] = []
        while XPending(display) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            handle(&event, into: &events)
        }
        return events
    }

    private func handle(_ event: inout XEvent, into events: inout [FrontendEvent]) {
        switch event.type {
        case GenericEvent:
            pen.handle(&event.xcookie, into: &events)
        case Expose:
            let e = event.xexpose
            paint(x: Int(e.x), y: Int(e.y), width: Int(e.width), height: Int(e.height))
        case ConfigureNotify where event.xconfigure.window == window:
            placeWindow(into: &events)
        case ConfigureNotify where event.xconfigure.window == root:
            // The screen was resized and nobody else will resize us.
            XMoveResizeWindow(display, window, 0, 0, UInt32(event.xconfigure.width), UInt32(event.xconfigure.height))
        case MapNotify where event.xmap.window == window:
            if hasWindowManager {
                askForFullScreen()
            } else {
                XSetInputFocus(display, window, RevertToParent, Time(CurrentTime))
            }
            placeWindow(into: &events)
        case KeyPress:
            var keysym: KeySym = 0
            var text = [CChar](repeating: 0, count: 8)
            XLookupString(&event.xkey, &text, Int32(text.count), &keysym, nil)
            if keysym != 0, !KeyNames.isModifier(UInt(keysym)), let name = XKeysymToString(keysym) {
                let control = event.xkey.state & UInt32(ControlMask) != 0
                let shift = event.xkey.state & UInt32(ShiftMask) != 0
                events.append(.key(KeyNames.name(ofKeysym: String(cString: name), control: control, shift: shift)))
            }
        case ClientMessage where Atom(event.xclient.data.l.0) == deleteWindowAtom:
            events.append(.closeRequested)
        case FocusIn, FocusOut:
            // Focus passing within the window, following the pointer, or lent to a grab (a window
            // manager's key binding, say) does not move it away from the window.
            let e = event.xfocus
            guard e.detail != NotifyInferior, e.detail != NotifyPointer,
                e.mode == NotifyNormal || e.mode == NotifyWhileGrabbed
            else { break }
            let now = event.type == FocusIn
            guard now != focused else { break }
            focused = now
            events.append(.focused(now))
        default:
            break
        }
    }

    // MARK: - Window and drawing

    /// The window's name, which window managers show and screen readers speak on focus: UTF-8 in both
    /// the ICCCM property and the EWMH one (XStoreName would label the UTF-8 bytes Latin-1).
    private func setTitle(_ title: String) {
        let utf8 = Array(title.utf8)
        let type = XInternAtom(display, "UTF8_STRING", False)
        for name in ["WM_NAME", "_NET_WM_NAME"] {
            XChangeProperty(
                display, window, XInternAtom(display, name, False), type, 8, PropModeReplace, utf8, Int32(utf8.count))
        }
    }

    /// Asks the window manager, once the window is mapped, for full screen: a manager still starting up
    /// when the window appeared may have missed the state set before mapping. Asking again is harmless.
    private func askForFullScreen() {
        var message = XEvent()
        message.xclient.type = ClientMessage
        message.xclient.window = window
        message.xclient.message_type = XInternAtom(display, "_NET_WM_STATE", False)
        message.xclient.format = 32
        message.xclient.data.l.0 = 1 // _NET_WM_STATE_ADD
        message.xclient.data.l.1 = Int(XInternAtom(display, "_NET_WM_STATE_FULLSCREEN", False))
        message.xclient.data.l.3 = 1 // a normal application
        XSendEvent(display, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &message)
        XFlush(display)
    }

    private func placeWindow(into events: inout [FrontendEvent]) {
        var attributes = XWindowAttributes()
        XGetWindowAttributes(display, window, &attributes)
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        XTranslateCoordinates(display, window, root, 0, 0, &x, &y, &child)
        let now = ScreenRect(x: Int(x), y: Int(y), width: Int(attributes.width), height: Int(attributes.height))
        guard now != placement else { return }
        placement = now
        events.append(.placed(now))
    }

    private func makeImage(_ pixels: [UInt32], width: Int, height: Int) -> UnsafeMutablePointer<XImage>? {
        // XDestroyImage frees the data with free(), so it must come from malloc.
        let bytes = pixels.count * MemoryLayout<UInt32>.size
        guard let data = malloc(bytes) else { return nil }
        pixels.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: bytes) }
        guard
            let image = XCreateImage(
                display, visual, UInt32(depth), ZPixmap, 0,
                data.assumingMemoryBound(to: CChar.self),
                UInt32(width), UInt32(height), 32, 0)
        else {
            free(data)
            return nil
        }
        guard image.pointee.bits_per_pixel == 32 else {
            sonic_destroy_image(image)
            return nil
        }
        // The pixel words are in this machine's order; Xlib converts if the server differs.
        image.pointee.byte_order = 1.littleEndian == 1 ? LSBFirst : MSBFirst
        return image
    }

    private func paint(x: Int, y: Int, width: Int, height: Int) {
        guard let frame else { return }
        let w = min(width, Int(frame.pointee.width) - x), h = min(height, Int(frame.pointee.height) - y)
        guard w > 0, h > 0 else { return }
        XPutImage(display, window, graphics, frame, Int32(x), Int32(y), Int32(x), Int32(y), UInt32(w), UInt32(h))
        paintOverlay()
    }

    /// The overlay, over the whole window (it is small; repainting it all keeps Expose simple). Every
    /// line is drawn over a black one twice as wide, so it shows on bright and dark parts of the image
    /// alike; lines and text grow with the text size.
    private func paintOverlay() {
        guard let viewport else { return }
        let size = overlay.textSize
        let width = size.lineWidth(dpi: text.desktopDPI)
        func onScreen(_ p: ImagePoint) -> (x: Double, y: Double) {
            let r = viewport.rootPoint(of: p)
            return (r.x - Double(placement.x), r.y - Double(placement.y))
        }
        func stroke(_ segments: [ScreenSegment], colour: UInt) {
            var lines = segments.compactMap {
                $0.clipped(width: Double(placement.width), height: Double(placement.height), margin: 4 * Double(width))
            }
            .map {
                XSegment(
                    x1: Int16($0.x0.rounded()), y1: Int16($0.y0.rounded()), x2: Int16($0.x1.rounded()),
                    y2: Int16($0.y1.rounded()))
            }
            guard !lines.isEmpty else { return }
            for (lineWidth, pixel) in [(2 * width, colours.outline), (width, colour)] {
                XSetLineAttributes(display, graphics, UInt32(lineWidth), LineSolid, CapRound, JoinRound)
                XSetForeground(display, graphics, pixel)
                XDrawSegments(display, window, graphics, &lines, Int32(lines.count))
            }
        }
        if overlay.cell.count >= 3 {
            let corners = (overlay.cell + [overlay.cell[0]]).map(onScreen)
            stroke(
                zip(corners, corners.dropFirst()).map { ScreenSegment(x0: $0.x, y0: $0.y, x1: $1.x, y1: $1.y) },
                colour: colours.cell)
        }
        let font = text.font(size)
        for mark in overlay.marks {
            let p = onScreen(mark.point)
            let radius = (mark.kind == .cursor ? 5 : 3.5) * Double(width), tick = Double(width + 1)
            // The circle as a polygon, so it is clipped like any other line.
            let circle = (0...24).map { k in
                let angle = Double(k) * Double.pi / 12
                return (x: p.x + radius * cos(angle), y: p.y + radius * sin(angle))
            }
            let colour =
                mark.kind == .cursor ? colours.cursor : mark.kind == .tag ? colours.tag : colours.unsnapped
            stroke(
                zip(circle, circle.dropFirst()).map { ScreenSegment(x0: $0.x, y0: $0.y, x1: $1.x, y1: $1.y) }
                    + [
                        ScreenSegment(x0: p.x - tick, y0: p.y, x1: p.x + tick, y1: p.y),
                        ScreenSegment(x0: p.x, y0: p.y - tick, x1: p.x, y1: p.y + tick)
                    ],
                colour: colour)
            if let font, !mark.label.isEmpty, abs(p.x) < 30_000, abs(p.y) < 30_000 {
                text.drawBand(
                    [mark.label], font: font, x: Int32((p.x + radius + Double(width)).rounded()),
                    y: Int32((p.y - radius - Double(font.pointee.height)).rounded()))
            }
        }
        if let font, !overlay.status.isEmpty {
            let margin = Int32(size.pixelSize(dpi: text.desktopDPI) / 2)
            text.drawBand(overlay.status, font: font, x: margin, y: margin)
        }
    }

    private static func windowManagerRuns(_ display: OpaquePointer, _ root: Window) -> Bool {
        let check = XInternAtom(display, "_NET_SUPPORTING_WM_CHECK", True)
        guard check != 0 else { return false }
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard
            XGetWindowProperty(
                display, root, check, 0, 1, False, XA_WINDOW, &type, &format, &count, &remaining,
                &data) == Success, let data
        else { return false }
        defer { XFree(data) }
        return count == 1 && type == XA_WINDOW
    }
}

/// Protocol errors (a window gone between two requests, say) are not fatal for a viewer.
private func ignoreProtocolError(_ display: OpaquePointer?, _ event: UnsafeMutablePointer<XErrorEvent>?) -> Int32 { 0 }

/// Xlib ends the process after this returns; say why in one line first.
private func exitOnLostConnection(_ display: OpaquePointer?) -> Int32 {
    let message = "sonic-atomic: lost the connection to the X server\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(ExitStatus.noDisplay.rawValue)
}
