import ArgumentParser
import Foundation
import SonicCore

struct Profiles: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the shipped profiles and your own, each with its description.",
        discussion:
            "Your profiles live in $XDG_CONFIG_HOME/sonic-atomic/profiles (~/.config/sonic-atomic/profiles) and override shipped ones of the same name."
    )

    func run() throws {
        var rows: [(name: String, origin: String, text: String)] = []
        let user = Installation.userProfileDirectory
        let shipped = Installation.dataDirectory.map { $0 + "/profiles" }
        let shippedNames = Set(shipped.map(Self.names) ?? [])
        for (folder, origin) in [(user, "user"), (shipped, "shipped")] {
            guard let folder else { continue }
            for name in Self.names(in: folder) {
                if origin == "shipped" && rows.contains(where: { $0.name == name }) { continue }
                let path = "\(folder)/\(name).toml"
                var text: String
                do {
                    let profile = try Installation.loadProfile(path)
                    text = profile.description.isEmpty ? "(no description)" : profile.description
                } catch {
                    text = "not usable: \(error)"
                }
                if origin == "user" && shippedNames.contains(name) { text += " (overrides the shipped one)" }
                rows.append((name, origin, text))
            }
        }
        guard !rows.isEmpty else {
            throw fail("no profiles found (set SONIC_ATOMIC_DATA)", status: ExitStatus.badInput)
        }
        let width = rows.map(\.name.count).max()!
        for row in rows.sorted(by: { $0.name < $1.name }) {
            print(
                row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + row.origin.padding(toLength: 7, withPad: " ", startingAt: 0) + "  " + row.text)
        }
    }

    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
    }
}
