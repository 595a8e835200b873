import ArgumentParser
import Foundation

/// Exit statuses the program promises (see README).
enum ExitStatus {
    static let badInput: Int32 = 2
    static let noDisplay: Int32 = 3
    static let noSound: Int32 = 4
}

/// One line on stderr about something the program works around.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("sonic-atomic: \(message)\n".utf8))
}

/// Prints one line on stderr and ends the command with `status`.
func fail(_ message: String, status: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("sonic-atomic: \(message)\n".utf8))
    return ExitCode(status)
}
