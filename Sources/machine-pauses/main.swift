// machine-pauses — reports each time this machine stopped running its programs, so that a dropout
// can be told from the program's own faults.
//
// On each processor a thread at the highest real-time priority asks to wake every 2 ms: only
// a pause of the processor itself (a virtual machine's host running something else, or a kernel
// that will not be interrupted) can make it wake late. Where real-time priority is not allowed the
// threads run at ordinary priority: a late wake then shows that the machine could not run a waiting
// thread in time, as the sound servers, which then have no real-time priority either, need.
//
// Given thread ids (`machine-pauses [TID…]`), it also reports when one of those threads waited to run:
// a thread that was ready but found the processors taken, which no pause of the machine explains.
// And it reports every other real-time thread that ran for long at a stretch: below the watch's
// priority it does not delay the watch, but it keeps every ordinary thread off its processor.
//
// Output, one line each, times on CLOCK_MONOTONIC in seconds (the session log's clock):
//   watching realtime|ordinary            first, the threads' priority
//   pause T MS                            woke at T, MS milliseconds late, at real-time priority
//   late T MS                             the same at ordinary priority
//   steal T TICKS                         the steal counter rose by TICKS (1/100 s each) just before T
//   waited T TID MS                       thread TID spent MS milliseconds ready to run but not running
//                                         since the look before (20 ms earlier, unless this one was late)
//   busy T TID MS PROGRAM/NAME            real-time thread TID (called NAME, of PROGRAM) ran MS
//                                         milliseconds since the look before
// Runs until it is stopped.
import Glibc

enum Watch {
    /// A wake this late is a pause: a real-time thread above every other is woken within tens of
    /// microseconds. Every pause of 3 ms or more (a sound period is 5.3 ms at the default latency)
    /// delays a wake by more than this.
    static let reportedLateness = 0.001
    /// Not shorter: more wakes of a busy virtual machine were measured to bring on more of its pauses.
    static let wakeInterval = 2_000_000
    /// A watched thread's wait to run is reported from this long within one 20 ms look: a sound
    /// server's queue of 7.5 ms then has less than 6 ms left.
    static let reportedWait = 1_500_000
    /// A real-time thread's run is reported from this long within one look: longer than any sound
    /// server's or player's period of work.
    static let reportedRun = 4_000_000

    /// Reports, until stopped.
    static func run(watching threads: [Int32]) -> Never {
        let realTime = realTimeAllowed()
        report("watching \(realTime ? "realtime" : "ordinary")")
        for processor in 0..<Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) {
            var thread = pthread_t()
            // The processor travels as the thread's argument, plus one: a null argument is none.
            pthread_create(
                &thread, nil,
                { argument in
                    Watch.watch(processor: Int(bitPattern: argument) - 1)
                    return nil
                }, UnsafeMutableRawPointer(bitPattern: processor + 1))
        }
        var lastSteal = stealTicks()
        var lastWaits = threads.map { schedule(of: $0)?.waiting }
        var realTimeThreads: [Int32: (name: String, ran: Int?)] = [:]
        var looks = 0
        while true {
            // The real-time threads are listed afresh every second, and each looked at every time.
            if looks % 50 == 0 {
                realTimeThreads = Dictionary(
                    uniqueKeysWithValues: otherRealTimeThreads().map {
                        ($0.thread, ($0.name, realTimeThreads[$0.thread]?.ran))
                    })
            }
            looks += 1
            usleep(20_000)
            let steal = stealTicks()
            if let steal, let last = lastSteal, steal > last { report("steal \(monotonic()) \(steal - last)") }
            lastSteal = steal
            for (index, thread) in threads.enumerated() {
                let waits = schedule(of: thread)?.waiting
                if let waits, let last = lastWaits[index], waits - last >= reportedWait {
                    report("waited \(monotonic()) \(thread) \(Int((Double(waits - last) / 1e6).rounded()))")
                }
                lastWaits[index] = waits
            }
            for (thread, known) in realTimeThreads {
                let ran = schedule(of: thread)?.running
                if let ran, let last = known.ran, ran - last >= reportedRun {
                    report("busy \(monotonic()) \(thread) \(Int((Double(ran - last) / 1e6).rounded())) \(known.name)")
                }
                realTimeThreads[thread]?.ran = ran
            }
        }
    }

    /// The threads of other processes that run at a real-time priority, named "program/thread".
    static func otherRealTimeThreads() -> [(thread: Int32, name: String)] {
        var found: [(Int32, String)] = []
        for process in numberedEntries("/proc") where process != getpid() {
            let program = firstLine("/proc/\(process)/comm").map { String($0.prefix { $0 != "\n" }) } ?? "?"
            for thread in numberedEntries("/proc/\(process)/task") {
                guard let text = firstLine("/proc/\(process)/task/\(thread)/stat") else { continue }
                // pid (name) state …: the name may hold spaces and parentheses, so it ends at the last ")";
                // the scheduling policy is field 41 (1: FIFO, 2: round robin).
                guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { continue }
                let fields = text[text.index(after: close)...].split(separator: " ")
                guard fields.count > 38, let policy = Int(fields[38]), policy == 1 || policy == 2 else { continue }
                found.append((thread, program + "/" + text[text.index(after: open)..<close]))
            }
        }
        return found
    }

    /// The numbers named in a folder of /proc (processes, or a process's threads).
    static func numberedEntries(_ folder: String) -> [Int32] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var numbers: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = Int32(name) { numbers.append(number) }
        }
        return numbers
    }

    /// How long thread `thread` has run, and spent ready to run but waiting for a processor, in all
    /// (its schedstat), in nanoseconds; nil when it cannot be read.
    static func schedule(of thread: Int32) -> (running: Int, waiting: Int)? {
        guard let fields = firstLineFields("/proc/\(thread)/schedstat"), fields.count >= 2,
            let running = Int(fields[0]), let waiting = Int(fields[1])
        else { return nil }
        return (running, waiting)
    }

    /// Whether a thread may have real-time priority: a throwaway thread tries, leaving this one as it is.
    static func realTimeAllowed() -> Bool {
        var allowed = false
        var probe = pthread_t()
        withUnsafeMutablePointer(to: &allowed) { flag in
            pthread_create(
                &probe, nil,
                { flag in
                    flag!.assumingMemoryBound(to: Bool.self).pointee = Watch.becomeRealTime()
                    return nil
                }, flag)
            pthread_join(probe, nil)
        }
        return allowed
    }

    /// Wakes every `wakeInterval` nanoseconds on `processor` and reports each wake later than
    /// `reportedLateness`.
    static func watch(processor: Int) {
        pin(to: processor)
        let kind = becomeRealTime() ? "pause" : "late"
        var next = timespec()
        clock_gettime(CLOCK_MONOTONIC, &next)
        while true {
            next.tv_nsec += wakeInterval
            if next.tv_nsec >= 1_000_000_000 {
                next.tv_nsec -= 1_000_000_000
                next.tv_sec += 1
            }
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil) == EINTR {}
            var woke = timespec()
            clock_gettime(CLOCK_MONOTONIC, &woke)
            let lateness = seconds(woke) - seconds(next)
            if lateness > reportedLateness {
                report("\(kind) \(seconds(woke)) \(Int((lateness * 1000).rounded()))")
                // Start again from now: the missed wakes are one pause.
                next = woke
            }
        }
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return seconds(now)
    }

    static func seconds(_ time: timespec) -> Double { Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 }

    /// Writes one whole line at once: the lines of several threads never interleave.
    static func report(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }

    /// The calling thread runs only on `processor`. The C library declares `sched_setaffinity` only
    /// for GNU sources, which Swift does not import: it is looked up by name.
    static func pin(to processor: Int) {
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else { return }
        // A cpu_set_t: 1024 bits, one per processor.
        var set = [UInt8](repeating: 0, count: 128)
        set[processor / 8] |= UInt8(1 << (processor % 8))
        _ = unsafeBitCast(symbol, to: SetAffinity.self)(0, set.count, set)
    }

    /// Whether the calling thread now runs at the highest real-time priority.
    static func becomeRealTime() -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = sched_get_priority_max(Int32(SCHED_FIFO))
        return pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &parameters) == 0
    }

    /// The steal counter of /proc/stat: time the host ran something else while this machine wanted to run.
    static func stealTicks() -> Int? {
        // cpu user nice system idle iowait irq softirq steal …
        guard let fields = firstLineFields("/proc/stat"), fields.count > 8, fields[0] == "cpu" else { return nil }
        return Int(fields[8])
    }

    /// The words of a file's first line, nil when it cannot be read.
    static func firstLineFields(_ path: String) -> [Substring]? {
        firstLine(path)?.split(whereSeparator: { $0 == " " || $0 == "\n" })
    }

    /// A file's first line (at most 1023 bytes of it), nil when it cannot be read.
    static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        return String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

Watch.run(watching: CommandLine.arguments.dropFirst().compactMap { Int32($0) })
