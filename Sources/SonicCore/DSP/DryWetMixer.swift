/// Crossfades between an unprocessed (dry) and a processed (wet) stereo signal:
/// `dry·(1 − balance) + wet·balance`, into the wet buffers.
public struct DryWetMixer: Sendable {
    public var balance: LinearRamp

    public init(rampSamples: Int, balance: Double = 0.5) {
        self.balance = LinearRamp(value: balance, duration: rampSamples, range: 0...1)
    }

    public mutating func process(dry: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>),
                                 wet: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>),
                                 frames: Int) {
        for i in 0..<frames {
            let b = Float(balance.next())
            wet.left[i] = dry.left[i] * (1 - b) + wet.left[i] * b
            wet.right[i] = dry.right[i] * (1 - b) + wet.right[i] * b
        }
    }
}
