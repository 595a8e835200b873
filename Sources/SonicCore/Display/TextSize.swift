/// How large the text on screen is — the status panel and the tags' labels — and how thick the
/// lines drawn over the image: the desktop's own size (its `Xft.dpi`) times the user's scale, which
/// `Ctrl++` and `Ctrl+-` step through and the profile's `display.text_size` starts at.
public struct TextSize: Sendable, Equatable {
    /// The scales the keys step through: low-vision users read at two to four times.
    public static let steps: [Double] = [1, 1.5, 2, 2.5, 3, 4]
    /// What fontconfig is asked for: a bold sans-serif face with every Latin letter and the degree sign.
    public static let fontFamily = "DejaVu Sans:bold"
    /// The text's size at scale 1, in points (18 pixels on a 96 dpi desktop).
    public static let normalPoints = 13.5
    /// What X desktops assume when `Xft.dpi` is not set.
    public static let defaultDPI = 96.0

    public private(set) var scale: Double

    /// `scale` is kept within the steps' range.
    public init(scale: Double = 1) {
        self.scale = min(max(scale, Self.steps[0]), Self.steps[Self.steps.count - 1])
    }

    /// One step larger or smaller; false at the end of the steps.
    public mutating func step(larger: Bool) -> Bool {
        let next = larger ? Self.steps.first { $0 > scale } : Self.steps.last { $0 < scale }
        guard let next else { return false }
        scale = next
        return true
    }

    /// The font's pixel size on a desktop of `dpi` dots per inch.
    public func pixelSize(dpi: Double) -> Double { Self.normalPoints * dpi / 72 * scale }

    /// How thick the lines over the image are, in screen pixels: 2 at the normal size, growing with
    /// the text so a low-vision user sees them too.
    public func lineWidth(dpi: Double) -> Int { max(2, Int((2 * dpi / Self.defaultDPI * scale).rounded())) }

    /// A desktop's `Xft.dpi` resource as a number; nil when it is missing or not a sensible one.
    public static func dpi(resource: String?) -> Double? {
        guard let resource, let value = Double(resource.filter { $0 != " " && $0 != "\t" }),
            value >= 24, value <= 960
        else { return nil }
        return value
    }
}
