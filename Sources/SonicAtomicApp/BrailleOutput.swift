import SonicBraille
import SonicCore

/// The session's braille display: every announcement in its written form, read at the user's pace (`BrailleLine`),
/// the status line, and on a multi-line display the tactile picture following the pen. What is shown is logged as
/// `braille` records. brltty's going away is said on stderr; its return on stderr and aloud, as the sound's.
final class BrailleOutput {
    private let link: BrailleLink
    private let settings: Profile.BrailleSettings
    private let required: Bool
    private var line: BrailleLine
    private var size = BrailleSize(columns: 0, rows: 0)
    private var showsPicture: Bool
    private var lost = false
    /// What was last handed to the display, and when the picture was last drawn.
    private var shown: BrailleLink.Content?
    private var pictureDrawn = -Double.infinity

    /// `required`: brltty was asked for (`--braille on`), so not reaching it at the start is said.
    init(windowID: UInt, settings: Profile.BrailleSettings, required: Bool) {
        link = BrailleLink(windowID: windowID)
        self.settings = settings
        self.required = required
        line = BrailleLine(messageSeconds: settings.messageTime, showsStatus: settings.status)
        showsPicture = settings.startsWithPicture
    }

    /// An announcement, as said at `time`; `after`: said once what is being said has been.
    func announce(_ spoken: String, after: Bool = false, controller: SessionController, at time: Double) {
        guard !spoken.isEmpty else { return }
        let text = BrailleText.compact(spoken)
        let targets = controller.brailleTargets(in: text)
        line.add(
            BrailleMessage(text, targets: targets, table: BrailleTable.tags(text, targets: targets)),
            continuing: after, at: time)
    }

    /// The user asked the program something: its answer shows, whatever place they were reading.
    func userAsked(at time: Double) { _ = line.press(.newest, size: size, at: time) }

    /// The window gained or lost the focus: the display is the program's only while it has it.
    func windowFocused(_ active: Bool) { link.windowFocused(active) }

    /// Takes the display's keys and changes, and brings what it shows up to date; returns what the controller asked
    /// in answer (a routing key's guidance, the display's return said).
    func update(controller: SessionController, log: SessionLog?, at time: Double) -> [ControllerOutput] {
        var outputs: [ControllerOutput] = []
        for change in link.takeChanges() {
            switch change {
            case .connected(let now):
                resized(now, log: log, at: time)
                if lost {
                    lost = false
                    warn("brltty answers again: braille shows again")
                    outputs += controller.brailleBack()
                }
            case .lost(let reason):
                warn("\(reason): braille shows again once brltty is back")
                log?.write(.braille(t: time, .lost(reason)))
                lost = true
                // Nothing is shown until brltty is back, with the display it then has.
                size = BrailleSize(columns: 0, rows: 0)
                shown = nil
            case .unreachable(let reason):
                if required { warn("cannot reach brltty (\(reason)): braille shows once it answers") }
            case .key(.switchView):
                guard size.rows > 1 else { break }
                showsPicture.toggle()
                pictureDrawn = -.infinity
                // The text lines open on the overview's details and the tags.
                if !showsPicture { line.add(controller.brailleSheet, at: time) }
            case .key(let key):
                if let action = line.press(key, size: size, at: time) {
                    userAsked(at: time)
                    outputs += controller.brailleRouted(action, at: time)
                }
            }
        }
        refresh(controller: controller, log: log, at: time)
        return outputs
    }

    /// Gives the display back, once the last content has been written.
    func stop() { link.stop() }

    private func resized(_ now: BrailleSize, log: SessionLog?, at time: Double) {
        size = now
        shown = nil
        pictureDrawn = -.infinity
        log?.write(.braille(t: time, .display(columns: now.columns, rows: now.rows)))
    }

    private func refresh(controller: SessionController, log: SessionLog?, at time: Double) {
        guard size.cells > 0 else { return }
        if showsPicture && size.rows > 1 {
            guard time - pictureDrawn >= 1 / settings.pictureRate else { return }
            pictureDrawn = time
            let instrument = controller.instrument
            let pen = instrument.lastRecord.flatMap { $0.inImage ? ImagePoint(x: $0.imageX, y: $0.imageY) : nil }
            let picture = TactilePicture(
                region: controller.brailleRegion, level: instrument.level(at:), pen: pen,
                marks: controller.brailleMarks,
                size: size)
            show(.dots(picture.cells), logged: .picture(picture.text), log: log, at: time)
        } else {
            let rows = line.rows(size, status: controller.brailleStatus, at: time)
            let text = (0..<size.rows).map { $0 < rows.count ? rows[$0] : "" }
            show(
                .text(text.map { padded($0, to: size.columns) }.joined()),
                logged: .text(text.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")),
                log: log, at: time)
        }
    }

    private func show(_ content: BrailleLink.Content, logged: BrailleShown, log: SessionLog?, at time: Double) {
        guard content != shown else { return }
        shown = content
        link.show(content)
        log?.write(.braille(t: time, logged))
    }

    private func padded(_ row: String, to width: Int) -> String {
        row.count >= width ? String(row.prefix(width)) : row + String(repeating: " ", count: width - row.count)
    }
}
