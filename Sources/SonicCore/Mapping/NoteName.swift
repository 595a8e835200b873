import RealModule

/// The equal-tempered note nearest a frequency, as musicians write it (A4 = 440 Hz).
public enum NoteName {
    static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// "A4", "C#5"; nil for frequencies too low or high to name.
    public static func of(_ frequency: Double) -> String? {
        guard frequency >= 8, frequency <= 30_000 else { return nil }
        let midi = Int((69 + 12 * Double.log2(frequency / 440)).rounded())
        return names[((midi % 12) + 12) % 12] + String(midi / 12 - 1)
    }
}
