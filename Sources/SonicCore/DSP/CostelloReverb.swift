import RealModule

/// Sean Costello's reverb (Csound's reverbsc): eight delay lines joined by a lossless scattering
/// junction, each line read with a slowly, randomly wandering delay (cubic interpolation) and
/// damped by a one-pole low-pass in its feedback. Stereo in, stereo out (wet only).
public final class CostelloReverb: SoundUnit {
    /// Per line: base delay (s), random delay variation (s), variation rate (Hz), random seed.
    private static let lineParameters: [(delay: Double, drift: Double, rate: Double, seed: Int)] = [
        (2473 / 44100, 0.0010, 3.100, 1966), (2767 / 44100, 0.0011, 3.500, 29491),
        (3217 / 44100, 0.0017, 1.110, 22937), (3557 / 44100, 0.0006, 3.973, 9830),
        (3907 / 44100, 0.0010, 2.341, 20643), (4127 / 44100, 0.0011, 1.897, 22937),
        (2143 / 44100, 0.0017, 0.891, 29491), (1933 / 44100, 0.0006, 3.221, 14417)
    ]
    private static let outputGain: Float = 0.35
    /// 2/N for N = 8 lines: the junction's scattering makes the feedback matrix orthogonal.
    private static let junctionScale: Float = 0.25
    /// Read positions are fixed point: 28 fractional bits.
    private static let fractionBits = 28
    private static let fractionScale = 1 << 28

    /// How much each pass around a line keeps: the decay time.
    public static let feedbackDef = ParameterDef("feedback", default: 0.6, range: 0...0.999)
    /// The low-pass cutoff inside the loop: lower is darker. At most 0.45 of the sample rate: a one-pole cannot put
    /// its −3 dB point beyond the Nyquist frequency.
    public static let cutoffDef = ParameterDef(
        "cutoff", default: 4000, range: 20...20_000, unit: .hertz, sampleRateShare: 0.45)

    public let sampleRate: Double
    public var feedback: LinearRamp
    /// Glides in octaves.
    public var cutoff: ExponentialRamp

    private struct Line {
        var buffer: UnsafeMutablePointer<Float>
        var size: Int
        var writeIndex = 0
        var readIndex = 0
        var readFraction = 0
        var readIncrement = 0
        var seed: Int
        var segmentRemaining = 0
        var filterState: Float = 0
    }

    private var lines: [Line]
    private var damping: Float = 0
    /// The cutoff `damping` was computed for.
    private var dampingCutoff = 0.0

    public init(
        sampleRate: Double, rampSamples: Int, feedback: Double = CostelloReverb.feedbackDef.defaultValue,
        cutoff: Double = CostelloReverb.cutoffDef.defaultValue
    ) {
        self.sampleRate = sampleRate
        self.feedback = LinearRamp(value: feedback, duration: rampSamples, range: Self.feedbackDef.range)
        self.cutoff = ExponentialRamp(
            value: cutoff, duration: rampSamples, range: Self.cutoffDef.range(sampleRate: sampleRate))
        lines = Self.lineParameters.map { p in
            let size = Int((p.delay + p.drift * 1.125) * sampleRate + 16.5)
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: size)
            buffer.initialize(repeating: 0, count: size)
            return Line(buffer: buffer, size: size, seed: p.seed)
        }
        for n in lines.indices {
            // Start each read position at the line's first random delay behind the write position.
            let p = Self.lineParameters[n]
            let start = Double(lines[n].size) - (p.delay + Double(lines[n].seed) * p.drift / 32768) * sampleRate
            lines[n].readIndex = Int(start)
            lines[n].readFraction = Int((start - Double(Int(start))) * Double(Self.fractionScale) + 0.5)
            Self.startNextSegment(&lines[n], p, sampleRate: sampleRate)
        }
        dampingCutoff = self.cutoff.value
        damping = Self.damping(cutoff: dampingCutoff, sampleRate: sampleRate)
    }

    deinit { for line in lines { line.buffer.deallocate() } }

    /// One-pole coefficient for a cutoff: the b of y = x + b·(y − x) with −3 dB at `cutoff`.
    private static func damping(cutoff: Double, sampleRate: Double) -> Float {
        let c = 2 - Double.cos(2 * Double.pi * cutoff / sampleRate)
        return Float(c - (c * c - 1).squareRoot())
    }

    /// Picks the line's next random delay and the read speed that glides there over one segment.
    private static func startNextSegment(
        _ line: inout Line, _ p: (delay: Double, drift: Double, rate: Double, seed: Int),
        sampleRate: Double
    ) {
        var seed = line.seed
        if seed < 0 { seed += 0x10000 }
        seed = (seed * 15625 + 1) & 0xFFFF
        if seed >= 0x8000 { seed -= 0x10000 }
        line.seed = seed
        let segment = Int(sampleRate / p.rate + 0.5)
        line.segmentRemaining = segment
        var current =
            Double(line.writeIndex) - (Double(line.readIndex) + Double(line.readFraction) / Double(fractionScale))
        while current < 0 { current += Double(line.size) }
        let next = (p.delay + Double(seed) * p.drift / 32768) * sampleRate
        let speed = (current - next) / Double(segment) + 1
        line.readIncrement = Int(speed * Double(fractionScale) + 0.5)
    }

    /// Processes a stereo pair in place; the output is the reverberation only.
    public func process(_ audio: StereoBuffer, frames: Int) {
        let left = audio.left, right = audio.right
        lines.withUnsafeMutableBufferPointer { lines in
            for i in 0..<frames {
                let gain = Float(feedback.next())
                let cutoffNow = cutoff.next()
                if cutoffNow != dampingCutoff {
                    dampingCutoff = cutoffNow
                    damping = Self.damping(cutoff: cutoffNow, sampleRate: sampleRate)
                }
                var junction: Float = 0
                for n in 0..<8 { junction += lines[n].filterState }
                junction *= Self.junctionScale
                let inLeft = junction + left[i], inRight = junction + right[i]
                var outLeft: Float = 0, outRight: Float = 0
                for n in 0..<8 {
                    let size = lines[n].size
                    let buffer = lines[n].buffer
                    buffer[lines[n].writeIndex] = FastMath.flushed(
                        (n & 1 == 1 ? inRight : inLeft) - lines[n].filterState)
                    lines[n].writeIndex += 1
                    if lines[n].writeIndex >= size { lines[n].writeIndex -= size }
                    if lines[n].readFraction >= Self.fractionScale {
                        lines[n].readIndex += lines[n].readFraction >> Self.fractionBits
                        lines[n].readFraction &= Self.fractionScale - 1
                    }
                    if lines[n].readIndex >= size { lines[n].readIndex -= size }
                    let r = lines[n].readIndex
                    let frac = Float(lines[n].readFraction) * (1 / Float(Self.fractionScale))
                    // Cubic (Lagrange) interpolation between v0 and v1 from four neighbours.
                    let vm1 = buffer[r == 0 ? size - 1 : r - 1]
                    let v0 = buffer[r]
                    let v1 = buffer[r + 1 >= size ? r + 1 - size : r + 1]
                    let v2 = buffer[r + 2 >= size ? r + 2 - size : r + 2]
                    let a2 = (frac * frac - 1) * (1.0 / 6.0)
                    let half = (frac + 1) * 0.5
                    let a0 = 3 * a2 - frac
                    let a1 = half - 3 * a2
                    let am1 = half - 1 - a2
                    var v = (am1 * vm1 + a0 * v0 + a1 * v1 + a2 * v2) * frac + v0
                    lines[n].readFraction += lines[n].readIncrement
                    v *= gain
                    v = (lines[n].filterState - v) * damping + v
                    lines[n].filterState = FastMath.flushed(v)
                    if n & 1 == 1 { outRight += v } else { outLeft += v }
                    lines[n].segmentRemaining -= 1
                    if lines[n].segmentRemaining <= 0 {
                        Self.startNextSegment(&lines[n], Self.lineParameters[n], sampleRate: sampleRate)
                    }
                }
                left[i] = outLeft * Self.outputGain
                right[i] = outRight * Self.outputGain
            }
        }
    }
}
