import ArgumentParser

@main
struct SonicAtomic: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sonic-atomic",
        abstract: "Explore images by ear with a pen tablet.",
        subcommands: [
            Play.self, Render.self, Columns.self, Describe.self, Strain.self, Inspect.self, Map.self, Profiles.self
        ],
        defaultSubcommand: Play.self)
}
