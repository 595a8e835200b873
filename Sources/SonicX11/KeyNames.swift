import SonicCore

/// Keys by the names the user reads and the binding table uses, from X's keysym names.
public enum KeyNames {
    /// X names these keys otherwise than the user does; the keypad's keys work as the main ones.
    static let renamed = [
        "ISO_Left_Tab": "Shift+Tab", "space": "Space", "Return": "Enter", "KP_Enter": "Enter",
        "plus": "+", "KP_Add": "+", "equal": "=", "minus": "-", "KP_Subtract": "-", "KP_0": "0"
    ]

    /// "Shift+Tab" for ISO_Left_Tab, "Q" for q or Q (the letter on the key), any other keysym name as it is.
    public static func name(ofKeysym keysym: String) -> String {
        if let name = renamed[keysym] { return name }
        if keysym.count == 1, keysym.first?.isLetter == true { return keysym.uppercased() }
        return keysym
    }

    /// The key's name with Control held or not: "Ctrl+" in front when the binding table binds that,
    /// so Control with any other key does what the key alone does.
    public static func name(ofKeysym keysym: String, control: Bool) -> String {
        let plain = name(ofKeysym: keysym)
        let withControl = "Ctrl+" + plain
        return control && Bindings.table.contains { $0.keyName == withControl } ? withControl : plain
    }
}
