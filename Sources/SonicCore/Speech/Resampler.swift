/// Streaming sample-rate conversion by 4-point cubic (Catmull-Rom) interpolation: speech arrives at
/// 22 050 Hz and plays at 48 000 Hz. Feed it chunks; it keeps what it needs between them.
public struct Resampler: Sendable {
    /// Input samples per output sample.
    public let step: Double
    /// Position of the next output sample, in input samples from the start of `history`.
    private var position = 1.0
    /// The input not yet passed by: the previous samples the interpolation still needs, then new ones.
    private var history: [Float] = [0]

    public init(from inputRate: Double, to outputRate: Double) {
        step = inputRate / outputRate
    }

    /// Converts the next chunk of input; output for the last few input samples waits for more
    /// input or for `finish`.
    public mutating func process(_ input: UnsafeBufferPointer<Float>) -> [Float] {
        history += input
        var output: [Float] = []
        output.reserveCapacity(Int(Double(input.count) / step) + 2)
        // Each output needs samples at floor(position) − 1 … floor(position) + 2.
        while Int(position) + 2 < history.count {
            let i = Int(position)
            let t = Float(position - Double(i))
            let y0 = history[i - 1], y1 = history[i], y2 = history[i + 1], y3 = history[i + 2]
            let a = -0.5 * y0 + 1.5 * y1 - 1.5 * y2 + 0.5 * y3
            let b = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3
            let c = -0.5 * y0 + 0.5 * y2
            output.append(((a * t + b) * t + c) * t + y1)
            position += step
        }
        // Drop what no later output can reach.
        let keep = max(0, Int(position) - 1)
        history.removeFirst(keep)
        position -= Double(keep)
        return output
    }

    /// The remaining output, as if the input went on in silence.
    public mutating func finish() -> [Float] {
        let silence = [Float](repeating: 0, count: 3)
        return silence.withUnsafeBufferPointer { process($0) }
    }
}
