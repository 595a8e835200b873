/// A block of stereo audio: two channels, each a buffer holding at least the frames a unit is asked for.
public struct StereoBuffer {
    public let left: UnsafeMutablePointer<Float>
    public let right: UnsafeMutablePointer<Float>

    public init(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        self.left = left; self.right = right
    }

    /// The same channels from frame `offset` on.
    public func advanced(by offset: Int) -> StereoBuffer { StereoBuffer(left: left + offset, right: right + offset) }
}

/// A unit of the sound engine, in the style of AudioKit's nodes: each works on a stereo block in place, so the engine
/// is an array of units called in order. A source adds its signal to what is there (sources mix by following one
/// another); every other unit replaces the signal with what it makes of it.
///
/// Units run on the audio thread: `process` allocates nothing, takes no locks and makes no system calls. Every
/// parameter is a ramp that glides per sample, so nothing a unit is told clicks.
public protocol SoundUnit: AnyObject {
    func process(_ audio: StereoBuffer, frames: Int)
}

/// A source at the controller's pitch.
public protocol Oscillator: SoundUnit {
    /// Glides to a new frequency in Hz, or goes there at once (where a note starts: no glide from the last one).
    func setFrequency(_ frequency: Double, glide: Bool)
}

/// The parameters every oscillator has.
public enum OscillatorParameters {
    /// Up to the Nyquist frequency: above it, a tone would fold back down as another.
    public static let frequencyDef = ParameterDef(
        "frequency", default: 440, range: 1...Double.infinity, unit: .hertz, sampleRateShare: 0.5)
    /// Its level in the mix.
    public static let levelDef = ParameterDef("level", default: 1, range: 0...1)
}
