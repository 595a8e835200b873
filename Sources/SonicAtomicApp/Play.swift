import ArgumentParser
import Foundation
import Glibc
import SonicAudio
import SonicCore
import SonicImageFiles
import SonicSpeech
import SonicX11

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image full-screen and play it: the pen's nib sounds the intensity under it.",
        discussion: """
            Pen: double-click the lower barrel button for the next mode, click it for where am I; the upper \
            button removes the last tag (tagging mode) or repeats the last announcement. Keys: Tab / Shift+Tab \
            next / previous mode, 1-4 choose a mode, Space where am I, BackSpace remove the last tag, R repeat, \
            T cell boundary ticks off / on, F1 key help, Escape or q quit.
            """)

    static let sampleRate = 48_000
    /// Room for the longest announcement (the key help) at 48 kHz.
    static let speechSeconds = 60.0

    @Argument(help: "An image file: PNG, DigitalMicrograph DM3/DM4, TIFF or EMD (known by its content, not its name). Default: the bundled atomic lattice.")
    var image: String?

    @Option(name: .customLong("image"), help: "Which image of a file holding several (1, 2, ...; `inspect` lists them). Default: the largest.")
    var imageNumber: Int?

    @Option(help: "A profile name (from your profiles, then the shipped ones) or a path to a profile file.")
    var profile = "default"

    @Option(name: .customLong("events"), help: "Write the session log (JSON Lines) to this file.")
    var eventsPath: String?

    @Option(help: "Audio buffer in milliseconds: lower is more immediate, higher survives a busy machine.")
    var latency = 10.0

    @Option(help: "The sound server: pipewire (native), pulse (PulseAudio, or PipeWire's PulseAudio service), or auto: PipeWire when it runs, else PulseAudio.")
    var audio = AudioChoice.auto

    @Option(help: "The eSpeak-NG voice (e.g. en, en-us, de); overrides the profile's.")
    var voice: String?

    @Option(help: "Speech rate in words per minute (80-450); overrides the profile's.")
    var rate: Int?

    @Option(name: .customLong("pixel-size"), help: "The size of a pixel (e.g. 9.33pm, 0.933nm): lattice parameters are then spoken in picometres. Saved with the tags.")
    var pixelSize: String?

    @Option(name: .customLong("export-tags"), help: "Also keep the tags in this CSV file (id, x, y, snapped), rewritten after every change.")
    var exportTags: String?

    func validate() throws {
        if let imageNumber, imageNumber < 1 { throw ValidationError("--image counts from 1") }
        guard latency >= 1 && latency <= 200 else { throw ValidationError("--latency must be 1 to 200 ms") }
        if let rate, !(80...450).contains(rate) { throw ValidationError("--rate must be 80 to 450 words per minute") }
        if let pixelSize, PixelSize(pixelSize) == nil {
            throw ValidationError("--pixel-size must be a size like 9.33pm, 0.933nm or 9.33Å")
        }
    }

    func run() throws {
        var settings: Profile
        do { settings = try Installation.loadProfile(profile) } catch let error as ProfileError {
            throw fail(error.description, status: ExitStatus.badInput)
        }
        if let voice { settings.speech.voice = voice }
        if let rate { settings.speech.rate = rate }
        guard let imagePath = image ?? Installation.defaultImage else {
            throw fail("no image given and the bundled images are not installed (set SONIC_ATOMIC_DATA)",
                       status: ExitStatus.badInput)
        }
        let opened: ImageFiles.Opened
        do { opened = try ImageFiles.open(imagePath, number: imageNumber) } catch {
            throw fail("cannot read image \(imagePath): \(error)", status: ExitStatus.badInput)
        }
        let picture = opened.image
        let log: SessionLog?
        do { log = try eventsPath.map { try SessionLog(path: $0) } } catch let error as SessionLogError {
            throw fail(error.message, status: ExitStatus.badInput)
        }
        // The user's tags: loaded before anything can overwrite them.
        let (store, storeNotice) = TagStore.forImage(imagePath, number: opened.imageCount > 1 ? opened.number : nil,
                                                     width: picture.width, height: picture.height)
        let saved: TagStore.Saved
        do { saved = try store.load() } catch { throw fail(error.description, status: ExitStatus.badInput) }

        let controls = SynthControls()
        let instrument = Instrument(image: picture, profile: settings, statistics: SampleStatistics(picture),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 1), controls: controls)
        let imageName = opened.fileName
        let frontend: X11Frontend
        do {
            frontend = try X11Frontend(title: "SonicAtomic — \(imageName)", image: picture,
                                       stretch: instrument.stretch, clock: monotonicSeconds)
        } catch {
            throw fail(error.description, status: ExitStatus.noDisplay)
        }
        let speechBuffer = SpeechBuffer(capacity: Int(Self.speechSeconds * Double(Self.sampleRate)))
        let renderer = VoicedRenderer(
            engine: SynthEngine(chain: settings.chain, sampleRate: Double(Self.sampleRate), controls: controls),
            speech: speechBuffer, duckDecibels: settings.speech.duckDecibels, volume: settings.speech.volume)
        let output = try openAudio(renderer: renderer, streamName: imageName)
        let voice = startVoice(settings.speech, buffer: speechBuffer)
        defer { voice?.stop() }

        log?.write(.start(StartRecord(
            t: monotonicSeconds(), image: URL(fileURLWithPath: imagePath).standardizedFileURL.path,
            imageNumber: opened.number, width: picture.width, height: picture.height, bitDepth: picture.bitDepth,
            sampleType: picture.sampleType.rawValue, profile: settings.name,
            sampleRate: Self.sampleRate, voice: settings.speech.voice, rate: settings.speech.rate)))
        // The column spacing is estimated at once (taps snap from the start); finding every column —
        // for the arrow keys and the unit cell's refinement — takes longer and runs beside the loop.
        let finder = ColumnFinder(image: picture)
        let columnSearch = ColumnSearch(finder)
        let snaps = SnapQueue(finder)
        // Taps still being snapped when the program last stopped are snapped and tagged now.
        var tags = saved.book
        let placedNow = tags.place(saved.unplaced, snapRadius: settings.gestures.snapRadius, by: finder)
        let controller = SessionController(
            instrument: instrument, opened: opened.description, tags: tags,
            // The user's word first (now, then saved with the tags), then the file's calibration.
            pixelSize: pixelSize.flatMap(PixelSize.init) ?? saved.pixelSize ?? opened.entry.calibration.pixelSize
                ?? settings.gestures.pixelSize,
            columnSpacing: finder.spacing)
        var saveFailed = false
        /// Saves the tags (and the CSV copy); says so once if it cannot.
        func saveTags() -> [ControllerOutput] {
            do {
                try store.save(controller.book, unplaced: controller.unplacedTags, pixelSize: controller.pixelSize)
                if let exportTags { try TagStore.writeAtomically(Data(TagStore.csv(controller.book).utf8), to: exportTags) }
                saveFailed = false
                return []
            } catch {
                guard !saveFailed else { return [] }
                saveFailed = true
                warn(error.description)
                return [.speak("Warning: the tags could not be saved.")]
            }
        }
        if pixelSize != nil || exportTags != nil || !placedNow.isEmpty { _ = saveTags() }

        /// Carries out what the controller asks; false when it asks to quit.
        func perform(_ outputs: [ControllerOutput]) -> Bool {
            var keepGoing = true
            for output in outputs {
                let now = monotonicSeconds()
                switch output {
                case .pen(let record): log?.write(.pen(record))
                case .mode(let mode): log?.write(.mode(t: now, mode))
                case .speak(let text):
                    voice?.say(text)
                    log?.write(.speech(t: now, text: text))
                case .tagAdded(let tag): log?.write(.tag(t: now, tag))
                case .tagRemoved(let tag): log?.write(.untag(t: now, id: tag.id))
                case .tagsChanged:
                    for warning in saveTags() {
                        if case .speak(let text) = warning { voice?.say(text); log?.write(.speech(t: now, text: text)) }
                    }
                case .snap(let request): snaps.submit(request)
                case .cursor(let point): log?.write(.cursor(t: now, point))
                case .cell(let cell, let ticks): log?.write(.cell(t: now, cell, ticks: ticks))
                case .viewport(let viewport):
                    log?.write(.viewport(t: now, viewport))
                    frontend.show(viewport)
                case .quit: keepGoing = false
                }
            }
            return keepGoing
        }

        installQuitSignals()
        let noTablet = frontend.hasPenTablet ? nil : "No pen tablet found: the mouse plays, as a pen pressed fully."
        let notices = [voice?.warning.map { "Note: \($0)." }, Self.nonFiniteNotice(picture), storeNotice, saved.notice,
                       Self.placedNotice(placedNow), noTablet].compactMap { $0 }
        var running = perform(controller.start(notices: notices))
        var dropoutsLogged = 0
        while running && !quitSignalled.load(ordering: .relaxed) {
            // Wake for input, for a pending single click to declare itself, or (often) for a snap to finish.
            let untilDeadline = snaps.isBusy ? 0.002 : controller.deadline.map { max(0, $0 - monotonicSeconds()) } ?? 0.1
            for event in frontend.nextEvents(timeout: Int32(min(0.1, untilDeadline) * 1000) + 1) {
                switch event {
                case .pen(let pen):
                    running = perform(controller.handle(pen)) && running
                case .placed(let window):
                    running = perform(controller.place(window: window)) && running
                case .key(let name):
                    running = perform(controller.handle(key: name, at: monotonicSeconds())) && running
                case .closeRequested:
                    running = perform(controller.handle(key: "Escape", at: monotonicSeconds())) && running
                }
            }
            running = perform(controller.poll(at: monotonicSeconds())) && running
            for snap in snaps.takeFinished() {
                running = perform(controller.snapped(snap.request, to: snap.column)) && running
            }
            if controller.columns == nil, let found = columnSearch.result {
                running = perform(controller.setColumns(found)) && running
            }
            frontend.draw(controller.overlay)
            let dropouts = output.dropoutCount
            if dropouts > dropoutsLogged {
                log?.write(.dropout(t: monotonicSeconds(), count: dropouts))
                dropoutsLogged = dropouts
            }
            log?.flush()
        }

        // A tap just before quitting is still tagged and saved (the goodbye has been said).
        for snap in snaps.drain() {
            _ = perform(controller.snapped(snap.request, to: snap.column).filter { if case .speak = $0 { false } else { true } })
        }
        // Let the goodbye be heard (a signal skips it), and the tone fade rather than cut off.
        instrument.silence()
        if !quitSignalled.load(ordering: .relaxed) { voice?.waitUntilQuiet(timeout: 3) }
        usleep(UInt32(max(0.02, 2 * output.grantedLatency) * 1_000_000))
        log?.flush()
    }

    /// Says how many pixels hold no number (NaN or infinity in a float file), and how they sound.
    static func nonFiniteNotice(_ image: GrayImage) -> String? {
        guard image.nonFiniteCount > 0 else { return nil }
        let which = image.nonFiniteCount == 1 ? "1 pixel holds" : "\(image.nonFiniteCount) pixels hold"
        return "\(which) no number, and \(image.nonFiniteCount == 1 ? "plays" : "play") as the lowest value."
    }

    /// Says which saved tags were placed only now, their taps having been snapped when the program stopped.
    static func placedNotice(_ placed: [Tag]) -> String? {
        guard let first = placed.first, let last = placed.last else { return nil }
        let which = placed.count == 1 ? "Tag \(first.id) was" : "Tags \(first.id) to \(last.id) were"
        return "\(which) still being placed when the program stopped, and \(placed.count == 1 ? "is" : "are") placed now."
    }

    /// The voice, or nil with one line on stderr if there is none: the instrument works without it.
    private func startVoice(_ settings: Profile.SpeechSettings, buffer: SpeechBuffer) -> LiveVoice? {
        do {
            let voice = try LiveVoice(settings: settings, buffer: buffer, outputRate: Double(Self.sampleRate))
            if let warning = voice.warning { warn(warning) }
            return voice
        } catch {
            warn("\(error); continuing without a voice")
            return nil
        }
    }
}
