import CX11
import CXInput2
import SonicCore

/// Pen, mouse and tablet input through XInput2: the window's pointer events and the root's device
/// changes, turned into the pen's state as `PenTracker` keeps it across devices and drivers.
final class PenInput {
    private let display: OpaquePointer
    private let xiOpcode: Int32
    /// The pen's state from every device's reports, and the pen's device as it comes and goes.
    private var tracker = PenTracker(devices: [])
    /// Stamps each pen event as it is decoded.
    private let clock: () -> Double

    /// The XInput extension's opcode, if the server has XInput 2.2 (needed for pen valuators).
    static func extensionOpcode(_ display: OpaquePointer) -> Int32? {
        var opcode: Int32 = 0, firstEvent: Int32 = 0, firstError: Int32 = 0
        var major: Int32 = 2, minor: Int32 = 2
        guard XQueryExtension(display, "XInputExtension", &opcode, &firstEvent, &firstError) != 0,
            XIQueryVersion(display, &major, &minor) == Success, major * 100 + minor >= 202
        else { return nil }
        return opcode
    }

    init(display: OpaquePointer, opcode: Int32, window: Window, root: Window, clock: @escaping () -> Double) {
        self.display = display
        xiOpcode = opcode
        self.clock = clock
        selectEvents(window: window, root: root)
        tracker = PenTracker(devices: listDevices())
    }

    /// Whether any input device reports pen pressure (a tablet).
    var hasPen: Bool { tracker.hasPen }

    private func selectEvents(window: Window, root: Window) {
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

    /// Every input device with its axes, as the server lists it now: axes are found by label, never by index.
    private func listDevices() -> [InputDevice] {
        var count: Int32 = 0
        guard let infos = XIQueryDevice(display, XIAllDevices, &count) else { return [] }
        defer { XIFreeDeviceInfo(infos) }
        return UnsafeBufferPointer(start: infos, count: Int(count)).map { info in
            var valuators: [Valuator] = []
            for index in 0..<Int(info.num_classes) {
                guard let any = info.classes[index], any.pointee.type == XIValuatorClass else { continue }
                let axis = UnsafeMutableRawPointer(any).assumingMemoryBound(to: XIValuatorClassInfo.self).pointee
                valuators.append(
                    Valuator(
                        number: Int(axis.number), label: atomName(axis.label),
                        minimum: axis.min, maximum: axis.max, resolution: Double(axis.resolution)))
            }
            return InputDevice(
                id: Int(info.deviceid), name: info.name.map { String(cString: $0) } ?? "",
                isMaster: info.use == XIMasterPointer || info.use == XIMasterKeyboard, enabled: info.enabled != 0,
                valuators: valuators)
        }
    }

    /// The devices changed: the pen's may have gone (its tone is silenced) or come.
    private func refreshDevices(into events: inout [FrontendEvent]) {
        for output in tracker.list(listDevices(), at: clock()) {
            switch output {
            case .pen(let event): events.append(.pen(event))
            case .penLost: events.append(.penLost)
            case .penFound: events.append(.penFound)
            }
        }
    }

    private func atomName(_ atom: Atom) -> String {
        guard atom != 0, let name = XGetAtomName(display, atom) else { return "" }
        defer { XFree(name) }
        return String(cString: name)
    }

    /// Adds what an XInput2 event means for the pen to `events`; other extensions' events are ignored.
    func handle(_ cookie: inout XGenericEventCookie, into events: inout [FrontendEvent]) {
        guard cookie.`extension` == xiOpcode, XGetEventData(display, &cookie) != 0 else { return }
        defer { XFreeEventData(display, &cookie) }
        switch cookie.evtype {
        case XI_Motion, XI_ButtonPress, XI_ButtonRelease:
            let e = cookie.data.assumingMemoryBound(to: XIDeviceEvent.self).pointee
            var valuators: [Int: Double] = [:]
            var slot = 0
            for bit in 0..<Int(e.valuators.mask_len) * 8 where xiMaskIsSet(e.valuators.mask, bit) {
                valuators[bit] = e.valuators.values[slot]
                slot += 1
            }
            let kind: PointerReport.Kind =
                switch cookie.evtype {
                case XI_ButtonPress: .press(Int(e.detail))
                case XI_ButtonRelease: .release(Int(e.detail))
                default: .motion
                }
            let report = PointerReport(
                kind, device: Int(e.sourceid), rootX: e.root_x, rootY: e.root_y, valuators: valuators,
                buttons: PenButtons(bits: Self.buttonBits(e.buttons)))
            events.append(.pen(tracker.handle(report, at: clock())))
        case XI_Enter, XI_Leave:
            let e = cookie.data.assumingMemoryBound(to: XIEnterEvent.self).pointee
            // Grabs (e.g. the implicit one while a button is held) keep the pointer where it is.
            guard e.mode == NotifyNormal else { return }
            let report = PointerReport(
                .crossing(entered: cookie.evtype == XI_Enter), device: Int(e.sourceid), rootX: e.root_x,
                rootY: e.root_y)
            events.append(.pen(tracker.handle(report, at: clock())))
        case XI_HierarchyChanged:
            refreshDevices(into: &events)
        case XI_DeviceChanged:
            let e = cookie.data.assumingMemoryBound(to: XIDeviceChangedEvent.self).pointee
            if e.reason == XIDeviceChange { refreshDevices(into: &events) }
        default:
            break
        }
    }

    private static func buttonBits(_ state: XIButtonState) -> UInt32 {
        // XI2 button masks count from bit 0 = button 0 (unused); PenButtons keeps bit 0 for button 1.
        var bits: UInt32 = 0
        for button in 1..<min(33, Int(state.mask_len) * 8) where xiMaskIsSet(state.mask, button) {
            bits |= 1 << (button - 1)
        }
        return bits
    }
}

// MARK: - XI2 mask helpers (the C macros are not imported)

private func xiMaskLength(_ event: Int32) -> Int { Int(event >> 3) + 1 }
private func xiSetMask(_ mask: inout [UInt8], _ event: Int32) { mask[Int(event >> 3)] |= 1 << UInt8(event & 7) }
private func xiMaskIsSet(_ mask: UnsafeMutablePointer<UInt8>, _ bit: Int) -> Bool {
    mask[bit >> 3] & (1 << UInt8(bit & 7)) != 0
}
