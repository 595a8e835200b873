import Foundation
import RealModule

/// Numbers as the program says and prints them for people — a voice and a braille line read each digit, so
/// no e-notation and no digits below what the value means. Machine outputs (JSON, CSV) keep full precision.
public enum NumberText {
    /// The most decimals a number for people has: a ten-thousandth is below anything the program measures.
    public static let mostDecimals = 4

    /// `digits` significant digits, without trailing zeros and never more than `mostDecimals` decimals:
    /// 17.8, 0.174, 1250 for three; 8650000, not 8.65e+06.
    public static func significant(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "not a number" : value > 0 ? "infinity" : "minus infinity" }
        guard value != 0 else { return "0" }
        let magnitude = Int(Double.log10(Swift.abs(value)).rounded(.down))
        let decimals = min(mostDecimals, max(0, digits - 1 - magnitude))
        var shown = value
        if decimals == 0 {
            let scale = Double.pow(10, Double(max(0, magnitude + 1 - digits)))
            shown = (value / scale).rounded() * scale
        }
        var text = String(format: "%.\(decimals)f", shown)
        if text.contains(".") { text = String(text.reversed().drop { $0 == "0" }.drop { $0 == "." }.reversed()) }
        return text == "-0" ? "0" : text
    }

    /// A number for people: four significant digits, as `significant`.
    public static func readable(_ value: Double) -> String { significant(value, digits: 4) }
}
