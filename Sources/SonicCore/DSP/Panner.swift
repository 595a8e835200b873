/// Places a mono signal in the stereo field with equal power: at pan p (−1 left … +1 right) the
/// gains are cos θ and sin θ with θ = (p + 1)·π/4, so L² + R² stays 1 and the centre is −3 dB.
/// The mono signal is the left channel; the right is overwritten.
public final class Panner: SoundUnit {
    public static let panDef = ParameterDef("pan", default: 0, range: -1...1)

    public var pan: LinearRamp

    public init(rampSamples: Int, pan: Double = Panner.panDef.defaultValue) {
        self.pan = LinearRamp(value: pan, duration: rampSamples, range: Self.panDef.range)
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        for i in 0..<frames {
            let cycles = (pan.next() + 1) / 8 // θ/2π
            let mono = audio.left[i]
            audio.left[i] = mono * FastMath.sine(cycles: cycles + 0.25) // cos θ
            audio.right[i] = mono * FastMath.sine(cycles: cycles) // sin θ
        }
    }
}
