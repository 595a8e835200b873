/// What the controller wants done, besides the sound it sets directly.
public enum ControllerOutput: Sendable, Equatable {
    /// A handled pen event, for the session log.
    case pen(PenRecord)
    /// The mode changed.
    case mode(Mode)
    /// Say this (it interrupts whatever is being said).
    case speak(String)
    case tagAdded(Tag)
    case tagRemoved(Tag)
    /// The user asked to quit (the goodbye has been asked to be spoken first).
    case quit
}

/// The multi-mode instrument: pen gestures and keys become mode changes, tags and announcements;
/// pen positions become sound through the instrument. Knows nothing of X, sound servers or voices.
public final class SessionController {
    public let instrument: Instrument
    public private(set) var modes: ModeCycle
    public private(set) var tags: [Tag] = []
    private var lowerBarrel: ClickDetector
    private var taps: TapDetector
    private var lastButtons = PenButtons()
    private var lastAnnouncement = ""
    private let imageName: String

    public init(instrument: Instrument, imageName: String) {
        self.instrument = instrument
        self.imageName = imageName
        let profile = instrument.profile
        modes = ModeCycle(order: profile.modes)
        lowerBarrel = ClickDetector(doubleClickTime: profile.gestures.doubleClickTime)
        taps = TapDetector(maximumTime: profile.gestures.tapTime, maximumDistance: profile.gestures.tapDistance)
    }

    public static let keyHelp = """
        Keys. Tab: next mode. Shift Tab: previous mode. 1 to \(Mode.allCases.count): choose a mode. \
        Space: where am I. Backspace: remove the last tag. R: repeat. F1: this help. Escape or Q: quit. \
        Pen: double click the lower barrel button for the next mode, click it once for where am I. \
        The upper barrel button removes the last tag in tagging mode, and repeats the last announcement in the others.
        """

    /// The greeting: what is open and how it sounds, then anything the user must know (`notices`).
    public func start(notices: [String] = []) -> [ControllerOutput] {
        let image = instrument.image
        let greeting = "SonicAtomic. \(imageName), \(image.width) by \(image.height) pixels, \(image.bitDepth) bit. "
            + modeAnnouncement
        return [announce(([greeting] + notices).joined(separator: " "))]
    }

    /// When `poll` next has something to do (a pending single click), if ever.
    public var deadline: Double? { lowerBarrel.deadline }

    /// Acts on anything whose time has come by `time`.
    public func poll(at time: Double) -> [ControllerOutput] {
        lowerBarrel.poll(at: time) == .single ? [announce(whereAmI)] : []
    }

    public func handle(_ event: PenEvent) -> [ControllerOutput] {
        var outputs: [ControllerOutput] = [.pen(instrument.handle(event))]
        let pressed = PenButtons(bits: event.buttons.bits & ~lastButtons.bits)
        lastButtons = event.buttons
        if pressed.contains(PenButtons.lowerBarrel) {
            switch lowerBarrel.press(at: event.time) {
            case .double: outputs += changeMode { $0.next() }
            case .single: outputs.append(announce(whereAmI))
            case nil: break
            }
        }
        if pressed.contains(PenButtons.upperBarrel) {
            outputs += modes.current == .unitCellTagging ? removeLastTag() : [repeatLast()]
        }
        let tipDown = event.buttons.contains(PenButtons.tip) && event.pressure > 0
        if let tap = taps.update(tipDown: tipDown, time: event.time, x: event.rootX, y: event.rootY),
           modes.current == .unitCellTagging {
            outputs += addTag(atRootX: tap.x, y: tap.y)
        }
        return outputs
    }

    /// A key by its X keysym name.
    public func handle(key: String) -> [ControllerOutput] {
        switch key {
        case "Tab": return changeMode { $0.next() }
        case "ISO_Left_Tab": return changeMode { $0.previous() }
        case "space": return [announce(whereAmI)]
        case "BackSpace": return removeLastTag()
        case "r", "R": return [repeatLast()]
        case "F1": return [announce(Self.keyHelp)]
        case "Escape", "q", "Q": return [announce("Goodbye."), .quit]
        default:
            guard let n = Int(key), (1...9).contains(n) else { return [] }
            guard n <= modes.order.count else { return [announce("There is no mode \(n).")] }
            return changeMode { $0.select(number: n) }
        }
    }

    // MARK: -

    private var modeAnnouncement: String { "Mode \(modes.number), \(modes.current.spokenName)." }

    private func changeMode(_ change: (inout ModeCycle) -> Void) -> [ControllerOutput] {
        change(&modes)
        instrument.set(mode: modes.current)
        return [.mode(modes.current), announce(modeAnnouncement)]
    }

    /// "x 512, y 300, intensity 82 percent" for the pixel under the pen.
    private var whereAmI: String {
        guard let record = instrument.lastRecord else { return "The pen is not on the tablet." }
        guard record.inImage else { return "Outside the image." }
        return describe(x: record.imageX, y: record.imageY, level: record.level)
    }

    private func describe(x: Double, y: Double, level: Double) -> String {
        let pixel = ImagePoint(x: x, y: y).nearestPixel
        return "x \(pixel.x), y \(pixel.y), intensity \(Int((level * 100).rounded())) percent"
    }

    private func addTag(atRootX rootX: Double, y rootY: Double) -> [ControllerOutput] {
        let point = instrument.viewport.imagePoint(rootX: rootX, rootY: rootY)
        let pixel = point.nearestPixel
        guard instrument.image.contains(pixelX: pixel.x, y: pixel.y) else {
            return [announce("Not tagged: outside the image.")]
        }
        let tag = Tag(id: tags.count + 1, x: point.x, y: point.y)
        tags.append(tag)
        let level = instrument.stretch.level(instrument.image[pixel.x, pixel.y])
        return [.tagAdded(tag), announce("Tag \(tag.id) at \(describe(x: point.x, y: point.y, level: level))")]
    }

    private func removeLastTag() -> [ControllerOutput] {
        guard let tag = tags.popLast() else { return [announce("No tags to remove.")] }
        return [.tagRemoved(tag), announce("Removed tag \(tag.id).")]
    }

    private func repeatLast() -> ControllerOutput {
        .speak(lastAnnouncement.isEmpty ? "Nothing to repeat." : lastAnnouncement)
    }

    private func announce(_ text: String) -> ControllerOutput {
        lastAnnouncement = text
        return .speak(text)
    }
}
