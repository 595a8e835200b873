/// A gain on both channels that glides per sample: the loudness the controller sets, and the duck under the voice.
public final class Fader: SoundUnit {
    /// From silence to full level.
    public static let gainDef = ParameterDef("gain", default: 1, range: 0...1)

    public var gain: LinearRamp

    public init(rampSamples: Int, gain: Double = Fader.gainDef.defaultValue) {
        self.gain = LinearRamp(value: gain, duration: rampSamples, range: Self.gainDef.range)
    }

    public func process(_ audio: StereoBuffer, frames: Int) {
        // At a steady 1 it changes nothing: the duck, most of the time.
        guard gain.isGliding || gain.value != 1 else { return }
        for i in 0..<frames {
            let g = Float(gain.next())
            audio.left[i] *= g
            audio.right[i] *= g
        }
    }
}
