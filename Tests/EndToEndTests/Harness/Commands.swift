import Foundation
import Testing

/// Runs a command of the program that needs no display or sound server: its status, and what it printed
/// (standard error after standard output).
func runCommand(_ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String) {
    try Subprocess.run(Fixtures.binary, arguments, timeout: timeout)
}

/// The JSON object a command printed; the test stops where the command failed or printed something else.
func commandJSON(_ arguments: [String], timeout: Double = 120) throws -> [String: Any] {
    let result = try runCommand(arguments, timeout: timeout)
    try #require(result.status == 0, "\(arguments): \(result.output)")
    return try #require(
        try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
}
