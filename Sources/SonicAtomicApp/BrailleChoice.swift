import ArgumentParser

/// Whether `play` writes to a braille display through brltty.
enum BrailleChoice: String, CaseIterable, ExpressibleByArgument {
    /// When brltty answers, now or later; nothing is said when it does not.
    case auto
    /// As auto, and a line on stderr when brltty cannot be reached at the start.
    case on
    case off
}
