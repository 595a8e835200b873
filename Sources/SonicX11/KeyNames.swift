import SonicCore

/// Keys by the names the user reads and the binding table uses, from X's keysym names.
public enum KeyNames {
    /// X names these keys otherwise than the user does; the keypad's keys work as the main ones.
    static let renamed = [
        "ISO_Left_Tab": "Shift+Tab", "space": "Space", "Return": "Enter", "KP_Enter": "Enter",
        "plus": "+", "KP_Add": "+", "equal": "=", "minus": "-", "KP_Subtract": "-", "KP_0": "0",
        "bracketleft": "[", "bracketright": "]", "braceleft": "{", "braceright": "}",
        "Prior": "PageUp", "KP_Prior": "PageUp", "Next": "PageDown", "KP_Next": "PageDown", "KP_Home": "Home",
        "KP_End": "End", "Control_L": "Control", "Control_R": "Control"
    ]

    /// "Shift+Tab" for ISO_Left_Tab, "Q" for q or Q (the letter on the key), any other keysym name as it is.
    public static func name(ofKeysym keysym: String) -> String {
        if let name = renamed[keysym] { return name }
        if keysym.count == 1, keysym.first?.isLetter == true { return keysym.uppercased() }
        return keysym
    }

    /// The key's name with Control or Shift held or not: "Ctrl+" or "Shift+" in front when the binding table binds
    /// that, so a modifier with any other key does what the key alone does.
    public static func name(ofKeysym keysym: String, control: Bool, shift: Bool = false) -> String {
        let plain = name(ofKeysym: keysym)
        for (held, prefix) in [(control, "Ctrl+"), (shift, "Shift+")] where held {
            if Bindings.table.contains(where: { $0.keyName == prefix + plain }) { return prefix + plain }
        }
        return plain
    }

    /// Whether a keysym is a modifier (Shift, Alt, the locks): pressed alone, it is no key of its own. As Xlib's
    /// IsModifierKey, but for Control, which pressed alone stops the speech, as in a screen reader.
    public static func isModifier(_ keysym: UInt) -> Bool {
        guard keysym != 0xFFE3 && keysym != 0xFFE4 else { return false }
        return (0xFFE1...0xFFEE).contains(keysym) || (0xFE01...0xFE13).contains(keysym) || keysym == 0xFF7E
            || keysym == 0xFF7F
    }
}
