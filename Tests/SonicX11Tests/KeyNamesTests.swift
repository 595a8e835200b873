import CX11
import SonicCore
import Testing

@testable import SonicX11

/// The keysym → key name step between X and the binding table.
@Suite struct KeyNamesTests {
    /// Whether X knows a keysym by this name.
    func isKeysym(_ name: String) -> Bool { XStringToKeysym(name) != KeySym(NoSymbol) }

    @Test func everyBoundKeyCanBeTyped() {
        for name in Bindings.table.compactMap(\.keyName) {
            let control = name.hasPrefix("Ctrl+") && name.count > 5
            // Shift with another key (Shift+Tab is a key of its own to X).
            let shift = name.hasPrefix("Shift+") && name != "Shift+Tab"
            let key = control ? String(name.dropFirst(5)) : shift ? String(name.dropFirst(6)) : name
            let keysyms = KeyNames.renamed.filter { $0.value == key }.map(\.key) + [key, key.lowercased()]
            #expect(
                keysyms.contains {
                    isKeysym($0) && KeyNames.name(ofKeysym: $0, control: control, shift: shift) == name
                },
                "no key gives \(name)")
        }
    }

    @Test func controlNamesTheKeyOnlyWhereTheTableBindsIt() {
        #expect(KeyNames.name(ofKeysym: "plus", control: true) == "Ctrl++")
        #expect(KeyNames.name(ofKeysym: "KP_Subtract", control: true) == "Ctrl+-")
        #expect(KeyNames.name(ofKeysym: "plus", control: false) == "+")
        // Control with a key the table binds only alone does what the key does.
        #expect(KeyNames.name(ofKeysym: "q", control: true) == "Q")
    }

    @Test func shiftNamesTheKeyOnlyWhereTheTableBindsIt() {
        #expect(KeyNames.name(ofKeysym: "X", control: false, shift: true) == "Shift+X")
        #expect(KeyNames.name(ofKeysym: "x", control: false, shift: false) == "X")
        #expect(KeyNames.name(ofKeysym: "ISO_Left_Tab", control: false, shift: true) == "Shift+Tab")
        #expect(KeyNames.name(ofKeysym: "Q", control: false, shift: true) == "Q")
        #expect(KeyNames.name(ofKeysym: "plus", control: false, shift: true) == "+")
        // The energy window's braces are shifted brackets: the keysym is the brace's.
        #expect(KeyNames.name(ofKeysym: "braceleft", control: false, shift: true) == "{")
        #expect(KeyNames.name(ofKeysym: "bracketright", control: false, shift: false) == "]")
    }

    /// Shift, Alt and the locks pressed alone are no keys: a sweep goes on while Shift is pressed for Shift+X.
    /// Control alone is a key, which stops the speech.
    @Test func modifiersAloneAreNoKeys() {
        for name in ["Shift_L", "Shift_R", "Alt_R", "Caps_Lock", "Num_Lock", "ISO_Level3_Shift"] {
            #expect(KeyNames.isModifier(UInt(XStringToKeysym(name))), "\(name)")
        }
        #expect(KeyNames.name(ofKeysym: "Control_L") == "Control" && KeyNames.name(ofKeysym: "Control_R") == "Control")
        for name in ["x", "X", "Escape", "space", "F1", "plus", "Left", "Control_L", "Control_R"] {
            #expect(!KeyNames.isModifier(UInt(XStringToKeysym(name))), "\(name)")
        }
    }

    @Test func everyRenamedKeysymIsRealAndBound() {
        for (keysym, name) in KeyNames.renamed {
            #expect(isKeysym(keysym), "\(keysym)")
            #expect(Bindings.table.contains { $0.keyName == name }, "\(keysym) gives \(name), which nothing binds")
        }
    }

    @Test func lettersAreNamedAsOnTheKey() {
        #expect(KeyNames.name(ofKeysym: "q") == "Q" && KeyNames.name(ofKeysym: "Q") == "Q")
        #expect(KeyNames.name(ofKeysym: "ISO_Left_Tab") == "Shift+Tab" && KeyNames.name(ofKeysym: "KP_Add") == "+")
        #expect(KeyNames.name(ofKeysym: "Shift_L") == "Shift_L" && KeyNames.name(ofKeysym: "F1") == "F1")
    }
}
