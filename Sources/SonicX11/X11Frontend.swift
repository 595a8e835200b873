import CX11
import CXInput2
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
}

public struct X11Error: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The whole X11/XInput2 front end: a full-screen window showing the image, and pen, mouse and
/// key input turned into window-system-free events. Nothing else in the program touches Xlib.
public final class X11Frontend {
    private let display: OpaquePointer
    private let window: Window
    private let root: Window
    private let xiOpcode: Int32
    private let visual: UnsafeMutablePointer<Visual>
    private let depth: Int32
    private let graphics: GC
    private let raster: ImageRaster
    private let deleteWindowAtom: Atom
    /// Whether a window manager runs (then full screen is asked of it; otherwise the window covers the root).
    public let hasWindowManager: Bool

    /// The drawn image for the window as placed now; Expose repaints from it.
    private var frame: UnsafeMutablePointer<XImage>?
    private var placement = ScreenRect(x: 0, y: 0, width: 0, height: 0)
    private var viewport: Viewport?
    /// Drawn over the image.
    private var overlay = Overlay()
    private let font: UnsafeMutablePointer<XFontStruct>?
    private let colours: (tag: UInt, unsnapped: UInt, cell: UInt, cursor: UInt, text: UInt, panel: UInt)
    /// Pointing devices by XI2 device id, with the last axis values each sent.
    private var devices: [Int32: PenDevice] = [:]
    private var buttons = PenButtons()
    private var pointerInWindow = true
    /// Stamps each pen event as it is decoded.
    private let clock: () -> Double

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
        var opcode: Int32 = 0, firstEvent: Int32 = 0, firstError: Int32 = 0
        var major: Int32 = 2, minor: Int32 = 2
        guard XQueryExtension(display, "XInputExtension", &opcode, &firstEvent, &firstError) != 0,
            XIQueryVersion(display, &major, &minor) == Success, major * 100 + minor >= 202
        else {
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
        self.clock = clock
        self.xiOpcode = opcode
        self.visual = visual
        self.depth = depth
        root = XRootWindow(display, screen)
        raster = ImageRaster(
            image: image, stretch: stretch,
            format: PixelFormat(
                redMask: UInt32(truncatingIfNeeded: visual.pointee.red_mask),
                greenMask: UInt32(truncatingIfNeeded: visual.pointee.green_mask),
                blueMask: UInt32(truncatingIfNeeded: visual.pointee.blue_mask)))
        hasWindowManager = Self.windowManagerRuns(display, root)

        let width = UInt32(XDisplayWidth(display, screen)), height = UInt32(XDisplayHeight(display, screen))
        let black = XBlackPixel(display, screen)
        window = XCreateSimpleWindow(display, root, 0, 0, width, height, 0, black, black)
        graphics = XCreateGC(display, window, 0, nil)
        font =
            XLoadQueryFont(display, "-misc-fixed-bold-r-normal--18-*-*-*-*-*-iso10646-1")
            ?? XLoadQueryFont(display, "fixed")
        if let font { XSetFont(display, graphics, font.pointee.fid) }
        let format = PixelFormat(
            redMask: UInt32(truncatingIfNeeded: visual.pointee.red_mask),
            greenMask: UInt32(truncatingIfNeeded: visual.pointee.green_mask),
            blueMask: UInt32(truncatingIfNeeded: visual.pointee.blue_mask))
        func colour(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt { UInt(format.pixel(red: r, green: g, blue: b)) }
        colours = (
            tag: colour(255, 210, 0), unsnapped: colour(255, 80, 60), cell: colour(0, 220, 255),
            cursor: colour(80, 255, 80), text: colour(255, 255, 255), panel: colour(0, 0, 0)
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
        XSelectInput(display, window, ExposureMask | StructureNotifyMask | KeyPressMask)
        selectPenEvents()
        refreshDevices()
        XMapWindow(display, window)
        XFlush(display)
    }

    deinit {
        if let frame { sonic_destroy_image(frame) }
        if let font { XFreeFont(display, font) }
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

    /// Replaces what is drawn over the image.
    public func draw(_ overlay: Overlay) {
        guard overlay != self.overlay else { return }
        self.overlay = overlay
        paint(x: 0, y: 0, width: placement.width, height: placement.height)
        XFlush(display)
    }

    /// Whether any input device reports pen pressure (a tablet); without one the mouse plays.
    public var hasPenTablet: Bool { devices.values.contains { $0.hasPressure } }

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
            handleInput(&event.xcookie, into: &events)
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
            if keysym != 0, let name = XKeysymToString(keysym) {
                events.append(.key(KeyNames.name(ofKeysym: String(cString: name))))
            }
        case ClientMessage where Atom(event.xclient.data.l.0) == deleteWindowAtom:
            events.append(.closeRequested)
        default:
            break
        }
    }

    // MARK: - Pen input

    private func selectPenEvents() {
        var windowMask = [UInt8](repeating: 0, count: xiMaskLength(XI_LASTEVENT))
        for type in [XI_Motion, XI_ButtonPress, XI_ButtonRelease, XI_Enter, XI_Leave] {
            xiSetMask(&windowMask, Int32(type))
        }
        select(&windowMask, device: XIAllMasterDevices, on: window)
        var rootMask = [UInt8](repeating: 0, count: xiMaskLength(XI_LASTEVENT))
        xiSetMask(&rootMask, Int32(XI_HierarchyChanged))
        xiSetMask(&rootMask, Int32(XI_DeviceChanged))
        select(&rootMask, device: XIAllDevices, on: root)
    }

    private func select(_ mask: inout [UInt8], device: Int32, on target: Window) {
        mask.withUnsafeMutableBufferPointer { buffer in
            var eventMask = XIEventMask(deviceid: device, mask_len: Int32(buffer.count), mask: buffer.baseAddress)
            _ = XISelectEvents(display, target, &eventMask, 1)
        }
    }

    /// Rebuilds the axis table of every pointing device: axes are found by label, never by index.
    private func refreshDevices() {
        var count: Int32 = 0
        guard let infos = XIQueryDevice(display, XIAllDevices, &count) else { return }
        defer { XIFreeDeviceInfo(infos) }
        var found: [Int32: PenDevice] = [:]
        for info in UnsafeBufferPointer(start: infos, count: Int(count)) {
            var valuators: [Valuator] = []
            for index in 0..<Int(info.num_classes) {
                guard let any = info.classes[index], any.pointee.type == XIValuatorClass else { continue }
                let axis = UnsafeMutableRawPointer(any).assumingMemoryBound(to: XIValuatorClassInfo.self).pointee
                valuators.append(
                    Valuator(
                        number: Int(axis.number), label: atomName(axis.label),
                        minimum: axis.min, maximum: axis.max, resolution: Double(axis.resolution)))
            }
            // Keep the last axis values across a refresh so a hot-plug elsewhere does not reset the pen.
            var device = PenDevice(valuators: valuators)
            if let old = devices[info.deviceid], old.pressureAxis == device.pressureAxis,
                old.tiltXAxis == device.tiltXAxis, old.tiltYAxis == device.tiltYAxis
            {
                device = old
            }
            found[info.deviceid] = device
        }
        devices = found
    }

    private func atomName(_ atom: Atom) -> String {
        guard atom != 0, let name = XGetAtomName(display, atom) else { return "" }
        defer { XFree(name) }
        return String(cString: name)
    }

    private func handleInput(_ cookie: inout XGenericEventCookie, into events: inout [FrontendEvent]) {
        guard cookie.`extension` == xiOpcode, XGetEventData(display, &cookie) != 0 else { return }
        defer { XFreeEventData(display, &cookie) }
        switch cookie.evtype {
        case XI_Motion, XI_ButtonPress, XI_ButtonRelease:
            let e = cookie.data.assumingMemoryBound(to: XIDeviceEvent.self).pointee
            buttons = PenButtons(bits: Self.buttonBits(e.buttons))
            if cookie.evtype == XI_ButtonPress { buttons.insert(Int(e.detail)) }
            if cookie.evtype == XI_ButtonRelease { buttons.remove(Int(e.detail)) }
            var device = devices[e.sourceid] ?? PenDevice(valuators: [])
            var slot = 0
            for bit in 0..<Int(e.valuators.mask_len) * 8 where xiMaskIsSet(e.valuators.mask, bit) {
                device.update(number: bit, value: e.valuators.values[slot])
                slot += 1
            }
            devices[e.sourceid] = device
            pointerInWindow = true
            events.append(.pen(penEvent(device, rootX: e.root_x, rootY: e.root_y)))
        case XI_Enter, XI_Leave:
            let e = cookie.data.assumingMemoryBound(to: XIEnterEvent.self).pointee
            // Grabs (e.g. the implicit one while a button is held) keep the pointer where it is.
            guard e.mode == NotifyNormal else { return }
            pointerInWindow = cookie.evtype == XI_Enter
            events.append(
                .pen(
                    penEvent(
                        devices[e.sourceid] ?? PenDevice(valuators: []),
                        rootX: e.root_x, rootY: e.root_y)))
        case XI_HierarchyChanged:
            refreshDevices()
        case XI_DeviceChanged:
            let e = cookie.data.assumingMemoryBound(to: XIDeviceChangedEvent.self).pointee
            if e.reason == XIDeviceChange { refreshDevices() }
        default:
            break
        }
    }

    private func penEvent(_ device: PenDevice, rootX: Double, rootY: Double) -> PenEvent {
        PenEvent(
            time: clock(), rootX: rootX, rootY: rootY, pressure: device.pressure(buttons: buttons),
            tiltX: device.tiltXDegrees, tiltY: device.tiltYDegrees, buttons: buttons, inWindow: pointerInWindow)
    }

    private static func buttonBits(_ state: XIButtonState) -> UInt32 {
        // XI2 button masks count from bit 0 = button 0 (unused); PenButtons keeps bit 0 for button 1.
        var bits: UInt32 = 0
        for button in 1..<min(33, Int(state.mask_len) * 8) where xiMaskIsSet(state.mask, button) {
            bits |= 1 << (button - 1)
        }
        return bits
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

    /// The overlay, over the whole window (it is small; repainting it all keeps Expose simple).
    private func paintOverlay() {
        guard let viewport else { return }
        func onScreen(_ p: ImagePoint) -> XPoint {
            let r = viewport.rootPoint(of: p)
            return XPoint(
                x: Int16(clamping: Int((r.x - Double(placement.x)).rounded())),
                y: Int16(clamping: Int((r.y - Double(placement.y)).rounded())))
        }
        XSetLineAttributes(display, graphics, 2, LineSolid, CapRound, JoinRound)
        if overlay.cell.count >= 3 {
            var corners = (overlay.cell + [overlay.cell[0]]).map(onScreen)
            XSetForeground(display, graphics, colours.cell)
            XDrawLines(display, window, graphics, &corners, Int32(corners.count), CoordModeOrigin)
        }
        for mark in overlay.marks {
            let p = onScreen(mark.point)
            let r: Int16 = mark.kind == .cursor ? 10 : 7
            XSetForeground(
                display, graphics,
                mark.kind == .cursor
                    ? colours.cursor
                    : mark.kind == .tag ? colours.tag : colours.unsnapped)
            XDrawArc(
                display, window, graphics, Int32(p.x - r), Int32(p.y - r), UInt32(2 * r), UInt32(2 * r), 0, 360 * 64)
            XDrawLine(display, window, graphics, Int32(p.x - 3), Int32(p.y), Int32(p.x + 3), Int32(p.y))
            XDrawLine(display, window, graphics, Int32(p.x), Int32(p.y - 3), Int32(p.x), Int32(p.y + 3))
            drawText(mark.label, x: Int32(p.x + r + 2), y: Int32(p.y - r))
        }
        if !overlay.status.isEmpty, let font {
            let line = Int32(font.pointee.ascent + font.pointee.descent + 4)
            let width = overlay.status.map { XTextWidth(font, $0, Int32($0.utf8.count)) }.max() ?? 0
            XSetForeground(display, graphics, colours.panel)
            XFillRectangle(
                display, window, graphics, 8, 8, UInt32(width + 16), UInt32(line * Int32(overlay.status.count) + 8))
            XSetForeground(display, graphics, colours.text)
            for (index, text) in overlay.status.enumerated() {
                drawText(text, x: 16, y: 12 + Int32(font.pointee.ascent) + line * Int32(index))
            }
        }
    }

    private func drawText(_ text: String, x: Int32, y: Int32) {
        guard !text.isEmpty else { return }
        XDrawString(display, window, graphics, x, y, text, Int32(text.utf8.count))
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

// MARK: - XI2 mask helpers (the C macros are not imported)

private func xiMaskLength(_ event: Int32) -> Int { Int(event >> 3) + 1 }
private func xiSetMask(_ mask: inout [UInt8], _ event: Int32) { mask[Int(event >> 3)] |= 1 << UInt8(event & 7) }
private func xiMaskIsSet(_ mask: UnsafeMutablePointer<UInt8>, _ bit: Int) -> Bool {
    mask[bit >> 3] & (1 << UInt8(bit & 7)) != 0
}

/// Protocol errors (a window gone between two requests, say) are not fatal for a viewer.
private func ignoreProtocolError(_ display: OpaquePointer?, _ event: UnsafeMutablePointer<XErrorEvent>?) -> Int32 { 0 }

/// Xlib ends the process after this returns; say why in one line first.
private func exitOnLostConnection(_ display: OpaquePointer?) -> Int32 {
    let message = "sonic-atomic: lost the connection to the X server\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(3)
}
