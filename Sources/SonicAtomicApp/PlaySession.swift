import Foundation
import Glibc
import SonicAccessibility
import SonicAudio
import SonicCore
import SonicImageFiles
import SonicX11

/// One run of `play`: set up the image, the saved tags, the window, the sound and the voice around a
/// session controller; run the event loop, carrying out what the controller asks; shut down so the
/// last tags are saved and the goodbye is heard.
final class PlaySession {
    private let controller: SessionController
    private let frontend: X11Frontend
    private let screenReaderWindow: ScreenReaderWindow
    private let braille: BrailleOutput?
    private let sound: LiveSound
    private let voice: (any Announcer)?
    private let log: SessionLog?
    private let saver: TagSaver
    private let snaps: SnapQueue
    /// The search for the columns of the image played now (a stack's frame, a window's map).
    private var columnSearch: ColumnSearch
    /// What changes across a stack's frames, for each frame's overview.
    private let stackSentence: StackSentence?
    private let pixelSize: PixelSize?
    /// The file's reciprocal calibration (a diffraction pattern's), in reciprocal nanometres a pixel.
    private let reciprocalPerPixel: Double?
    /// A spectrum image's spectra, read for the spectrum mode, and its energy windows' maps, made as the keys ask.
    private let spectra: LatestWork<SpectrumRequest, SpectrumLevels>?
    private let windowMaps: LatestWork<(PlayedWindow, ImagePreparation), (PlayedWindow, Result<Ready, ImageFileError>)>?
    /// The waits on a window's map and on a frame, told when they take seconds.
    private let windowWait = LongWait("making the window's map"), frameWait = LongWait("reading the frame")
    /// A stack's frames, read and made ready as the keys step to them.
    private let frames: LatestWork<(Int, ImagePreparation), (Int, Result<Ready, ImageFileError>)>?
    /// The finder of the image about to play, made with it away from the event loop.
    private var readyFinder: ColumnFinder?
    /// The energy window `--window` or `--element` chose, and its map.
    private let chosenWindow: (window: PlayedWindow, map: GrayImage)?
    /// What the greeting ends with: what the user must know before starting.
    private let notices: [String]
    private var quitAsked = false
    /// F2 asked for the lesson in this session's place.
    private var lessonAsked = false
    private var dropoutsLogged = 0
    private var delayLogged = 0.0
    /// The changes the live sound made later than due, and how many of them the log has.
    private let lateChanges: LateChanges
    private var lateChangesLogged = 0
    /// A change of the sound's delay this large is logged: a tenth of a millisecond, well below what a
    /// hand can tell, well above the clock's rounding.
    static let loggedDelayStep = 0.0001

    /// What a session plays: an image file (`play`), or the lesson's images from where the user got to (`learn`).
    private enum Source {
        case file(Play)
        case lesson(LessonStore, restart: Bool)
    }

    /// The lesson played, and where its progress is kept; nil in `play`.
    private let lessonStore: LessonStore?
    /// Where the lesson starts, what to say when the place kept could not be read, and the image opened with.
    private let lessonStart: (progress: LessonProgress, notice: String?, image: LessonImage)?

    convenience init(_ options: Play) throws { try self.init(options.session, .file(options)) }

    convenience init(_ options: Learn) throws {
        try self.init(options.session, .lesson(LessonStore(), restart: options.restart))
    }

    /// `play`, and when F2 asks for the lesson, `learn` in its place once the session has ended (its window closed,
    /// its tags saved), with the same options, its log beside the session's (`lessonLogPath`). The program runs
    /// again for it: a process starts the desktop's accessibility and the voice once.
    static func play(_ options: Play) throws {
        guard runToTheEnd(try PlaySession(options)) else { return }
        var arguments = [CommandLine.arguments[0]] + options.session.learnArguments
        if let index = arguments.firstIndex(of: "--events"), index + 1 < arguments.count {
            arguments[index + 1] = lessonLogPath(arguments[index + 1])
        }
        let pointers = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", pointers)
        // Without the program's own file the lesson has no window to open in.
        throw fail("cannot start the lesson: \(String(cString: strerror(errno)))", status: .noDisplay)
    }

    /// Runs `session` until it ends; whether it asked for the lesson.
    static func runToTheEnd(_ session: PlaySession) -> Bool {
        session.run()
        session.shutDown()
        return session.lessonAsked
    }

    /// Where the lesson F2 starts logs: "session-lesson.jsonl" beside "session.jsonl".
    static func lessonLogPath(_ path: String) -> String {
        let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[name...].lastIndex(of: "."), dot > name else { return path + "-lesson" }
        return String(path[..<dot]) + "-lesson" + String(path[dot...])
    }

    /// Everything the session needs, in the order that lets a failure say what is missing: the
    /// profile, the image, the log and the saved tags, then the window, the voice and the sound.
    private init(_ options: SessionOptions, _ source: Source) throws {
        let settings = try options.profile()
        let play: Play?
        let imagePath: String, opened: ImageFiles.Opened
        switch source {
        case .file(let options):
            play = options
            (imagePath, opened) = try Self.image(options)
            lessonStore = nil
            lessonStart = nil
        case .lesson(let store, let restart):
            play = nil
            let progress: (progress: LessonProgress, notice: String?) = restart ? (.start, nil) : store.load()
            let step = Lesson.steps[min(progress.progress.step, Lesson.steps.count - 1)]
            imagePath = "lesson"
            opened = .made(step.image.render(), name: imagePath)
            lessonStore = store
            lessonStart = (progress.progress, progress.notice, step.image)
        }
        let picture = opened.image
        do { log = try options.eventsPath.map { try SessionLog(path: $0) } } catch let error as SessionLogError {
            throw fail(error.message, status: ExitStatus.badInput)
        }
        // The user's tags: loaded before anything can overwrite them. A lesson's are not kept.
        let (store, storeNotice, saved): (TagStore?, String?, TagStore.Saved) =
            try play == nil ? (nil, nil, TagStore.Saved()) : Self.savedTags(imagePath, opened)

        let stack = SoundStack(
            profile: settings, sampleRate: AudioFormat.sampleRate, speechSeconds: SessionOptions.speechSeconds)
        lateChanges = stack.controls.lateChanges
        // A lesson's spectrum mode plays the lesson's spectrum image.
        let spectrumCube = opened.entry.spectra ?? (play == nil ? LessonImage.spectra : nil)
        let spectrumVoice = spectrumCube.map { SpectrumVoice(cube: $0, profile: settings) }
        // The elements' lines, found before the sound starts: the window keys start from the strongest.
        let lines = spectrumVoice?.lineWindows()
        spectra = spectrumVoice.map { voice in
            LatestWork(label: "spectra") { request in
                // A spectrum that cannot be read is silence.
                (try? voice.levels(request)) ?? SpectrumLevels(request: request, amplitudes: [])
            }
        }
        let (windowProgress, frameProgress) = (windowWait.progress, frameWait.progress)
        windowMaps = spectrumCube.map { cube in
            LatestWork(label: "window maps") { window, preparation in
                windowProgress.restart()
                return WorkProgress.$current.withValue(windowProgress) {
                    (
                        window,
                        Result { () throws(ImageFileError) in Ready(try window.map(of: cube), preparation, own: true) }
                    )
                }
            }
        }
        // Frames played combined are one image: nothing to step through.
        frames = (play?.frames == nil ? opened.frames : nil).map { frames in
            LatestWork(label: "frames") { index, preparation in
                frameProgress.restart()
                return WorkProgress.$current.withValue(frameProgress) {
                    (index, Result { () throws(ImageFileError) in Ready(try frames.stack.frame(index), preparation) })
                }
            }
        }
        chosenWindow = try play.flatMap { try Self.chosenWindow($0, opened) }
        let sessionSound = stack.sound(playing: picture, spectra: spectrumVoice)
        let title = "SonicAtomic — \(opened.fileName)"
        do {
            frontend = try X11Frontend(
                title: title, image: picture,
                stretch: sessionSound.instrument.stretch, clock: monotonicSeconds)
        } catch { throw fail(error.description, status: ExitStatus.noDisplay) }
        screenReaderWindow = ScreenReaderWindow(application: "SonicAtomic", window: title)
        braille =
            options.braille == .off
            ? nil
            : BrailleOutput(windowID: frontend.windowID, settings: settings.braille, required: options.braille == .on)
        let voiceNotes: [String]
        (voice, voiceNotes) = SpeechChoice.start(settings.speech, sound: stack)
        log?.write(
            .start(
                StartRecord(
                    t: monotonicSeconds(),
                    image: play == nil ? imagePath : URL(fileURLWithPath: imagePath).standardizedFileURL.path,
                    imageNumber: opened.number,
                    width: picture.width, height: picture.height, bitDepth: picture.bitDepth,
                    sampleType: picture.sampleType.rawValue,
                    profile: settings.name, sampleRate: AudioFormat.sampleRate, frames: play?.frames,
                    voice: settings.speech.voice,
                    rate: settings.speech.rate)))

        // The column spacing is estimated at once (taps snap from the start); finding every column —
        // for the arrow keys and the unit cell's refinement — takes longer and runs beside the loop.
        // The user's word first (now, then saved with the tags), then the file's calibration.
        pixelSize =
            play?.pixelSize.size ?? saved.pixelSize ?? opened.calibration.pixelSize
            ?? settings.gestures.pixelSize
        reciprocalPerPixel = pixelSize == nil ? opened.calibration.reciprocalPerPixel : nil
        let finder = ColumnFinder(image: picture)
        let scale = pixelSize
        stackSentence = opened.frames.map { StackSentence($0.stack, pixelSize: scale) }
        columnSearch = ColumnSearch(
            finder, pixelSize: pixelSize, reciprocalPerPixel: reciprocalPerPixel, stack: stackSentence)
        snaps = SnapQueue(finder)
        // Taps still being snapped when the program last stopped are snapped and tagged now.
        var tags = saved.book
        let placedNow = tags.place(saved.unplaced, snapRadius: settings.gestures.snapRadius, by: finder)
        controller = SessionController(
            sound: sessionSound, opened: opened.openedImage, tags: tags, pixelSize: pixelSize,
            columnSpacing: finder.spacing,
            frames: opened.frames.map { SessionFrames(stack: $0.stack, axis: $0.axis, combination: play?.frames) })
        saver = TagSaver(store: store, csvPath: play?.exportTags)
        if play?.pixelSize.text != nil || play?.exportTags != nil || !placedNow.isEmpty,
            let failure = saver.save(controller.tagSnapshot)
        {
            warn(failure)
        }
        // The sound last: its buffer is a few milliseconds, so it starts once the heavy set-up is done.
        sound = try options.openAudio(renderer: stack.renderer, streamName: opened.fileName)
        notices =
            voiceNotes
            + [
                Phrases.nonFinitePixels(picture.nonFiniteCount), storeNotice, saved.notice,
                Phrases.placedNow(placedNow),
                chosenWindow.flatMap { chosen in lines.map { Self.said(chosen.window, of: opened, lines: $0) } },
                frontend.hasPenTablet ? nil : Phrases.noPenTablet
            ]
            .compactMap { $0 }
    }

    /// The event loop: until the user quits or a signal asks to.
    func run() {
        installQuitSignals()
        if let (window, map) = chosenWindow {
            let played = controller.instrument.preparation.prepare(map, ownStretch: true)
            perform(controller.windowMapMade(played, for: window, at: monotonicSeconds()))
        }
        if let (progress, notice, image) = lessonStart {
            perform(
                controller.startLesson(at: progress, showing: image, notices: [notice].compactMap { $0 } + notices))
        } else {
            perform(controller.start(notices: notices))
        }
        while !quitAsked && !quitSignalled.load(ordering: .relaxed) {
            // Wake for input, for a pending single click to declare itself, or (often) for a snap to finish.
            let busy =
                snaps.isBusy || spectra?.isBusy == true || windowMaps?.isBusy == true || frames?.isBusy == true
            let untilDeadline =
                busy ? 0.002 : controller.deadline.map { max(0, $0 - monotonicSeconds()) } ?? 0.1
            for event in frontend.nextEvents(timeout: Int32(min(0.1, untilDeadline) * 1000) + 1) {
                switch event {
                case .pen(let pen): perform(controller.handle(pen))
                case .placed(let window): perform(controller.place(window: window))
                case .key(let name):
                    braille?.userAsked(at: monotonicSeconds())
                    perform(controller.handle(key: name, at: monotonicSeconds()))
                case .closeRequested: perform(controller.handle(.windowClosed, at: monotonicSeconds()))
                case .penLost: perform(controller.penDevice(found: false))
                case .penFound: perform(controller.penDevice(found: true))
                case .focused(let active):
                    screenReaderWindow.windowActive(active)
                    braille?.windowFocused(active)
                }
            }
            perform(controller.poll(at: monotonicSeconds()))
            for snap in snaps.takeFinished() { perform(controller.snapped(snap.request, to: snap.column)) }
            if let levels = spectra?.takeFinished() {
                perform(controller.spectrumFetched(levels, at: monotonicSeconds()))
            }
            let waited = windowWait.underWay(busy: windowMaps?.isBusy == true, at: monotonicSeconds())
            controller.waitUnderWay = waited ?? frameWait.underWay(busy: frames?.isBusy == true, at: monotonicSeconds())
            if let (window, made) = windowMaps?.takeFinished() {
                let saidReady = windowWait.ended(at: monotonicSeconds())
                switch made {
                case .success(let map):
                    readyFinder = map.finder
                    perform(controller.windowMapMade(map.played, for: window, at: monotonicSeconds()))
                    if saidReady { perform([.speak(Phrases.windowMapReady)]) }
                case .failure(let error) where error.message == WorkProgress.stopped.message:
                    // Stopped for the window asked for since, whose map comes next.
                    break
                case .failure(let error):
                    warn("cannot map the window: \(error)")
                    perform(controller.windowMapFailed())
                }
            }
            if let (index, read) = frames?.takeFinished() {
                let saidReady = frameWait.ended(at: monotonicSeconds())
                switch read {
                case .success(let frame):
                    readyFinder = frame.finder
                    perform(controller.frameRead(frame.played, index: index, at: monotonicSeconds()))
                    if saidReady { perform([.speak(Phrases.frameReady(index + 1))]) }
                case .failure(let error): perform(controller.frameUnreadable(index: index, error))
                }
            }
            if controller.columns == nil { controller.workUnderWay = columnSearch.progress.now }
            if controller.columns == nil, let found = columnSearch.result {
                let points = found.lattice.analysis.columns.map { ImagePoint(x: $0.column.x, y: $0.column.y) }
                log?.write(.lattice(t: monotonicSeconds(), pixelSize: found.lattice.pixelSize))
                perform(controller.setColumns(points, lattice: found.lattice))
                perform(controller.setOverview(found.overview))
            }
            if controller.columns != nil, let overview = columnSearch.takeCompletedOverview() {
                perform(controller.setOverview(overview))
            }
            if let change = sound.poll(at: monotonicSeconds()) { soundChanged(change) }
            if let braille { perform(braille.update(controller: controller, log: log, at: monotonicSeconds())) }
            frontend.draw(controller.overlay)
            let dropouts = sound.dropoutCount
            if dropouts > dropoutsLogged {
                log?.write(.dropout(t: monotonicSeconds(), count: dropouts, at: sound.lastDropoutTime))
                dropoutsLogged = dropouts
            }
            let late = lateChanges.total
            if late > lateChangesLogged {
                log?.write(.late(t: monotonicSeconds(), count: late, by: lateChanges.lastSeconds))
                lateChangesLogged = late
            }
            let delay = sound.changeDelay
            if abs(delay - delayLogged) >= Self.loggedDelayStep {
                log?.write(.delay(t: monotonicSeconds(), seconds: delay))
                delayLogged = delay
            }
            log?.flush()
        }
    }

    /// A tap just before quitting is still tagged and saved (the goodbye has been said); the goodbye is
    /// heard (a signal skips it), and the tone fades rather than cuts off.
    func shutDown() {
        for snap in snaps.drain() {
            perform(
                controller.snapped(snap.request, to: snap.column).filter { if case .speak = $0 { false } else { true } }
            )
        }
        _ = braille?.update(controller: controller, log: log, at: monotonicSeconds())
        braille?.stop()
        sound.stop()
        controller.silence(at: monotonicSeconds())
        if sound.isPlaying && !quitSignalled.load(ordering: .relaxed) { voice?.waitUntilQuiet(timeout: 3) }
        usleep(UInt32(max(0.02, 2 * sound.grantedLatency) * 1_000_000))
        log?.flush()
        voice?.stop()
    }

    /// Carries out what the controller asks.
    private func perform(_ outputs: [ControllerOutput]) {
        for output in outputs {
            let now = monotonicSeconds()
            switch output {
            case .pen(let record): log?.write(.pen(record))
            case .mode(let mode): log?.write(.mode(t: now, mode))
            case .speak(let text):
                // While the sound server is away nothing is heard: the controller says it again later.
                if sound.isPlaying { voice?.say(text) }
                log?.write(.speech(t: now, text: text))
                braille?.announce(text, controller: controller, at: now)
            case .speakAfter(let text):
                if sound.isPlaying { voice?.sayAfter(text) }
                log?.write(.speech(t: now, text: text, after: true))
                braille?.announce(text, after: true, controller: controller, at: now)
            case .tagAdded(let tag): log?.write(.tag(t: now, tag))
            case .tagRemoved(let tag): log?.write(.untag(t: now, id: tag.id))
            case .save(let tags):
                guard let failure = saver.save(tags) else { break }
                warn(failure)
                perform(controller.saveFailed())
            case .snap(let request): snaps.submit(request)
            case .cursor(let point): log?.write(.cursor(t: now, point))
            case .cell(let cell, let ticks): log?.write(.cell(t: now, cell, ticks: ticks))
            case .sweep(let sweep): log?.write(.sweep(t: now, sweep))
            case .guidance(let guidance): log?.write(.guide(t: now, guidance))
            case .fetchSpectrum(let request): spectra?.submit(request)
            case .spectrum(let request, let time): log?.write(.spectrum(t: time, request))
            case .makeWindowMap(let window):
                // The map still being made is not waited for.
                if windowMaps?.isBusy == true { windowWait.progress.stop() }
                windowMaps?.submit((window, controller.instrument.preparation))
            case .readFrame(let index): frames?.submit((index, controller.instrument.preparation))
            case .window(let window, let time): log?.write(.window(t: time, window))
            case .windowMap(let map), .lessonImage(let map): playedImageChanged(map.image)
            case .lesson(let event):
                log?.write(.lesson(t: now, event))
                lessonStore?.save(event.progress)
            case .viewport(let viewport):
                log?.write(.viewport(t: now, viewport))
                frontend.show(viewport)
            case .frame(let index, let frame):
                log?.write(.frame(t: now, number: index + 1))
                playedImageChanged(frame.image)
            case .diffractogram(let shown):
                log?.write(.view(t: now, diffractogram: shown != nil))
                frontend.show(controller.instrument.image, stretch: controller.instrument.stretch)
            case .quit: quitAsked = true
            case .learn:
                lessonAsked = true
                quitAsked = true
            }
        }
    }

    /// The session plays another image (the sound has it already): it is shown, and its columns are found in the
    /// background, for the column modes, the arrow keys and taps to snap to. The overview follows from them.
    private func playedImageChanged(_ image: GrayImage) {
        frontend.show(image, stretch: controller.instrument.stretch)
        let finder = readyFinder ?? ColumnFinder(image: image)
        readyFinder = nil
        snaps.use(finder)
        columnSearch.abandon()
        columnSearch = ColumnSearch(
            finder, pixelSize: pixelSize, reciprocalPerPixel: reciprocalPerPixel, stack: stackSentence)
    }

    /// The sound server went away (said on stderr; the voice stops, as nothing can be heard), or
    /// plays again (said aloud).
    private func soundChanged(_ change: LiveSound.Change) {
        switch change {
        case .lost(let reason):
            warn("\(reason): nothing is heard until it is back")
            voice?.say("")
            log?.write(.sound(t: monotonicSeconds(), .lost(reason: reason)))
            perform(controller.soundLost())
        case .back(let server):
            warn("\(server.rawValue) plays again")
            log?.write(.sound(t: monotonicSeconds(), .back(server: server.rawValue)))
            perform(controller.soundBack())
        case .buffer(let seconds): log?.write(.buffer(t: monotonicSeconds(), seconds: seconds))
        }
    }

    /// The energy window `--window` or `--element` chose for a spectrum image, with `--background`, and its map: made
    /// before the sound starts.
    private static func chosenWindow(_ options: Play, _ opened: ImageFiles.Opened) throws
        -> (window: PlayedWindow, map: GrayImage)?
    {
        guard options.window != nil || options.element != nil else { return nil }
        do {
            guard let cube = opened.entry.spectra else {
                throw ImageFileError("--window and --element need a spectrum image; image \(opened.number) is not one")
            }
            let axis = cube.spectralAxis
            let chosen: EnergyWindow
            if let text = options.window {
                guard let parsed = try EnergyWindow(parsing: text, on: axis) else {
                    throw ImageFileError("--window takes A:B with an optional unit (450:470eV); not \(text)")
                }
                chosen = parsed
            } else {
                chosen = try EnergyWindow.element(
                    Element.named(options.element ?? "")!, on: axis, spectroscopy: cube.spectroscopy,
                    resolution: cube.resolution)
            }
            let window = PlayedWindow(chosen, background: options.background != nil)
            return (window, try window.map(of: cube))
        } catch {
            throw fail("cannot play \(opened.fileName): \(error)", status: ExitStatus.badInput)
        }
    }

    /// "Window 4.36 to 4.66 kilo electron volts, titanium K alpha.", for a spectrum image; and that it holds nothing
    /// where it holds no significant signal above the background.
    private static func said(_ window: PlayedWindow, of opened: ImageFiles.Opened, lines: LineWindows) -> String {
        let said = Phrases.window(
            window, units: opened.entry.spectra?.spectralAxis.units ?? "", feature: lines.feature(of: window))
        return lines.holdsSignal(window) ? said : said + " " + Phrases.windowHoldsNothing(element: nil)
    }

    /// The image file given, or the bundled lattice, opened at the image asked for.
    private static func image(_ options: Play) throws -> (path: String, opened: ImageFiles.Opened) {
        guard let path = options.image ?? Installation.defaultImage else {
            throw fail(
                "no image given and the bundled images are not installed (set SONIC_ATOMIC_DATA)",
                status: ExitStatus.badInput)
        }
        return (
            path, try openImage(path, number: options.imageChoice.number, frames: options.frames, summedSpectrum: true)
        )
    }

    /// The image's tags store, what to say about where it is, and the tags saved in it.
    private static func savedTags(_ imagePath: String, _ opened: ImageFiles.Opened) throws
        -> (store: TagStore, notice: String?, saved: TagStore.Saved)
    {
        let (store, notice) = TagStore.forImage(
            imagePath, number: opened.signalCount > 1 ? opened.number : nil,
            width: opened.image.width, height: opened.image.height)
        do { return (store, notice, try store.load()) } catch {
            throw fail(error.description, status: ExitStatus.badInput)
        }
    }
}

/// An image to play in the session's place, made ready away from the event loop: for the sound (its stretch and
/// sweep tables) and for finding its columns (the finder's estimates of spacing and noise).
private struct Ready: Sendable {
    let played: PlayedImage
    let finder: ColumnFinder

    init(_ image: GrayImage, _ preparation: ImagePreparation, own: Bool = false) {
        played = preparation.prepare(image, ownStretch: own)
        finder = ColumnFinder(image: image)
    }
}
