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
            let key = control ? String(name.dropFirst(5)) : name
            let keysyms = KeyNames.renamed.filter { $0.value == key }.map(\.key) + [key, key.lowercased()]
            #expect(
                keysyms.contains { isKeysym($0) && KeyNames.name(ofKeysym: $0, control: control) == name },
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
