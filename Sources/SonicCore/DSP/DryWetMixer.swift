/// Runs a unit on a copy of its input and crossfades: `dry·(1 − balance) + wet·balance`, where dry is the input and
/// wet what the unit made of it. Holds its own copy of the input for blocks of up to `capacity` frames, and works
/// through longer ones in pieces.
public final class DryWetMixer: SoundUnit {
    public static let balanceDef = ParameterDef("balance", default: 0.5, range: 0...1)

    public let wet: any SoundUnit
    public var balance: LinearRamp
    private let capacity: Int
    /// The dry left channel, then the right.
    private let dry: UnsafeMutablePointer<Float>

    public init(
        _ wet: any SoundUnit, rampSamples: Int, balance: Double = DryWetMixer.balanceDef.defaultValue, capacity: Int
    ) {
        self.wet = wet
        self.balance = LinearRamp(value: balance, duration: rampSamples, range: Self.balanceDef.range)
        self.capacity = capacity
        dry = .allocate(capacity: 2 * capacity)
        dry.initialize(repeating: 0, count: 2 * capacity)
    }

    deinit { dry.deallocate() }

    public func process(_ audio: StereoBuffer, frames: Int) {
        var done = 0
        while done < frames {
            let n = min(capacity, frames - done)
            let piece = audio.advanced(by: done)
            let dryLeft = dry, dryRight = dry + capacity
            dryLeft.update(from: piece.left, count: n)
            dryRight.update(from: piece.right, count: n)
            wet.process(piece, frames: n)
            for i in 0..<n {
                let b = Float(balance.next())
                piece.left[i] = dryLeft[i] * (1 - b) + piece.left[i] * b
                piece.right[i] = dryRight[i] * (1 - b) + piece.right[i] * b
            }
            done += n
        }
    }
}
