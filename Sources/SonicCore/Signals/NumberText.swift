import RealModule

/// Numbers as the program says and prints them.
public enum NumberText {
    /// `digits` significant digits, without trailing zeros: 17.8, 0.174, 1250 for three.
    public static func significant(_ value: Double, digits: Int) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        let decimals = max(0, digits - 1 - Int(Double.log10(Swift.abs(value)).rounded(.down)))
        let factor = Double.pow(10, Double(decimals))
        let text = String((value * factor).rounded() / factor)
        guard text.contains("."), !text.contains("e") else { return text }
        return String(text.reversed().drop { $0 == "0" }.drop { $0 == "." }.reversed())
    }
}
