import CBrlAPI
import Foundation
import Glibc
import SonicCore
import Synchronization

/// The user's braille display, reached through brltty's BrlAPI as any client reaches it (`BRLAPI_HOST` and
/// `BRLAPI_AUTH` honoured), for the program's window: its content is shown while the window has the focus, and
/// the display's keys are read.
///
/// Every BrlAPI call is made on the link's own thread: a call waits for brltty's answer, and the event loop must
/// never wait on another process. The loop hands over what to show (the latest wins) and takes the keys and changes.
/// When brltty cannot be reached, or goes away, the link tries again every `retryInterval` for as long as it runs,
/// and shows the content again once connected.
public final class BrailleLink: @unchecked Sendable {
    /// How long to wait between attempts to reach brltty.
    public static let retryInterval = 1.0
    /// How often the display's size is asked again (a display resized, or unplugged and another plugged in).
    static let sizeInterval = 1.0

    public enum Content: Sendable, Equatable {
        /// Text filling the display row by row (UTF-8; Unicode braille patterns are shown as their dots).
        case text(String)
        /// One cell a byte, dots 1–8 as bits 0–7, row by row.
        case dots([UInt8])
    }

    public enum Change: Sendable, Equatable {
        /// Connected to brltty, whose display has this size (0 × 0: brltty has no display now); again whenever the
        /// display changes size.
        case connected(BrailleSize)
        /// brltty went away, for this reason; the link tries again.
        case lost(reason: String)
        /// The first attempt failed, for this reason; the link tries again.
        case unreachable(reason: String)
        case key(BrailleKey)
    }

    private let windowID: UInt
    /// Guards everything below.
    private let lock = NSLock()
    private var wanted: Content?
    private var focused = true
    private var changes: [Change] = []
    private var stopping = false
    /// Written to wake the thread when there is something to show.
    private let wake: (read: Int32, write: Int32)

    /// Starts the link's thread; `windowID` is the X window the display follows.
    public init(windowID: UInt) {
        self.windowID = windowID
        // Writing to a brltty that has gone raises SIGPIPE, which would end the program; the failed write is
        // noticed instead.
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        } else {
            ends = [-1, -1]
        }
        wake = (ends[0], ends[1])
        let thread = Thread { [self] in run() }
        thread.name = "braille"
        thread.start()
    }

    /// Shows `content` as soon as the display can take it, in place of whatever was asked before.
    public func show(_ content: Content) {
        lock.withLock { wanted = content }
        poke()
    }

    /// The window gained or lost the focus: the display is the program's only while it has it.
    public func windowFocused(_ active: Bool) {
        lock.withLock { focused = active }
        poke()
    }

    /// What happened since the last call, in order.
    public func takeChanges() -> [Change] {
        lock.withLock {
            defer { changes.removeAll() }
            return changes
        }
    }

    /// Ends the thread, which gives the display back to brltty.
    public func stop() {
        lock.withLock { stopping = true }
        poke()
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    private func report(_ change: Change) { lock.withLock { changes.append(change) } }

    private var isStopping: Bool { lock.withLock { stopping } }

    // MARK: - The link's thread

    private func run() {
        var attempts = 0
        while !isStopping {
            attempts += 1
            switch connect() {
            case .success(let descriptor):
                let ending = serve(descriptor)
                brlapi_closeConnection()
                // Resized: connected again at once, as a new connection has the new size.
                if case .lost(let reason) = ending { report(.lost(reason: reason)) }
            case .failure(let failure):
                if attempts == 1 { report(.unreachable(reason: failure.reason)) }
                pause(Self.retryInterval)
            }
        }
        close(wake.read)
        close(wake.write)
    }

    private struct Failure: Error { let reason: String }

    /// Why a connection was let go.
    private enum Ending {
        case stopped
        case lost(String)
        /// brltty (6.5) fails when a connection writes after its display changed size (it keeps the old size's
        /// buffers, and the library writes the old size): a new connection has the new size.
        case resized
    }

    /// Opens the connection and takes the display for the window.
    private func connect() -> Result<Int32, Failure> {
        protocolErrors.store(0, ordering: .relaxed)
        let descriptor = brlapi_openConnection(nil, nil)
        guard descriptor >= 0 else { return .failure(Failure(reason: Self.errorText)) }
        // BrlAPI's own handler aborts the program on a protocol error; this one, set only after the connection is
        // open (before, it would not take), has the link let the connection go and open another.
        brlapi_setExceptionHandler(braillePacketRejected)
        // The window's id as the tty: the library adds the X session's place (WINDOWPATH).
        guard brlapi_enterTtyMode(Int32(truncatingIfNeeded: windowID), nil) >= 0 else {
            let reason = Self.errorText
            brlapi_closeConnection()
            return .failure(Failure(reason: reason))
        }
        return .success(descriptor)
    }

    /// Shows what is asked and reads keys until the link stops, the connection fails or the display changes size.
    private func serve(_ descriptor: Int32) -> Ending {
        let size = displaySize() ?? BrailleSize(columns: 0, rows: 0)
        report(.connected(size))
        var shown: Content?
        var inTtyMode = true
        var sizeAsked = monotonic()
        while true {
            var fds = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            ]
            _ = poll(&fds, 2, Int32(Self.sizeInterval * 1000))
            if fds[1].revents != 0 { drainWake() }
            let (content, focus, stop) = lock.withLock { (wanted, focused, stopping) }
            if stop { return .stopped }
            if protocolErrors.load(ordering: .relaxed) > 0 { return .lost("brltty answered with an error") }
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                return .lost("brltty closed the connection")
            }
            if fds[0].revents != 0, let failure = readKeys() { return .lost(failure) }
            if focus != inTtyMode {
                // Out of tty mode the display is the screen reader's again.
                let result =
                    focus ? brlapi_enterTtyMode(Int32(truncatingIfNeeded: windowID), nil) : brlapi_leaveTtyMode()
                guard result >= 0 else { return .lost("brltty refused the display: " + Self.errorText) }
                inTtyMode = focus
                shown = nil
            }
            let due = inTtyMode && content != nil && content != shown
            // Before every write too: one of the old size would bring brltty down.
            if due || monotonic() - sizeAsked >= Self.sizeInterval {
                sizeAsked = monotonic()
                guard let now = displaySize() else { return .lost("brltty does not answer: " + Self.errorText) }
                if now != size { return .resized }
            }
            guard due, let content, size.cells > 0 else { continue }
            guard write(content, cells: size.cells) else {
                let refusal = Self.errorText
                // The display changed size since it was asked: brltty refuses a write of the old size.
                if let now = displaySize(), now != size { return .resized }
                return .lost("brltty does not take the text: " + refusal)
            }
            shown = content
        }
    }

    /// Reads every key waiting; the reason when the connection failed.
    private func readKeys() -> String? {
        while true {
            var code: brlapi_keyCode_t = 0
            let result = brlapi_readKey(0, &code)
            if result < 0 { return "brltty closed the connection" }
            if result == 0 { return nil }
            if let key = BrailleKey(brlapiCode: code) { report(.key(key)) }
        }
    }

    private func write(_ content: Content, cells: Int) -> Bool {
        switch content {
        case .text(let text):
            let characters = max(1, text.unicodeScalars.count)
            return (text.isEmpty ? " " : text).withCString { sa_brlapi_write_text($0, Int32(characters)) } >= 0
        case .dots(let dots):
            // writeDots takes exactly one byte a cell.
            var cellsDots = Array(dots.prefix(cells))
            cellsDots += [UInt8](repeating: 0, count: cells - cellsDots.count)
            return brlapi_writeDots(cellsDots) >= 0
        }
    }

    private func displaySize() -> BrailleSize? {
        var columns: UInt32 = 0
        var rows: UInt32 = 0
        guard sa_brlapi_display_size(&columns, &rows) == 0 else { return nil }
        return BrailleSize(columns: Int(columns), rows: Int(rows))
    }

    private func pause(_ seconds: Double) {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32(seconds * 1000))
        drainWake()
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wake.read, &bytes, bytes.count) > 0 {}
    }

    private func monotonic() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static var errorText: String { String(cString: sa_brlapi_error_text()) }
}

extension BrailleKey {
    /// The key of a code BrlAPI read in tty mode (brltty's commands, not the driver's own keys); nil for the keys the
    /// program leaves alone.
    public init?(brlapiCode code: UInt64) {
        var argument: Int32 = 0
        let command = Int(sa_brlapi_command(code, &argument))
        switch command {
        case Int(SA_BRLAPI_PAN_LEFT): self = .panLeft
        case Int(SA_BRLAPI_PAN_RIGHT): self = .panRight
        case Int(SA_BRLAPI_LINE_UP): self = .lineUp
        case Int(SA_BRLAPI_LINE_DOWN): self = .lineDown
        case Int(SA_BRLAPI_TOP): self = .top
        case Int(SA_BRLAPI_BOTTOM), Int(SA_BRLAPI_HOME): self = .newest
        case Int(SA_BRLAPI_ROUTE): self = .route(Int(argument))
        case Int(SA_BRLAPI_DISPLAY_MODE): self = .switchView
        default: return nil
        }
    }
}

/// Protocol errors BrlAPI reported since the connection opened.
private let protocolErrors = Atomic<Int>(0)

/// BrlAPI's exception handler: called on the link's thread, inside a BrlAPI call, for a packet brltty rejected.
private func braillePacketRejected(
    _ error: Int32, _ type: brlapi_packetType_t, _ packet: UnsafeRawPointer?, _ size: Int
) {
    protocolErrors.add(1, ordering: .relaxed)
}
