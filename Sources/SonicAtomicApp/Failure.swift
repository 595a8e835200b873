import ArgumentParser
import Foundation
import SonicCore

/// One line on stderr about something the program works around.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("sonic-atomic: \(message)\n".utf8))
}

/// Prints one line on stderr and ends the command with `status`.
func fail(_ message: String, status: ExitStatus) -> ExitCode {
    FileHandle.standardError.write(Data("sonic-atomic: \(message)\n".utf8))
    return ExitCode(status.rawValue)
}
