import Foundation

/// Paths the end-to-end tests need.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The program under test, built next to this test bundle (override: SONIC_ATOMIC_BIN).
    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["SONIC_ATOMIC_BIN"] { return explicit }
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return tests.deletingLastPathComponent().appendingPathComponent("sonic-atomic").path
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The pen-tablet fixture: a real Xorg whose wacom driver reads an emulated pen (override:
    /// SONIC_PEN_TABLET).
    static var penTablet: String {
        ProcessInfo.processInfo.environment["SONIC_PEN_TABLET"] ?? repository + "/scripts/pen-tablet"
    }

    /// Why the pen tablet cannot run on this machine, or nil when it can. It needs FUSE (through
    /// fusermount3 unless root) for its pen, and Xorg with the dummy video and wacom input drivers.
    static let penTabletMissing: String? = {
        guard fuseDeviceOpens() else {
            return "no FUSE device here (/dev/fuse is missing, masked or not allowed), and the emulated pen is one"
        }
        if getuid() != 0 && Subprocess.which("fusermount3") == nil {
            return "fusermount3 is not installed (Debian package fuse3)"
        }
        let parts = [
            "/usr/lib/xorg/Xorg": "xserver-xorg-core",
            "/usr/lib/xorg/modules/drivers/dummy_drv.so": "xserver-xorg-video-dummy",
            "/usr/lib/xorg/modules/input/wacom_drv.so": "xserver-xorg-input-wacom"
        ]
        for (file, package) in parts.sorted(by: { $0.key < $1.key }) where !FileManager.default.fileExists(atPath: file)
        {
            return "\(package) is not installed"
        }
        return nil
    }()

    /// Whether tests get the real pen: where the machine cannot run it they fall back to Xvfb's plain
    /// pointer — but never in CI, where its absence fails the test.
    static var hasRealPen: Bool { penTabletMissing == nil || isCI }

    /// Why native PipeWire cannot be tested here, or nil when it can. Its graph has each period
    /// rendered in turn, within the period, by every program in it: without real-time priority for
    /// the daemon and the program, ordinary scheduling delays break the sound up several times a
    /// minute (the program then lengthens its periods, and says so).
    static let realTimeMissing: String? = {
        var limit = rlimit()
        guard geteuid() != 0, getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0, limit.rlim_cur == 0
        else { return nil }
        return "ulimit -r is 0, and sudo prlimit could not raise it"
    }()

    static let speechDispatcherProgram = "/usr/bin/speech-dispatcher"

    /// Why speech-dispatcher cannot run here, or nil when it can: the daemon and its espeak-ng module.
    static let speechDispatcherMissing: String? = {
        missingPackage([
            speechDispatcherProgram: "speech-dispatcher",
            "/usr/lib/speech-dispatcher-modules/sd_espeak-ng": "speech-dispatcher-espeak-ng"
        ])
    }()

    /// Whether the speech-dispatcher tests run: they skip where it is missing — but never in CI, where
    /// its absence fails them.
    static var hasSpeechDispatcher: Bool { speechDispatcherMissing == nil || isCI }

    static let orcaProgram = "/usr/bin/orca"
    static let dbusDaemonProgram = "/usr/bin/dbus-daemon"
    /// Debian's own Python, with GObject introspection (the one on PATH may be another).
    static let systemPython = "/usr/bin/python3"
    /// What runs the pen tool's Python scripts: Debian's own where it is installed (the tests' packages
    /// install it), as a Python found first on PATH may start through a chain of shims on every stroke.
    static var penPython: String? { FileManager.default.isExecutableFile(atPath: systemPython) ? systemPython : nil }

    /// Why the screen reader cannot run here, or nil when it can: Orca, the desktop's accessibility
    /// bus and a session bus to start it on.
    static let screenReaderMissing: String? = {
        missingPackage([
            orcaProgram: "orca", dbusDaemonProgram: "dbus-daemon",
            "/usr/libexec/at-spi-bus-launcher": "at-spi2-core", "/usr/libexec/at-spi2-registryd": "at-spi2-core"
        ]) ?? speechDispatcherMissing
    }()

    /// Why brltty cannot run here, or nil when it can.
    static let brlttyMissing: String? = { missingPackage([BrailleTestDisplay.program: "brltty"]) }()

    /// Whether the braille tests run: they skip where brltty is missing — but never in CI, where its absence fails
    /// them.
    static var hasBrltty: Bool { brlttyMissing == nil || isCI }

    /// "PACKAGE is not installed" for the first of these files (path: package) that is missing.
    private static func missingPackage(_ files: [String: String]) -> String? {
        files.sorted { $0.key < $1.key }.first { !FileManager.default.fileExists(atPath: $0.key) }.map {
            "\($0.value) is not installed"
        }
    }

    /// Whether the screen-reader tests run: they skip where Orca is missing — but never in CI, where its
    /// absence fails them.
    static var hasScreenReader: Bool { screenReaderMissing == nil || isCI }

    /// Whether /dev/fuse is the FUSE device (character device 10:229: a container may mask it with
    /// another) and this process may open it (a device policy may forbid it).
    static func fuseDeviceOpens() -> Bool {
        var info = stat()
        guard stat("/dev/fuse", &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { return false }
        let device = UInt64(info.st_rdev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        guard major == 10 && minor == 229 else { return false }
        let descriptor = open("/dev/fuse", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// A fresh scratch folder for one test.
    static func scratch(_ name: String) throws -> String {
        let folder = "/tmp/sonic-e2e-\(name)-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}
