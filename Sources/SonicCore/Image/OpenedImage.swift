import RealModule

/// What is open: the file, which of its images, and its calibration — as the greeting says it.
public struct OpenedImage: Sendable, Equatable {
    public var fileName: String
    /// The image's name in the file ("HAADF"), and what of a signal plays ("EELS, spectrum image,
    /// total counts"); may be empty.
    public var title: String
    /// 1-based among the file's signals (images, stacks, spectrum images, line scans, spectra).
    public var number: Int
    /// How many signals the file holds.
    public var imageCount: Int
    public var calibration: Calibration

    public init(
        fileName: String, title: String = "", number: Int = 1, imageCount: Int = 1,
        calibration: Calibration = .none
    ) {
        self.fileName = fileName
        self.title = title
        self.number = number
        self.imageCount = imageCount
        self.calibration = calibration
    }

    /// "atomic-lattice.png", or "sample.dm4, HAADF, image 1 of 2".
    public var spokenName: String {
        var parts = [fileName]
        if !title.isEmpty && title != fileName { parts.append(title) }
        if imageCount > 1 { parts.append("image \(number) of \(imageCount)") }
        return parts.joined(separator: ", ")
    }

    /// The scale the greeting gives: the pixel size in force ("17.8 picometres per pixel"), else a
    /// reciprocal calibration ("0.174 reciprocal nanometres per pixel"); nil when there is neither.
    public func spokenScale(pixelSize inForce: PixelSize?) -> String? {
        if let inForce { return "\(inForce.spoken) per pixel" }
        return calibration.spokenReciprocal.map { "\($0) per pixel" }
    }
}
