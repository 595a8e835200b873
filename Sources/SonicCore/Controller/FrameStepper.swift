/// All the frames of a stack made into one image to play: added pixel by pixel, or averaged.
public enum FrameCombination: String, Sendable, CaseIterable {
    case sum, mean
}

/// The frames a session plays: a stack's, stepped through one by one, or all of them combined into one image.
public struct SessionFrames: Sendable {
    public let stack: FrameStack
    /// The axis the frames lie along (time, focus, tilt), with its calibration.
    public let axis: SignalAxis?
    /// Set when the frames play combined, as one image: then there is nothing to step through.
    public let combination: FrameCombination?

    public init(stack: FrameStack, axis: SignalAxis?, combination: FrameCombination? = nil) {
        self.stack = stack
        self.axis = axis
        self.combination = combination
    }
}

/// Steps through a stack's frames: each frame stepped to is said with its place along the frames' axis, and asked
/// to be read (away from the event loop: a large frame, or one read through a helper process, takes a while).
struct FrameStepper {
    let frames: SessionFrames?

    /// The frame `command` goes to from `current` (from 0), said and asked for; or why it goes nowhere.
    func step(_ command: Command, from current: Int) -> [ControllerOutput] {
        guard let frames else { return [.speak(Phrases.noFrames)] }
        let stack = frames.stack
        if let combination = frames.combination {
            return [.speak(Phrases.combinedFrames(combination, count: stack.count))]
        }
        let target: Int
        switch command {
        case .nextFrame:
            guard current + 1 < stack.count else { return [.speak(Phrases.lastFrame)] }
            target = current + 1
        case .previousFrame:
            guard current > 0 else { return [.speak(Phrases.firstFrame)] }
            target = current - 1
        case .firstFrame: target = 0
        case .lastFrame: target = stack.count - 1
        default: return []
        }
        let said = Phrases.frame(
            target + 1, of: stack.count, at: frames.axis.flatMap { Phrases.position(target, on: $0) })
        guard target != current else { return [.speak(said)] }
        return [.speak(said), .readFrame(index: target)]
    }
}
