@testable import SonicCore

/// One line of a session log decoded on its own, as line `number` of the log `name`.
func decodeLogLine(_ line: String, name: String, number: Int) throws(SessionLogError) -> SessionRecord? {
    var decoder = SessionLogDecoder(name: name)
    return try Array(line.utf8).withUnsafeBufferPointer { buffer throws(SessionLogError) in
        try decoder.decode(buffer, number: number)
    }
}
