import Foundation

/// Measurements on recorded or rendered audio (mono float samples).
public enum SignalAnalysis {
    public static func rms(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    public static func dBFS(_ x: ArraySlice<Float>) -> Double { 20 * log10(max(rms(x), 1e-12)) }

    public static func peak(_ x: ArraySlice<Float>) -> Double { Double(x.map { abs($0) }.max() ?? 0) }

    /// Frequency from the rising zero crossings (interpolated to a fraction of a sample) between the
    /// first and the last crossing: very precise for a steady tone, nil with fewer than three cycles.
    public static func zeroCrossingFrequency(_ x: ArraySlice<Float>, sampleRate: Double) -> Double? {
        let crossings = risingZeroCrossings(x)
        guard crossings.count >= 3 else { return nil }
        return Double(crossings.count - 1) * sampleRate / (crossings.last! - crossings.first!)
    }

    /// The frequency of a steady tone heard through a sound server: the mean of the cycles within 3 % of
    /// the median cycle, so one dropout (a gap the server fills with silence) cannot bend it. nil with
    /// fewer than three such cycles.
    public static func steadyFrequency(_ x: ArraySlice<Float>, sampleRate: Double) -> Double? {
        let crossings = risingZeroCrossings(x)
        let cycles = zip(crossings.dropFirst(), crossings).map { $0 - $1 }
        guard !cycles.isEmpty else { return nil }
        let median = cycles.sorted()[cycles.count / 2]
        let steady = cycles.filter { abs($0 / median - 1) < 0.03 }
        guard steady.count >= 3 else { return nil }
        return Double(steady.count) * sampleRate / steady.reduce(0, +)
    }

    /// Where the signal rises through zero, interpolated to a fraction of a sample.
    private static func risingZeroCrossings(_ x: ArraySlice<Float>) -> [Double] {
        var crossings: [Double] = []
        var previous = x.startIndex
        for i in x.indices.dropFirst() {
            if x[previous] < 0 && x[i] >= 0 {
                let fraction = Double(-x[previous]) / Double(x[i] - x[previous])
                crossings.append(Double(previous) + fraction)
            }
            previous = i
        }
        return crossings
    }

    /// The fundamental of a periodic but rich sound (harmonics, FM, reverberation): the lowest
    /// frequency within `range` (Hz) at which a component sounds, of those the autocorrelation finds.
    /// nil when nothing correlates.
    public static func fundamental(_ x: ArraySlice<Float>, sampleRate: Double, range: ClosedRange<Double>) -> Double? {
        guard var frequency = correlationPeriodFrequency(x, sampleRate: sampleRate, range: range) else { return nil }
        // A strong second harmonic correlates at half the period nearly as well as the whole period
        // does: then the component at half the frequency is there too, if weaker (a fifth of the
        // second harmonic, measured on the classic profile's tone). A subharmonic never is.
        while frequency / 2 >= range.lowerBound,
            Spectrum.amplitude(x, at: frequency / 2, sampleRate: sampleRate)
                >= 0.05 * Spectrum.amplitude(x, at: frequency, sampleRate: sampleRate)
        {
            frequency /= 2
        }
        return frequency
    }

    /// The frequency of the shortest lag within `range` (Hz) whose normalized autocorrelation is within
    /// 10 % of the best, refined between samples by a parabola.
    private static func correlationPeriodFrequency(
        _ x: ArraySlice<Float>, sampleRate: Double, range: ClosedRange<Double>
    ) -> Double? {
        let samples = x.map(Double.init)
        let shortest = Int(sampleRate / range.upperBound), longest = Int(sampleRate / range.lowerBound)
        guard samples.count > 2 * longest + 2 else { return nil }
        let n = samples.count - longest - 1
        let energy = samples[0..<n].reduce(0) { $0 + $1 * $1 }
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0, shifted = 0.0
            for i in 0..<n {
                sum += samples[i] * samples[i + lag]
                shifted += samples[i + lag] * samples[i + lag]
            }
            return sum / max((energy * shifted).squareRoot(), 1e-30)
        }
        let r = (shortest - 1...longest + 1).map(correlation)
        let best = r.max() ?? 0
        guard best > 0.5 else { return nil }
        for i in 1..<r.count - 1 where r[i] >= 0.9 * best && r[i] >= r[i - 1] && r[i] >= r[i + 1] {
            let offset = 0.5 * (r[i - 1] - r[i + 1]) / (r[i - 1] - 2 * r[i] + r[i + 1])
            return sampleRate / (Double(shortest - 1 + i) + (offset.isFinite ? offset : 0))
        }
        return nil
    }

    /// Stretches where the level stays above `threshold` (linear RMS over `window` samples),
    /// merging gaps shorter than `minimumGap` samples.
    public static func bursts(_ x: [Float], threshold: Double, window: Int, minimumGap: Int) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start: Int?
        var i = 0
        func add(_ burst: Range<Int>) {
            if let last = found.last, burst.lowerBound - last.upperBound < minimumGap {
                found[found.count - 1] = last.lowerBound..<burst.upperBound
            } else {
                found.append(burst)
            }
        }
        while i + window <= x.count {
            let loud = rms(x[i..<i + window]) > threshold
            if loud && start == nil { start = i }
            if !loud, let s = start {
                add(s..<i)
                start = nil
            }
            i += window
        }
        if let s = start { add(s..<x.count) }
        return found
    }

    /// Steady pitches in a stretch of tone: frequencies measured in consecutive windows, grouped
    /// while they agree within `tolerance` (relative); groups shorter than `minimumLength` samples dropped.
    /// `machinePauses`: how often the machine itself paused while the stretch played. Each pause leaves
    /// a few milliseconds of silence in a recording, which breaks the cycle it falls in: where the
    /// machine paused, pitches are those of the steady cycles (`steadyFrequency`) rather than of all of
    /// them, and up to that many times a break of at most two windows between two groups of the same
    /// pitch joins them.
    public static func pitchPlateaus(
        _ x: ArraySlice<Float>, sampleRate: Double, window: Int,
        tolerance: Double, minimumLength: Int, machinePauses: Int = 0
    ) -> [(frequency: Double, range: Range<Int>)] {
        func pitch(_ x: ArraySlice<Float>) -> Double? {
            machinePauses > 0
                ? steadyFrequency(x, sampleRate: sampleRate) : zeroCrossingFrequency(x, sampleRate: sampleRate)
        }
        var groups: [(frequency: Double, range: Range<Int>)] = []
        var group: [(Double, Range<Int>)] = []
        func close() {
            guard let first = group.first, let last = group.last else { return }
            let range = first.1.lowerBound..<last.1.upperBound
            if let f = pitch(x[range]) { groups.append((f, range)) }
            group = []
        }
        var i = x.startIndex
        while i + window <= x.endIndex {
            let range = i..<i + window
            if let f = pitch(x[range]), rms(x[range]) > 0.01 {
                if let reference = group.first?.0, abs(f / reference - 1) > tolerance { close() }
                group.append((f, range))
            } else {
                close()
            }
            i += window
        }
        close()
        var joined: [(frequency: Double, range: Range<Int>)] = []
        var bridges = machinePauses
        for next in groups {
            // The group of the same pitch before the break, if the break is short; what lies in it goes.
            if bridges > 0,
                let k = joined.indices.last(where: {
                    next.range.lowerBound - joined[$0].range.upperBound <= 2 * window
                        && abs(next.frequency / joined[$0].frequency - 1) <= tolerance
                })
            {
                joined.removeSubrange((k + 1)...)
                joined[k].range = joined[k].range.lowerBound..<next.range.upperBound
                bridges -= 1
            } else {
                joined.append(next)
            }
        }
        return joined.filter { $0.range.count >= minimumLength }.map { (pitch(x[$0.range]) ?? $0.frequency, $0.range) }
    }

    /// Whether a stretch sounds like speech rather than a tone or silence: loud enough for a good part
    /// of the time, with the level rising and falling syllable by syllable (a steady tone holds its
    /// level), and with a pitch that does not hold still.
    public static func looksLikeSpeech(_ x: ArraySlice<Float>, sampleRate: Double) -> Bool {
        let window = Int(sampleRate / 100)
        var levels: [Double] = []
        var start = x.startIndex
        while start + window <= x.endIndex {
            levels.append(dBFS(x[start..<start + window]))
            start += window
        }
        let voiced = levels.filter { $0 > -45 }
        guard levels.count >= 20, Double(voiced.count) >= 0.3 * Double(levels.count) else { return false }
        let mean = voiced.reduce(0, +) / Double(voiced.count)
        let spread = (voiced.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(voiced.count)).squareRoot()
        return spread > 3
    }

    /// Where a voice starts over a steady tone at `tone` Hz (after `start`): the first 10 ms in which
    /// the sound below a third of the tone's frequency (where a voice's fundamental and first formant
    /// sit, and the tone, through a 24 dB/octave low-pass, is 37 dB down) passes −34 dBFS.
    public static func speechOnset(_ x: [Float], after start: Int, tone: Double, sampleRate: Double) -> Int? {
        // Two RBJ biquad low-passes (Butterworth Q) in series.
        let w = 2 * Double.pi * tone / 3 / sampleRate, alpha = sin(w) / (2 * 0.7071)
        let b0 = (1 - cos(w)) / 2, b1 = 1 - cos(w), a0 = 1 + alpha, a1 = -2 * cos(w), a2 = 1 - alpha
        var stages: [(x1: Double, x2: Double, y1: Double, y2: Double)] = [(0, 0, 0, 0), (0, 0, 0, 0)]
        var low: [Float] = []
        for v in x[start...] {
            var input = Double(v)
            for k in 0..<2 {
                let s = stages[k]
                let y = (b0 * input + b1 * s.x1 + b0 * s.x2 - a1 * s.y1 - a2 * s.y2) / a0
                stages[k] = (input, s.x1, y, s.y1)
                input = y
            }
            low.append(Float(input))
        }
        let window = Int(sampleRate / 100)
        // Skip the filter's own start-up.
        var i = window * 5
        while i + window <= low.count {
            if dBFS(low[i..<i + window]) > -34 { return start + i }
            i += window
        }
        return nil
    }

    /// Reads raw little-endian float32 mono samples (as parec --format=float32le --channels=1 writes).
    public static func readFloat32(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
    }
}
