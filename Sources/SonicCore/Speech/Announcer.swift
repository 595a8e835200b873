/// A voice that speaks the session's announcements as they come, each cutting off the one before.
public protocol Announcer: AnyObject {
    /// Says `text`, cutting off what this voice is saying (never another program's speech); empty
    /// text only cuts off.
    func say(_ text: String)
    /// Waits until everything said has been heard, or `timeout` seconds have passed.
    func waitUntilQuiet(timeout: Double)
    /// Stops speaking and lets the voice go.
    func stop()
}
