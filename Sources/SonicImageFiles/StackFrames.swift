import SonicCore

extension ImageFiles.Opened {
    /// The stack's frames as a session plays them, with the axis they lie along; nil when the signal is not a stack.
    public var frames: SessionFrames? {
        guard case .stack(let stack) = entry.content else { return nil }
        return SessionFrames(stack: stack, axis: entry.axes.first(where: \.navigation))
    }

    /// The stack's frame `number` (from 1) opened in place of its first.
    public func frame(_ number: Int) throws(ImageFileError) -> Self {
        guard let frames else { throw ImageFileError("image \(self.number) is not a stack: it has no frames") }
        let stack = frames.stack
        return with(try stack.frame(number - 1), shown: "stack, frame \(number) of \(stack.count)")
    }

    /// The stack's frames added or averaged, pixel by pixel, in place of its first frame.
    public func combined(_ combination: FrameCombination) throws(ImageFileError) -> Self {
        guard let frames else {
            throw ImageFileError("image \(self.number) is not a stack: it has no frames to combine")
        }
        let stack = frames.stack
        return with(
            try stack.sum(mean: combination == .mean), shown: "stack, \(combination.rawValue) of \(stack.count) frames")
    }

    private func with(_ image: GrayImage, shown: String) -> Self {
        Self(
            path: path, contents: contents, number: number, entry: entry, image: image, shown: shown,
            calibration: calibration)
    }
}
