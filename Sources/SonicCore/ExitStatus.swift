/// The exit statuses the program promises, in one place: the README, the manual and the manual page
/// are held to it by a test.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case done = 0
    case badInput = 2
    case noDisplay = 3
    case noSound = 4
    /// What the argument parser ends with for options it cannot take (EX_USAGE).
    case badUsage = 64

    /// In a few words, as the README lists them.
    public var brief: String {
        switch self {
        case .done: "done"
        case .badInput: "bad input"
        case .noDisplay: "no X display"
        case .noSound: "no sound server"
        case .badUsage: "bad usage"
        }
    }
}
