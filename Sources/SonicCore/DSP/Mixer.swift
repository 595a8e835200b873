/// Sums several mono inputs, each at its own level, then applies an output gain. Levels glide per sample.
public struct Mixer: Sendable {
    public var levels: [LinearRamp]
    public var gain: LinearRamp

    public init(inputs: Int, rampSamples: Int, levels: [Double]? = nil, gain: Double = 1) {
        self.levels = (0..<inputs).map { LinearRamp(value: levels?[$0] ?? 1, duration: rampSamples, range: 0...4) }
        self.gain = LinearRamp(value: gain, duration: rampSamples, range: 0...4)
    }

    /// `inputs[k]` holds input k; the sum goes to `out` (which may be one of the inputs).
    public mutating func process(_ inputs: UnsafePointer<UnsafeMutablePointer<Float>>, into out: UnsafeMutablePointer<Float>,
                                 frames: Int) {
        let count = levels.count
        levels.withUnsafeMutableBufferPointer { levels in
            for i in 0..<frames {
                var sum: Float = 0
                for k in 0..<count { sum += inputs[k][i] * Float(levels[k].next()) }
                out[i] = sum * Float(gain.next())
            }
        }
    }
}
