/// Why a session log cannot be read or written: one line, naming the file and line where it can.
public struct SessionLogError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Turns the lines of a session log (JSON Lines, see docs) back into records, checking every field:
/// its type, and that numbers are finite and within what a session can hold, so no damaged or
/// hostile log reaches the sound engine. Record types it does not replay are skipped, so newer logs
/// still render; unknown fields are ignored.
public struct SessionLogDecoder {
    /// The log's name in messages ("session.jsonl").
    public let name: String
    private var object = FlatJSONObject()

    public init(name: String) { self.name = name }

    /// Limits no session reaches: screen and image coordinates, viewport scale, tag ids and counts.
    static let coordinateLimit = 1e7
    static let scaleLimit = 1e4
    static let countLimit = 1e9
    /// More frames than any stack holds.
    static let mostFrames = 1_000_000

    /// The record on line `number` (1-based), or nil for a blank line or a record type not replayed.
    public mutating func decode(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws(SessionLogError)
        -> SessionRecord?
    {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
        guard object.parse(line) else { throw SessionLogError(message: "\(name):\(number): not a JSON object") }
        let fields = Fields(object: object, place: "\(name):\(number)")
        let type = try fields.string("type")
        switch type {
        case "start":
            let bitDepth = try fields.integer("bitDepth", 1...64)
            var frames: FrameCombination?
            if fields.has("frames") {
                frames = FrameCombination(rawValue: try fields.string("frames"))
                guard frames != nil else { throw fields.error("\"frames\" must be \"sum\" or \"mean\"") }
            }
            return .start(
                StartRecord(
                    t: try fields.time(), image: try fields.string("image"),
                    imageNumber: try fields.optionalInteger("imageNumber", 1...1_000_000) ?? 1,
                    width: try fields.integer("width", 1...65536), height: try fields.integer("height", 1...65536),
                    bitDepth: bitDepth, sampleType: try fields.optionalString("sampleType") ?? "uint\(bitDepth)",
                    profile: try fields.string("profile"), sampleRate: try fields.integer("sampleRate", 8000...384_000),
                    frames: frames, voice: try fields.optionalString("voice"),
                    rate: try fields.optionalInteger("rate", Profile.SpeechSettings.rates)))
        case "viewport":
            let scale = try fields.number("scale")
            guard scale > 0 && scale <= Self.scaleLimit else {
                throw fields.error("\"scale\" must be positive and at most \(Int(Self.scaleLimit))")
            }
            return .viewport(
                t: try fields.time(),
                Viewport(
                    originX: try fields.coordinate("originX"),
                    originY: try fields.coordinate("originY"), scale: scale))
        case "pen":
            var buttons = PenButtons()
            for button in try fields.integers("buttons", 1...32) { buttons.insert(button) }
            return .pen(
                PenRecord(
                    t: try fields.time(), rootX: try fields.coordinate("x"), rootY: try fields.coordinate("y"),
                    imageX: try fields.coordinate("ix"), imageY: try fields.coordinate("iy"),
                    inImage: try fields.bool("inImage"),
                    sample: try fields.number("sample"), level: try fields.number("level", 0...1),
                    pressure: try fields.number("pressure", 0...1), tiltX: try fields.number("tiltX", -90...90),
                    tiltY: try fields.number("tiltY", -90...90), buttons: buttons, mode: try fields.mode().rawValue,
                    frequency: try fields.number("frequency", 0...100_000),
                    amplitude: try fields.number("amplitude", 0...1)))
        case "mode":
            return .mode(t: try fields.time(), try fields.mode())
        case "speech":
            return .speech(
                t: try fields.time(), text: try fields.string("text"), after: try fields.optionalBool("after") ?? false)
        case "tag":
            return .tag(
                t: try fields.time(),
                Tag(
                    id: try fields.integer("id", 0...Int(Self.countLimit)),
                    x: try fields.coordinate("ix"), y: try fields.coordinate("iy"),
                    snapped: try fields.optionalBool("snapped") ?? false))
        case "untag":
            return .untag(t: try fields.time(), id: try fields.integer("id", 0...Int(Self.countLimit)))
        case "cursor":
            guard fields.has("ix") else { return .cursor(t: try fields.time(), nil) }
            return .cursor(
                t: try fields.time(), ImagePoint(x: try fields.coordinate("ix"), y: try fields.coordinate("iy")))
        case "cell":
            var cell: UnitCell?
            if fields.has("ox") {
                cell = UnitCell(
                    origin: ImagePoint(x: try fields.coordinate("ox"), y: try fields.coordinate("oy")),
                    vectorA: ImagePoint(x: try fields.coordinate("ax"), y: try fields.coordinate("ay")),
                    vectorB: ImagePoint(x: try fields.coordinate("bx"), y: try fields.coordinate("by")))
                guard cell != nil else { throw fields.error("the cell's vectors do not span a cell") }
            }
            return .cell(t: try fields.time(), cell, ticks: try fields.bool("ticks"))
        case "dropout":
            return .dropout(
                t: try fields.time(), count: try fields.integer("count", 0...Int(Self.countLimit)),
                at: fields.has("at") ? try fields.number("at", 0...1e9) : nil)
        case "buffer":
            return .buffer(t: try fields.time(), seconds: try fields.number("seconds", 0...10))
        case "delay":
            return .delay(t: try fields.time(), seconds: try fields.number("seconds", 0...10))
        case "late":
            return .late(
                t: try fields.time(), count: try fields.integer("count", 0...Int(Self.countLimit)),
                by: try fields.number("by", 0...1e6))
        case "lattice":
            guard fields.has("pixelSize") else { return .lattice(t: try fields.time(), pixelSize: nil) }
            guard let size = PixelSize(picometres: try fields.number("pixelSize", 1e-6...1e9)) else {
                throw fields.error("pixelSize must be a positive size in picometres")
            }
            return .lattice(t: try fields.time(), pixelSize: size)
        case "sound":
            let t = try fields.time()
            guard try fields.bool("playing") else {
                return .sound(t: t, .lost(reason: try fields.optionalString("reason") ?? ""))
            }
            return .sound(t: t, .back(server: try fields.optionalString("server") ?? ""))
        case "sweep":
            guard fields.has("kind") else { return .sweep(t: try fields.time(), nil) }
            let kind = try fields.string("kind")
            let index = fields.has("index") ? try fields.integer("index", 0...65535) : nil
            guard let sweep = Sweep(kind: kind, index: index) else {
                throw fields.error("a sweep is \"image\", or a \"row\" or \"column\" with its \"index\"")
            }
            return .sweep(t: try fields.time(), sweep)
        case "guide":
            guard fields.has("ix") else { return .guide(t: try fields.time(), nil) }
            let target = ImagePoint(x: try fields.coordinate("ix"), y: try fields.coordinate("iy"))
            let radius = try fields.number("radius", 0...Self.coordinateLimit)
            guard radius > 0 else { throw fields.error("\"radius\" must be above 0") }
            return .guide(t: try fields.time(), Guidance(target: target, radius: radius))
        case "spectrum":
            return .spectrum(
                t: try fields.time(),
                SpectrumRequest(
                    x: try fields.integer("px", 0...65535), y: try fields.integer("py", 0...65535),
                    radius: try fields.integer("radius", 0...SpectrumTimbre.largestRadius)))
        case "window":
            let start = try fields.number("start", -1e9...1e9), end = try fields.number("end", -1e9...1e9)
            guard end > start else { throw fields.error("a window's \"end\" must be above its \"start\"") }
            return .window(
                t: try fields.time(),
                PlayedWindow(start: start, end: end, background: try fields.optionalBool("background") ?? false))
        case "frame":
            return .frame(t: try fields.time(), number: try fields.integer("number", 1...Self.mostFrames))
        case "view":
            let shows = try fields.string("shows")
            guard shows == "diffractogram" || shows == "image" else {
                throw fields.error("\"shows\" must be \"diffractogram\" or \"image\"")
            }
            return .view(t: try fields.time(), diffractogram: shows == "diffractogram")
        default:
            return nil
        }
    }
}

/// Typed access to one record's fields, failing with the place and the field's name.
private struct Fields {
    let object: FlatJSONObject
    let place: String

    func error(_ message: String) -> SessionLogError { SessionLogError(message: "\(place): \(message)") }

    func has(_ key: String) -> Bool { object[key].map { $0 != .null } ?? false }

    func string(_ key: String) throws(SessionLogError) -> String {
        guard case .string(let value) = object[key] else { throw error("\"\(key)\" must be text") }
        return value
    }

    func optionalString(_ key: String) throws(SessionLogError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(SessionLogError) -> Bool {
        guard case .bool(let value) = object[key] else { throw error("\"\(key)\" must be true or false") }
        return value
    }

    func optionalBool(_ key: String) throws(SessionLogError) -> Bool? {
        has(key) ? try bool(key) : nil
    }

    func number(_ key: String) throws(SessionLogError) -> Double {
        guard case .number(let value) = object[key] else { throw error("\"\(key)\" must be a number") }
        guard value.isFinite else { throw error("\"\(key)\" must be finite") }
        return value
    }

    func number(_ key: String, _ range: ClosedRange<Double>) throws(SessionLogError) -> Double {
        let value = try number(key)
        guard range.contains(value) else {
            throw error("\"\(key)\" must be between \(range.lowerBound.compact) and \(range.upperBound.compact)")
        }
        return value
    }

    /// Seconds of the monotonic clock: never negative, and far from where a Double loses the sample.
    func time() throws(SessionLogError) -> Double { try number("t", 0...1e9) }

    func coordinate(_ key: String) throws(SessionLogError) -> Double {
        try number(key, -SessionLogDecoder.coordinateLimit...SessionLogDecoder.coordinateLimit)
    }

    func integer(_ key: String, _ range: ClosedRange<Int>) throws(SessionLogError) -> Int {
        let value = try number(key, Double(range.lowerBound)...Double(range.upperBound))
        guard value == value.rounded() else { throw error("\"\(key)\" must be a whole number") }
        return Int(value)
    }

    func optionalInteger(_ key: String, _ range: ClosedRange<Int>) throws(SessionLogError) -> Int? {
        has(key) ? try integer(key, range) : nil
    }

    func integers(_ key: String, _ range: ClosedRange<Int>) throws(SessionLogError) -> [Int] {
        guard case .numbers(let values) = object[key] else { throw error("\"\(key)\" must be a list of numbers") }
        var integers: [Int] = []
        for value in values {
            guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                throw error("\"\(key)\" must list whole numbers from \(range.lowerBound) to \(range.upperBound)")
            }
            integers.append(Int(value))
        }
        return integers
    }

    func mode() throws(SessionLogError) -> Mode {
        guard let mode = Mode(rawValue: try string("mode")) else { throw error("unknown mode") }
        return mode
    }
}

/// What a whole log must be before it is replayed: a start record first, then times that neither go
/// back nor leap forward beyond what a session does. Fed each record in order.
public struct SessionLogCheck: Sendable {
    /// A log's times may go back a little (records are stamped on different paths), never this far.
    public static let mostBackwards = 1.0
    /// The longest stretch without a record a session holds: longer gaps are damage, not pauses.
    public static let longestGap = 3600.0

    public private(set) var start: StartRecord?
    /// The latest time any record carries.
    public private(set) var lastTime = 0.0
    /// Whether the log has announcements to speak.
    public private(set) var speaks = false
    /// Whether the log plays spectra or energy windows' maps: `render` then needs the spectrum image's.
    public private(set) var playsSpectra = false
    /// The highest frame number a `frame` record plays (0: none): the stack must have as many.
    public private(set) var highestFrame = 0

    public init() {}

    public mutating func admit(_ record: SessionRecord, place: String) throws(SessionLogError) {
        guard start != nil else {
            guard case .start(let first) = record else {
                throw SessionLogError(message: "\(place): no start record before this line")
            }
            start = first
            lastTime = first.t
            return
        }
        guard let time = record.time else { throw SessionLogError(message: "\(place): a second start record") }
        if time < lastTime - Self.mostBackwards {
            throw SessionLogError(message: "\(place): the time goes back \(Self.seconds(lastTime - time))")
        }
        if time > lastTime + Self.longestGap {
            throw SessionLogError(
                message: "\(place): \(Self.seconds(time - lastTime)) pass without a record "
                    + "(a session has no gap longer than an hour)")
        }
        lastTime = max(lastTime, time)
        if case .speech = record { speaks = true }
        if case .spectrum(_, let request) = record, let start {
            guard request.x < start.width, request.y < start.height else {
                throw SessionLogError(message: "\(place): the spectrum's pixel is outside the image")
            }
            playsSpectra = true
        }
        if case .window = record { playsSpectra = true }
        if case .frame(_, let number) = record {
            guard start?.frames == nil else {
                throw SessionLogError(message: "\(place): a frame played, but the frames were played combined")
            }
            highestFrame = max(highestFrame, number)
        }
        if case .sweep(_, let sweep?) = record, let start, !Self.fits(sweep, start) {
            throw SessionLogError(message: "\(place): the \(sweep.kind) to sweep is outside the image")
        }
    }

    /// Whether a line to sweep is one of the image's rows or columns.
    private static func fits(_ sweep: Sweep, _ start: StartRecord) -> Bool {
        switch sweep {
        case .image: true
        case .row(let r): r < start.height
        case .column(let c): c < start.width
        }
    }

    private static func seconds(_ value: Double) -> String {
        value < 120 ? "\((value * 10).rounded() / 10) s" : "\((value / 360).rounded() / 10) hours"
    }
}
