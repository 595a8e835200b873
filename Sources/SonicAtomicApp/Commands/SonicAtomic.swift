import ArgumentParser

@main
struct SonicAtomic: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sonic-atomic",
        abstract: "Explore images by ear with a pen tablet.",
        subcommands: [
            Play.self, Learn.self, Render.self, Columns.self, Describe.self, Strain.self, Inspect.self, Map.self,
            Profiles.self
        ],
        defaultSubcommand: Play.self)

    /// Every command but `play` and `learn` (which say their waits in their own way) tells a terminal of long work.
    static func main() {
        do {
            var command = try parseAsRoot()
            if command is Play || command is Learn {
                try command.run()
            } else {
                try TerminalProgress.following { try command.run() }
            }
        } catch {
            exit(withError: error)
        }
    }
}
