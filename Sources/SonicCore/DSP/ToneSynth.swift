/// The instrument's voice: one sine whose frequency and amplitude follow the controls,
/// ramped per sample. Rendering allocates nothing and takes no locks: it is safe on the audio thread.
public final class ToneSynth {
    public let sampleRate: Double
    private let controls: SynthControls
    private var oscillator: SineOscillator
    private var frequency: LinearRamp
    private var amplitude: LinearRamp

    /// - Parameter rampTime: seconds each change glides for; a fade to silence takes this long.
    public init(sampleRate: Double, controls: SynthControls, rampTime: Double = 0.005) {
        self.sampleRate = sampleRate
        self.controls = controls
        let rampSamples = max(1, Int((rampTime * sampleRate).rounded()))
        oscillator = SineOscillator(sampleRate: sampleRate)
        frequency = LinearRamp(value: 0, duration: rampSamples)
        amplitude = LinearRamp(value: 0, duration: rampSamples)
    }

    /// Fills `frames` interleaved frames of `channels` samples each.
    public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        let targetFrequency = controls.frequency
        let targetAmplitude = controls.amplitude
        // A note that starts from silence starts at its own pitch, not with a glide from the last one.
        if amplitude.value == 0 && !amplitude.isGliding && targetFrequency > 0 {
            frequency.jump(to: targetFrequency)
        } else if targetFrequency > 0 {
            frequency.glide(to: targetFrequency)
        }
        amplitude.glide(to: targetAmplitude)

        var out = buffer
        for _ in 0..<frames {
            let sample = Float(oscillator.next(frequency: frequency.next()) * amplitude.next())
            for _ in 0..<channels {
                out.pointee = sample
                out += 1
            }
        }
    }
}
