/// A voice that speaks the session's announcements as they come, each cutting off the one before, or following it.
public protocol Announcer: AnyObject {
    /// Says `text`, cutting off what this voice is saying or has yet to say (never another program's speech);
    /// empty text only cuts off.
    func say(_ text: String)
    /// Says `text` once what this voice is saying, and has yet to say, has been said.
    func sayAfter(_ text: String)
    /// Waits until everything said has been heard, or `timeout` seconds have passed.
    func waitUntilQuiet(timeout: Double)
    /// Stops speaking and lets the voice go.
    func stop()
}

/// One announcement waiting to be said, and whether it follows what is said before it rather than cutting it off.
public struct Utterance: Sendable, Equatable {
    public var text: String
    public var after: Bool

    public init(text: String, after: Bool) {
        self.text = text
        self.after = after
    }
}

extension [Utterance] {
    /// What waits to be said once `utterance` is asked for: one said after joins the end, any other
    /// replaces everything waiting.
    public mutating func queue(_ utterance: Utterance) {
        if utterance.after { append(utterance) } else { self = [utterance] }
    }
}
