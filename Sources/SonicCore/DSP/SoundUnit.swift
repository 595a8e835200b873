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
