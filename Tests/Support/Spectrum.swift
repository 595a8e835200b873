import Foundation

/// Frequency-domain measurements on rendered audio.
public enum Spectrum {
    /// Amplitude of the component at `frequency` (a sine of amplitude A reads A), by Goertzel's
    /// algorithm over a Hann window. Use a stretch of many periods.
    public static func amplitude(_ x: ArraySlice<Float>, at frequency: Double, sampleRate: Double) -> Double {
        let n = x.count
        let w = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0, windowSum = 0.0
        for (k, value) in x.enumerated() {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n - 1))
            windowSum += window
            let s0 = Double(value) * window + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let real = s1 - s2 * cos(w), imaginary = s2 * sin(w)
        return 2 * (real * real + imaginary * imaginary).squareRoot() / windowSum
    }

    /// The amplitude at `frequency` read only where the sound ran on: `x` is cut at every gap a pause
    /// of the machine leaves (a run of silence, the tone then going on with its phase jumped), each
    /// stretch between gaps is measured in `block`-sample pieces, and the median piece is the reading.
    /// Nil when no stretch holds a whole piece.
    public static func steadyAmplitude(
        _ x: ArraySlice<Float>, at frequency: Double, sampleRate: Double, block: Int
    ) -> Double? {
        var amplitudes: [Double] = []
        for stretch in soundingStretches(x) {
            var start = stretch.lowerBound
            while start + block <= stretch.upperBound {
                amplitudes.append(amplitude(x[start..<start + block], at: frequency, sampleRate: sampleRate))
                start += block
            }
        }
        return amplitudes.isEmpty ? nil : amplitudes.sorted()[amplitudes.count / 2]
    }

    /// The stretches of `x` between gaps (`minimumGap` or more samples within `floor` of zero, which
    /// no tone in the tests holds for so long), each trimmed by `margin` samples at either end.
    static func soundingStretches(
        _ x: ArraySlice<Float>, floor: Float = 1e-3, minimumGap: Int = 12, margin: Int = 48
    ) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var soundStart = x.startIndex
        var quietStart: Int? = nil
        func close(at end: Int) {
            let trimmed = (soundStart + margin)..<max(soundStart + margin, end - margin)
            if !trimmed.isEmpty { stretches.append(trimmed) }
        }
        for i in x.indices {
            if abs(x[i]) <= floor {
                if quietStart == nil { quietStart = i }
            } else if let quiet = quietStart {
                if i - quiet >= minimumGap {
                    close(at: quiet)
                    soundStart = i
                }
                quietStart = nil
            }
        }
        if let quiet = quietStart, x.endIndex - quiet >= minimumGap {
            close(at: quiet)
        } else {
            close(at: x.endIndex)
        }
        return stretches
    }

    /// Where short bursts at `frequency` start: the amplitude there, measured over `window`-sample
    /// stretches every half window, rising above `threshold` after at least `minimumGap` samples below it.
    public static func burstOnsets(
        _ x: [Float], at frequency: Double, sampleRate: Double, threshold: Double,
        window: Int = 192, minimumGap: Int = 960
    ) -> [Int] {
        var onsets: [Int] = []
        var lastLoud = -minimumGap - 1
        var start = 0
        while start + window <= x.count {
            if amplitude(x[start..<start + window], at: frequency, sampleRate: sampleRate) > threshold {
                if start - lastLoud > minimumGap { onsets.append(start) }
                lastLoud = start
            }
            start += window / 2
        }
        return onsets
    }

    /// Magnitude spectrum of a Hann-windowed frame (power-of-two length), bins 0...n/2.
    public static func magnitudes(_ frame: ArraySlice<Float>) -> [Double] {
        let n = frame.count
        precondition(n > 1 && n & (n - 1) == 0, "FFT length must be a power of two")
        var re = frame.enumerated().map { k, v in
            Double(v) * (0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n - 1)))
        }
        var im = [Double](repeating: 0, count: n)
        // Iterative radix-2 Cooley–Tukey.
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<length / 2 {
                    let c = cos(angle * Double(k)), s = sin(angle * Double(k))
                    let a = start + k, b = a + length / 2
                    let tr = re[b] * c - im[b] * s, ti = re[b] * s + im[b] * c
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length <<= 1
        }
        return (0...n / 2).map { (re[$0] * re[$0] + im[$0] * im[$0]).squareRoot() }
    }

    /// Power-weighted mean frequency over consecutive frames: where the sound's energy sits.
    public static func centroid(_ x: ArraySlice<Float>, sampleRate: Double, frame: Int = 4096) -> Double {
        var weighted = 0.0, total = 0.0
        var start = x.startIndex
        while start + frame <= x.endIndex {
            let m = magnitudes(x[start..<start + frame])
            for (bin, magnitude) in m.enumerated() {
                let power = magnitude * magnitude
                weighted += power * Double(bin) * sampleRate / Double(frame)
                total += power
            }
            start += frame
        }
        return total > 0 ? weighted / total : 0
    }
}
