import RealModule

/// The whole image in one sound, played left to right as The vOICe plays a picture: an additive bank of `bands`
/// sines, exponentially spaced from `highest` (the top of the image) down to `lowest` (its bottom), each as loud as
/// its band of the image is bright at the moment's column, panned from the left to the right as the sweep goes. It
/// plays a `Table` built once, before the audio thread runs; every level glides from one step's to the next, and a
/// sweep starts and stops through a short fade, so nothing clicks.
public final class ImageSweep: SoundUnit {
    /// How long a sweep of the whole image takes.
    public static let lengthDef = ParameterDef("length", default: 3, range: 0.5...30, unit: .seconds)
    /// Rows of the image the ear tells apart, each a sine; the top one highest.
    public static let bands = 48
    public static let lowest = 150.0
    public static let highest = 5000.0
    /// Columns a second: as fast as the ear follows a change of loudness (The vOICe plays 64).
    public static let stepsPerSecond = 64.0
    /// How long a sweep takes to come in, and to go when stopped.
    static let fadeTime = 0.01

    /// The image boxed into `steps` columns of `bands` rows, as the amplitude each band's sine plays.
    public final class Table: @unchecked Sendable {
        public let steps: Int
        /// Step-major: step s's bands, top first, at `s * bands`. Written only in `init`.
        let amplitudes: UnsafeMutablePointer<Float>

        /// From `levels` (0...1, step-major, top band first): a white image sounds as loud as the pen's tone at
        /// `toneAmplitude` (its power spread over the bands), and no step's amplitudes add up to more than `peak`,
        /// so the bank's sum stays within it whatever the sines' phases.
        public init(levels: [Float], steps: Int, toneAmplitude: Double, peak: Double) {
            precondition(steps > 0 && levels.count == steps * ImageSweep.bands, "a table is steps × bands levels")
            self.steps = steps
            amplitudes = .allocate(capacity: levels.count)
            let bandAmplitude = toneAmplitude / Double(ImageSweep.bands).squareRoot()
            for s in 0..<steps {
                let column = levels[(s * ImageSweep.bands)..<((s + 1) * ImageSweep.bands)]
                let total = column.reduce(0.0) { $0 + Double(min(max($1, 0), 1)) } * bandAmplitude
                let gain = total > peak ? bandAmplitude * peak / total : bandAmplitude
                for (b, level) in column.enumerated() {
                    amplitudes[s * ImageSweep.bands + b] = Float(Double(min(max(level, 0), 1)) * gain)
                }
            }
        }

        deinit { amplitudes.deallocate() }

        /// Band `band` at step `step`.
        public func amplitude(step: Int, band: Int) -> Float { amplitudes[step * ImageSweep.bands + band] }
    }

    public let sampleRate: Double
    /// The sweep's length, in frames.
    private let totalFrames: Double
    private var table: Table?
    /// Per band: the phase in cycles, its step per frame, the amplitude now and its change per frame.
    private let phases: UnsafeMutablePointer<Double>
    private let increments: UnsafeMutablePointer<Double>
    private let levels: UnsafeMutablePointer<Double>
    private let slopes: UnsafeMutablePointer<Double>
    /// The bands sounding in the segment being played, so a dark image costs little.
    private let sounding: UnsafeMutablePointer<Int>
    private var soundingCount = 0
    /// Frames since the sweep started, and the segment (between two knots of the levels) being played: the knots
    /// are the start, each step's middle and the end.
    private var position = 0
    private var segment = 0
    private var segmentEnd = 0
    private var running = false
    /// The whole sweep's gain: in at a start, out at a stop.
    private var fade: LinearRamp

    public init(sampleRate: Double, length: Double = ImageSweep.lengthDef.defaultValue) {
        self.sampleRate = sampleRate
        totalFrames = (Self.lengthDef.clamped(length) * sampleRate).rounded()
        fade = LinearRamp(value: 0, duration: max(1, Int(Self.fadeTime * sampleRate)), range: 0...1)
        let bands = Self.bands
        phases = .allocate(capacity: bands)
        increments = .allocate(capacity: bands)
        levels = .allocate(capacity: bands)
        slopes = .allocate(capacity: bands)
        sounding = .allocate(capacity: bands)
        for b in 0..<bands {
            increments[b] = Self.frequency(band: b) / sampleRate
            levels[b] = 0
            slopes[b] = 0
        }
        resetPhases()
    }

    deinit {
        phases.deallocate(); increments.deallocate(); levels.deallocate(); slopes.deallocate()
        sounding.deallocate()
    }

    /// Band `band`'s pitch: `highest` for the top band (0), `lowest` for the bottom one, evenly in octaves between.
    public static func frequency(band: Int) -> Double {
        highest * Double.pow(lowest / highest, Double(band) / Double(bands - 1))
    }

    /// The image to play; set before the audio thread runs, and after by the engine on it (another image's tables,
    /// which the session keeps alive).
    public func load(_ table: Table) { self.table = table }

    /// Plays the image from its left edge, from whatever sounds now.
    public func start() {
        guard table != nil else { return }
        if fade.value == 0 { resetPhases() }
        running = true
        position = 0
        segment = 0
        beginSegment()
        fade.glide(to: 1)
    }

    /// Fades out where it is.
    public func stop() { fade.glide(to: 0) }

    public func process(_ audio: StereoBuffer, frames: Int) {
        guard running else { return }
        var i = 0
        while i < frames {
            if position >= segmentEnd {
                segment += 1
                beginSegment()
                guard running else { return }
            }
            let n = min(frames - i, segmentEnd - position)
            for j in i..<(i + n) {
                var sum = 0.0
                for k in 0..<soundingCount {
                    let b = sounding[k]
                    sum += levels[b] * Double(FastMath.sine(cycles: phases[b]))
                    levels[b] += slopes[b]
                    phases[b] += increments[b]
                    if phases[b] >= 1 { phases[b] -= 1 }
                }
                let gain = sum * fade.next()
                // Equal power, from the left at the start to the right at the end: θ/2π = (pan + 1) / 8.
                let cycles = Double(position + j - i) / totalFrames / 4
                audio.left[j] += Float(gain) * FastMath.sine(cycles: cycles + 0.25)
                audio.right[j] += Float(gain) * FastMath.sine(cycles: cycles)
            }
            position += n
            i += n
            if fade.value == 0 && !fade.isGliding { running = false }
        }
    }

    /// Starts `segment`: each band glides in a straight line from where it is to the next knot — the next step's
    /// middle, or silence at the end. A band's phase moves only while it sounds, so what is heard depends on the
    /// frames since the start alone, however the audio is cut into blocks. Past the last segment the sweep is over.
    private func beginSegment() {
        guard let table, segment <= table.steps else {
            for b in 0..<Self.bands { levels[b] = 0 }
            running = false
            fade.jump(to: 0)
            return
        }
        let stepFrames = totalFrames / Double(table.steps)
        let end = segment == table.steps ? totalFrames : (Double(segment) + 0.5) * stepFrames
        segmentEnd = max(position + 1, Int(end.rounded()))
        let frames = Double(segmentEnd - position)
        soundingCount = 0
        for b in 0..<Self.bands {
            // Each segment after the first starts on its knot exactly, whatever the sums of the slopes came to.
            if segment > 0 { levels[b] = Double(table.amplitude(step: segment - 1, band: b)) }
            let target = segment == table.steps ? 0 : Double(table.amplitude(step: segment, band: b))
            slopes[b] = (target - levels[b]) / frames
            if target != 0 || levels[b] != 0 {
                sounding[soundingCount] = b
                soundingCount += 1
            }
        }
    }

    /// Phases spread by the golden ratio, so the bands seldom peak together; the same at every start from silence,
    /// so a sweep sounds the same live and rendered.
    private func resetPhases() {
        for b in 0..<Self.bands {
            let spread = Double(b) * 0.618_033_988_749_895
            phases[b] = spread - spread.rounded(.down)
        }
    }
}
