/// The panel a sighted colleague can show over the image: what the listener hears, and the view.
struct StatusPanel: Sendable {
    var shown = false
    /// The size of the panel's text and of everything else drawn over the image.
    var textSize = TextSize()

    /// When shown: "Mode 1: intensity pitch", "Diffractogram" while it shows, on a stack stepped through the frame played, the pitch
    /// and note, the level and position, pressure and tilt (once the pen has reported), the zoom and
    /// the number of tags; first of all, while the sound server is away, that nothing is heard.
    func lines(
        modeNumber: Int, mode: Mode, frame: (number: Int, count: Int)? = nil, pen: PenRecord?, zoom: Double,
        tagCount: Int, soundPlays: Bool, diffractogram: Bool = false
    ) -> [String] {
        guard shown else { return [] }
        var lines = soundPlays ? [] : [Phrases.noSoundServer]
        lines.append("Mode \(modeNumber): \(mode.spokenName)")
        if diffractogram { lines.append("Diffractogram") }
        if let frame { lines.append("Frame \(frame.number) of \(frame.count)") }
        if let r = pen {
            lines.append(
                r.frequency > 0
                    ? "Pitch \(UnitCell.oneDecimal(r.frequency)) Hz"
                        + (NoteName.of(r.frequency).map { " (\($0))" } ?? "")
                    : "Silent")
            lines.append(
                r.inImage
                    ? "Level \(Phrases.percent(r.level)) %   x \(UnitCell.oneDecimal(r.imageX)), y \(UnitCell.oneDecimal(r.imageY))"
                    : "Outside the image")
            lines.append(
                "Pressure \(Phrases.percent(r.pressure)) %   Tilt \(Int(r.tiltX.rounded()))°, \(Int(r.tiltY.rounded()))°"
            )
        }
        lines.append("Zoom \(Phrases.times(zoom))   Tags \(tagCount)")
        return lines
    }
}
