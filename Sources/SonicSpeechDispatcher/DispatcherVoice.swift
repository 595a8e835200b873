import CSpeechd
import Foundation
import Glibc
import SonicCore
import Synchronization

public struct DispatcherError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The announcements spoken by speech-dispatcher, the screen reader's speech server, so the user's
/// own voice, rate and synthesiser apply. Each goes at message priority; a new one cancels only our
/// previous one (the screen reader's speech is its own), or follows it: speech-dispatcher queues messages of the
/// same priority. speech-dispatcher reports when each message
/// starts and stops; `activity` passes that on to the audio thread, which ducks the tone meanwhile.
///
/// Every libspeechd call is made on the voice's own thread: a call waits for the daemon's answer,
/// and the main loop must never wait on another process.
///
/// When the daemon goes away (restarted, or ended), the voice tries every half second to connect
/// again, as the screen reader does, for as long as it runs. Should the daemon stay away longer than
/// `standInDelay`, `lost` is called, on the voice's thread, with what was still to be said, so
/// another voice can stand in; when it is back, `back` is called there, and the voice says so.
public final class DispatcherVoice: Announcer, @unchecked Sendable {
    /// How long the daemon may be away before another voice stands in.
    public static let standInDelay = 3.0
    private let events: DispatcherEvents
    private let lost: @Sendable (_ unsaid: String?) -> Void
    private let back: @Sendable () -> Void
    /// Guards everything below; the thread waits on it.
    private let condition = NSCondition()
    /// What is yet to be handed to the daemon, in order.
    private var pending: [Utterance] = []
    private var busy = false
    private var stopping = false
    private var opening = true
    private var openFailure: String?
    /// The thread has let the connection go.
    private var finished = false
    /// The id the daemon gave our latest message (0: none yet).
    private var lastSaid = 0

    /// Connects to speech-dispatcher (starting it if the desktop lets clients start it); throws when
    /// it cannot be reached within `timeout` seconds.
    public init(
        activity: SpeechActivity, timeout: Double = 5, lost: @escaping @Sendable (_ unsaid: String?) -> Void,
        back: @escaping @Sendable () -> Void
    ) throws(DispatcherError) {
        events = DispatcherEvents(activity: activity)
        self.lost = lost
        self.back = back
        // A daemon that goes away leaves a socket that raises SIGPIPE on the next write, which would
        // end the program; the failed write is noticed instead.
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [self] in
            let (connection, failure) = Self.connect()
            condition.lock()
            openFailure = failure
            opening = false
            let abandoned = stopping
            condition.broadcast()
            condition.unlock()
            guard let connection else { return finish() }
            if abandoned {
                spd_close(connection)
                return finish()
            }
            run(connection)
        }
        thread.name = "speech-dispatcher"
        thread.start()
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while opening && condition.wait(until: deadline) {}
        if opening {
            // The thread closes the connection should it still open.
            stopping = true
            throw DispatcherError(message: "speech-dispatcher did not answer within \(Int(timeout)) s")
        }
        if let openFailure { throw DispatcherError(message: openFailure) }
    }

    public func say(_ text: String) { queue(Utterance(text: text, after: false)) }

    public func sayAfter(_ text: String) { queue(Utterance(text: text, after: true)) }

    private func queue(_ utterance: Utterance) {
        condition.lock()
        pending.queue(utterance)
        busy = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until speech-dispatcher has finished (or cut off) the latest message.
    public func waitUntilQuiet(timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            condition.lock()
            let handedOver = !busy && pending.isEmpty
            let said = lastSaid
            let gone = finished
            condition.unlock()
            if gone || handedOver && events.hasFinished(said) { return }
            usleep(10_000)
        }
    }

    /// Cancels what is still being said, and closes the connection (waiting at most a second for the
    /// daemon).
    public func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        let deadline = Date().addingTimeInterval(1)
        while !finished && condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// The connection, with our messages' notifications on, or why there is none.
    private static func connect() -> (UnsafeMutablePointer<SPDConnection>?, failure: String?) {
        var error: UnsafeMutablePointer<CChar>?
        guard let connection = spd_open2("sonic-atomic", "announcements", nil, SPD_MODE_THREADED, nil, 1, &error)
        else {
            let reason = error.map { String(cString: $0) } ?? "no reason given"
            free(error)
            return (nil, "speech-dispatcher cannot be reached (\(reason))")
        }
        connection.pointee.callback_begin = messageBegan
        connection.pointee.callback_end = messageEnded
        connection.pointee.callback_cancel = messageEnded
        for notification in [SPD_BEGIN, SPD_END, SPD_CANCEL]
        where spd_set_notification_on(connection, notification) != 0 {
            spd_close(connection)
            return (nil, "speech-dispatcher does not say when speech starts and stops")
        }
        return (connection, nil)
    }

    /// A connection to a daemon started again (by the user, the desktop or libspeechd's autospawn),
    /// tried every half second until one answers; nil when the voice is stopped first. Past
    /// `standInDelay`, what waits to be said is handed to `lost`, once.
    private func reconnect() -> (connection: UnsafeMutablePointer<SPDConnection>, stoodIn: Bool)? {
        let standInTime = Date().addingTimeInterval(Self.standInDelay)
        var stoodIn = false
        while true {
            if let connection = Self.connect().0 { return (connection, stoodIn) }
            condition.lock()
            if !stoodIn && Date() >= standInTime {
                let unsaid = pending.isEmpty ? nil : pending.map(\.text).joined(separator: " ")
                pending = []
                busy = false
                stoodIn = true
                condition.unlock()
                lost(unsaid)
                condition.lock()
            }
            if !stopping { _ = condition.wait(until: Date().addingTimeInterval(0.5)) }
            let stop = stopping
            condition.unlock()
            if stop { return nil }
        }
    }

    /// The thread is done with the connection: nothing more will be said.
    private func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func run(_ opened: UnsafeMutablePointer<SPDConnection>) {
        var connection = opened
        DispatcherEvents.listening.withLock { $0 = events }
        defer {
            DispatcherEvents.listening.withLock { $0 = nil }
            finish()
        }
        while true {
            condition.lock()
            // Awake twice a second while idle, so a daemon that goes away is noticed before the next message.
            if pending.isEmpty && !stopping { _ = condition.wait(until: Date().addingTimeInterval(0.5)) }
            var utterances = pending
            pending = []
            let stop = stopping
            condition.unlock()

            // A daemon that has gone away would leave every call waiting for its answer.
            if !Self.isConnected(connection) {
                events.connectionLost()
                spd_close(connection)
                if stop { return }
                condition.lock()
                // What was asked for meanwhile follows what was taken, unless it cuts that off.
                pending = pending.first?.after == false ? pending : utterances + pending
                condition.unlock()
                guard let (again, stoodIn) = reconnect() else { return }
                connection = again
                condition.lock()
                lastSaid = 0
                // Said by the daemon that is back: that it is, and what was asked for meanwhile unless
                // another voice said it.
                let waiting = stoodIn ? [] : pending.map(\.text)
                pending = []
                busy = true
                condition.unlock()
                if stoodIn { back() }
                utterances = [
                    Utterance(text: ([Phrases.dispatcherBack] + waiting).joined(separator: " "), after: false)
                ]
            }
            if stop {
                _ = spd_cancel(connection)
                spd_close(connection)
                return
            }
            for utterance in utterances {
                if !utterance.after { _ = spd_cancel(connection) }
                let id = utterance.text.isEmpty ? 0 : spd_say(connection, SPD_MESSAGE, utterance.text)
                condition.lock()
                if id > 0 { lastSaid = Int(id) }
                condition.unlock()
            }
            condition.lock()
            if pending.isEmpty { busy = false }
            condition.unlock()
        }
    }

    /// Whether the daemon's end of the connection is still open (a closed one reports a hang-up).
    private static func isConnected(_ connection: UnsafeMutablePointer<SPDConnection>) -> Bool {
        var socket = pollfd(fd: connection.pointee.socket, events: 0, revents: 0)
        return poll(&socket, 1, 0) == 0
    }
}

/// Where libspeechd's notifications go. Its callbacks carry no context of ours, and a process has one
/// connection, so they find it here.
private final class DispatcherEvents: Sendable {
    static let listening = Mutex<DispatcherEvents?>(nil)

    let activity: SpeechActivity
    /// The latest of our messages known to have finished or been cut off.
    private let lastFinished = Atomic<Int>(0)

    /// The latest of our messages known to have started.
    private let lastBegan = Atomic<Int>(0)

    init(activity: SpeechActivity) { self.activity = activity }

    func began(_ id: Int) {
        activity.began(message: id)
        lastBegan.store(id, ordering: .releasing)
    }

    /// The daemon has gone, and what it was saying with it; a daemon started again numbers its messages afresh.
    func connectionLost() {
        activity.ended(message: lastBegan.exchange(0, ordering: .acquiringAndReleasing))
        lastFinished.store(0, ordering: .releasing)
    }

    func ended(_ id: Int) {
        activity.ended(message: id)
        lastFinished.max(id, ordering: .releasing)
    }

    /// Whether message `id` (0: none) is over.
    func hasFinished(_ id: Int) -> Bool { lastFinished.load(ordering: .acquiring) >= id }
}

// libspeechd's callbacks run on its own events thread: plain functions, never closures of the main actor.
private func messageBegan(_ id: Int, _ client: Int, _ state: SPDNotificationType) {
    DispatcherEvents.listening.withLock { $0 }?.began(id)
}

private func messageEnded(_ id: Int, _ client: Int, _ state: SPDNotificationType) {
    DispatcherEvents.listening.withLock { $0 }?.ended(id)
}
