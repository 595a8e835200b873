/// Why an image could not be read or written; the message is one line, fit for the user.
public struct PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
