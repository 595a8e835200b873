/// One row of the image played from left to right, or one column from top to bottom, over the sweep's length, as
/// the pen would sound it there: the engine plays each step's pitch through the profile's own sound, as it would a
/// pen event's, so an interface or a wall along the line is heard as a change. It plays a `Table` built once, before
/// the audio thread runs, and is started by one timed change, not by a change queued for every step.
public final class LineSweep {
    /// The pitch at a fixed number of steps along every row and every column.
    public final class Table: @unchecked Sendable {
        /// Steps along a line at most: finer than a note the ear tells apart at the shortest sweep.
        public static let mostSteps = 256

        public let width: Int
        public let height: Int
        public let rowSteps: Int
        public let columnSteps: Int
        /// The tone's loudness, as the pen sounds it in the modes without pressure.
        public let amplitude: Double
        /// Row-major: row r's steps at `r * rowSteps`; column c's at `c * columnSteps`. Written only in `init`.
        private let rows: UnsafeMutablePointer<Float>
        private let columns: UnsafeMutablePointer<Float>

        /// `rows` holds `height` rows of `rowSteps` pitches (Hz), `columns` `width` columns of `columnSteps`.
        public init(
            width: Int, height: Int, rowSteps: Int, columnSteps: Int, amplitude: Double, rows: [Float],
            columns: [Float]
        ) {
            precondition(rows.count == height * rowSteps && columns.count == width * columnSteps)
            self.width = width; self.height = height; self.rowSteps = rowSteps; self.columnSteps = columnSteps
            self.amplitude = amplitude
            self.rows = .allocate(capacity: rows.count)
            self.rows.initialize(from: rows, count: rows.count)
            self.columns = .allocate(capacity: columns.count)
            self.columns.initialize(from: columns, count: columns.count)
        }

        deinit {
            rows.deallocate()
            columns.deallocate()
        }

        /// How many steps `line` has: none for one outside the image.
        public func steps(_ line: Sweep) -> Int {
            switch line {
            case .row(let r) where (0..<height).contains(r): rowSteps
            case .column(let c) where (0..<width).contains(c): columnSteps
            default: 0
            }
        }

        /// The pitch at step `step` of `line`.
        public func frequency(_ line: Sweep, step: Int) -> Float {
            switch line {
            case .row(let r): rows[r * rowSteps + step]
            case .column(let c): columns[c * columnSteps + step]
            case .image: 0
            }
        }

        /// Where step `step` of `line` lies across the image, from −1 (the left edge) to 1 (the right).
        public func pan(_ line: Sweep, step: Int) -> Double {
            switch line {
            case .row: 2 * (Double(step) + 0.5) / Double(rowSteps) - 1
            case .column(let c): 2 * (Double(c) + 0.5) / Double(width) - 1
            case .image: 0
            }
        }
    }

    /// What the engine is to play at a step's start.
    enum Event {
        case step(SynthTargets)
        /// The line is played: the pen has the sound back.
        case ended
    }

    /// The sweep's length, in frames.
    private let totalFrames: Double
    private var table: Table?
    private var line: Sweep?
    private var steps = 0
    private var step = 0
    /// Frames since the start, and the frame the next step (or the end) starts at.
    private var elapsed = 0
    private var nextStart = 0
    /// Notes of their own, below the instrument's (which count up from 0): a new one where the pitch changes.
    private var note = -1
    private var lastFrequency: Float = 0

    init(sampleRate: Double, length: Double) {
        totalFrames = (ImageSweep.lengthDef.clamped(length) * sampleRate).rounded()
    }

    /// The image to play; set before the audio thread runs, and after by the engine on it (another image's table,
    /// which the session keeps alive).
    func load(_ table: Table) { self.table = table }

    /// Plays `line` from its start; a line outside the image, or the whole image, plays nothing.
    func start(_ line: Sweep) {
        guard let table, table.steps(line) > 0 else { return }
        self.line = line
        steps = table.steps(line)
        step = 0
        elapsed = 0
        nextStart = 0
    }

    /// Stops; whether a line was playing.
    func stop() -> Bool {
        defer { line = nil }
        return line != nil
    }

    var isPlaying: Bool { line != nil }

    /// Frames until the next event, while a line plays.
    var framesToNextEvent: Int? { line == nil ? nil : max(1, nextStart - elapsed) }

    /// The step starting now, or the end; nil between them.
    func event() -> Event? {
        guard let line, let table, elapsed >= nextStart else { return nil }
        guard step < steps else {
            self.line = nil
            return .ended
        }
        let frequency = table.frequency(line, step: step)
        if frequency != lastFrequency || step == 0 {
            note -= 1
            lastFrequency = frequency
        }
        let targets = SynthTargets(
            frequency: Double(frequency), amplitude: table.amplitude, pan: table.pan(line, step: step), note: note)
        step += 1
        nextStart = Int((Double(step) * totalFrames / Double(steps)).rounded())
        return .step(targets)
    }

    func advance(_ frames: Int) {
        if line != nil { elapsed += frames }
    }
}
