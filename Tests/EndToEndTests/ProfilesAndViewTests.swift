import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// The shipped profiles sound their mappings; zoom keeps the pen exact; the sighted view.
    @Suite struct ProfilesAndViewTests {
        static let rate = SoundServer.sampleRate

        /// The calibration image's top strip: eight steps, value 65535·k/7 in columns 64k … 64k + 63.
        static func stepValue(_ k: Int) -> Int { 65535 * k / 7 }

        /// The nearest note of a scale (semitone degrees from the base), independently of the program.
        static func snap(_ f: Double, base: Double, degrees: [Int]) -> Double {
            let semitones = 12 * log2(f / base)
            let candidates = (-1...5).flatMap { octave in degrees.map { Double(octave * 12 + $0) } }
            return base * pow(2, candidates.min { abs($0 - semitones) < abs($1 - semitones) }! / 12)
        }

        /// What each profile should play on step k (level k/7, as the percentiles of the calibration
        /// image are 0 and 65535; the default's top lies half that span higher).
        static func expected(_ profile: String, step k: Int) -> Double {
            let level = Double(stepValue(k)) / 65535
            switch profile {
            case "default": return 110 * pow(16, level / 1.5)
            case "pentatonic": return snap(220 * pow(8, level), base: 220, degrees: [0, 2, 4, 7, 9])
            case "classic": return max(20, Double(stepValue(k)) / 120)
            default: // discrete: 8 bands, each at its middle level, snapped to a semitone
                let band = min(7, Int(level * 8))
                return snap(220 * pow(8, (Double(band) + 0.5) / 8), base: 220, degrees: Array(0..<12))
            }
        }

        /// Each profile on one way to play, every way used: the mapping is the engine's, the ways are the other tests'.
        @Test(
            arguments: zip(
                ["default", "pentatonic", "classic", "discrete"],
                [SoundServer.Kind.pipewireNative, .pulseaudio, .pipewire, .pipewireNative]))
        func eachShippedProfileSoundsItsMapping(profile: String, sound kind: SoundServer.Kind) throws {
            try withServers("profile-\(profile)", sound: kind) { display, sound, folder in
                let image = Fixtures.repository + "/images/calibration.png"
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder,
                    arguments: ["--profile", profile])
                defer { session.stop() }
                let v = try session.waitUntilShown()
                try session.waitForGreeting()
                /// Step k's tone as heard, and whether the sound ran dry meanwhile.
                func play(step k: Int) throws -> (heard: Double?, ranDry: Bool) {
                    let dropouts = try session.records(ofType: "dropout").count
                    let (x, y) = v.screen(Double(64 * k + 32), 64)
                    let mark = sound.recordedSampleCount()
                    try display.down(x, y, pressure: 0.6)
                    usleep(900_000)
                    try display.up()
                    try sound.waitForSilence(lasting: 0.3)
                    let want = Self.expected(profile, step: k)
                    // The classic profile's 20 Hz: below what a speaker plays.
                    guard want >= 60 else { return (nil, false) }
                    let recording = try sound.recording()
                    // Timed from the tone's own start, so a late pen event or a recorder hiccup cannot slide the
                    // pen-up's release into the window.
                    let onset = try #require(recording[mark...].firstIndex { abs($0) > 0.01 }, "no tone on step \(k)")
                    let heard: Double?
                    switch profile {
                    case "discrete":
                        // One short note as the pen lands on the band.
                        heard = SignalAnalysis.steadyFrequency(
                            recording[(onset + 480)..<(onset + 4800)], sampleRate: Self.rate)
                    case "classic":
                        heard = SignalAnalysis.fundamental(
                            recording[(onset + 19_200)..<(onset + 33_600)], sampleRate: Self.rate,
                            range: 50...1000)
                    default:
                        heard = SignalAnalysis.steadyFrequency(
                            recording[(onset + 19_200)..<(onset + 33_600)],
                            sampleRate: Self.rate)
                    }
                    return (heard, try session.records(ofType: "dropout").count > dropouts)
                }
                for k in 0..<8 {
                    let want = Self.expected(profile, step: k)
                    var (heard, ranDry) = try play(step: k)
                    guard want >= 60 else { continue }
                    // A dropout (one the machine's own pause explains, or the run fails on it anyway) breaks the
                    // tone it falls in: that step is played again.
                    if ranDry && abs((heard ?? 0) / want - 1) >= 0.01 { (heard, ranDry) = try play(step: k) }
                    #expect(
                        abs((heard ?? 0) / want - 1) < 0.01,
                        "\(profile), step \(k): heard \(heard ?? 0) Hz, the mapping says \(want)")
                }
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func zoomKeepsThePenExactAtOneThreeAndSixteenTimes() throws {
            try withServers("zoom") { display, sound, folder in
                let width = 1500, height = 900
                let image = try writeImage(folder, "pixels.png", width: width, height: height) { x, y in
                    UInt16(truncatingIfNeeded: x * 37 + y * 1009)
                }
                let samples = (0..<width * height).map {
                    UInt16(truncatingIfNeeded: ($0 % width) * 37 + ($0 / width) * 1009)
                }
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                // Independently: the fit, and the image point under the pen, which zooming must keep.
                let base = min(Double(display.width) / Double(width), Double(display.height) / Double(height))
                let fitX = (Double(display.width) - Double(width) * base) / 2,
                    fitY = (Double(display.height) - Double(height) * base) / 2
                let anchor = display.effective(700.3, 455.7)
                let q = ((anchor.x - fitX) / base - 0.5, (anchor.y - fitY) / base - 0.5)
                try display.pen("hover", "\(anchor.x),\(anchor.y)")
                usleep(200_000)

                var presses = 0
                for (zoom, steps) in [(1.0, 0), (3.0, 3), (16.0, 5)] {
                    for _ in 0..<steps {
                        let mark = sound.recordedSampleCount()
                        try display.key("plus")
                        try sound.waitForUtterance(after: mark)
                        presses += 1
                    }
                    let said = try session.lastAnswer()
                    if steps > 0 { #expect(said == "Zoom \(Int(zoom)) times.") }
                    let s = base * zoom
                    let origin = (anchor.x - (q.0 + 0.5) * s, anchor.y - (q.1 + 0.5) * s)
                    let viewport = try #require(try session.records(ofType: "viewport").last)
                    #expect(abs(viewport["scale"] as! Double - s) < 1e-9, "zoom \(zoom)")
                    // X passes the pen's position in 16.16 fixed point (700.3 arrives as 700.29999), and
                    // zooming about it scales that by the zoom: a few 10⁻⁴ pixels at 16 times.
                    #expect(
                        abs(viewport["originX"] as! Double - origin.0) < 1e-3
                            && abs(viewport["originY"] as! Double - origin.1) < 1e-3,
                        "origin \(viewport["originX"]!), \(viewport["originY"]!) for \(origin)")
                    // The pen, touching around the anchor, reads exactly the pixel under it.
                    var sent: [(x: Double, y: Double)] = []
                    try display.down(anchor.x, anchor.y, pressure: 0.5)
                    for (dx, dy) in [(-37.3, 12.1), (51.7, -23.9), (3.1, 44.4), (-60.2, -51.5)] {
                        let p = display.effective(anchor.x + dx, anchor.y + dy)
                        try display.move(p.x, p.y)
                        sent.append(p)
                    }
                    try display.up()
                    try display.pen("hover", "\(anchor.x),\(anchor.y)")
                    usleep(200_000)
                    let records = try session.records(ofType: "pen")
                    for p in sent {
                        let record = try #require(
                            records.last {
                                abs($0["x"] as! Double - p.x) < 0.05 && abs($0["y"] as! Double - p.y) < 0.05
                            }, "no record at \(p)")
                        let ix = (p.x - origin.0) / s - 0.5, iy = (p.y - origin.1) / s - 0.5
                        #expect(
                            abs(record["ix"] as! Double - ix) < 0.01 && abs(record["iy"] as! Double - iy) < 0.01,
                            "zoom \(zoom): \(record["ix"]!), \(record["iy"]!) for \(ix), \(iy)")
                        let i = Int((ix + 0.5).rounded(.down)), j = Int((iy + 0.5).rounded(.down))
                        let onEdge =
                            abs((ix + 0.5) - (ix + 0.5).rounded()) < 1e-3
                            || abs((iy + 0.5) - (iy + 0.5).rounded()) < 1e-3
                        if !onEdge {
                            #expect(record["sample"] as! Int == Int(samples[j * width + i]), "zoom \(zoom) at \(p)")
                        }
                    }
                }
                #expect(presses == 8)
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func theStatusPanelAndPanning() throws {
            try withServers("view") { display, sound, folder in
                let image = Fixtures.repository + "/images/shapes.png"
                let session = try RunningPlay(
                    image: image, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                func press(_ key: String) throws -> String? {
                    let mark = sound.recordedSampleCount()
                    try display.key(key)
                    try sound.waitForUtterance(after: mark)
                    return try session.lastAnswer()
                }
                // H: the panel (white text on black) in the top-left corner, and gone again.
                let plain = try Screenshot.capture(display)
                #expect(try press("h") == "Status panel shown.")
                try display.pen("hover", "960,540")
                usleep(300_000)
                let panel = try Screenshot.capture(display)
                let corner = (8..<120).flatMap { y in (8..<300).map { x in panel[x, y] } }
                #expect(corner.filter { $0 == 0xFFFFFF }.count > 100, "no text in the status panel")
                #expect(corner.filter { $0 == 0 }.count > 1000, "no panel behind the text")
                #expect(try press("h") == "Status panel hidden.")
                usleep(200_000)
                let after = try Screenshot.capture(display)
                #expect((8..<120).allSatisfy { y in (8..<300).allSatisfy { x in after[x, y] == plain[x, y] } })

                // Zoomed in, the arrows and a drag with the upper barrel button move the view.
                for _ in 0..<4 { _ = try press("plus") } // 1.5, 2, 3, 4
                let zoomed = try #require(try session.records(ofType: "viewport").last)
                let said = try press("Right")
                #expect(said?.hasPrefix("Showing x ") == true)
                let panned = try #require(try session.records(ofType: "viewport").last)
                // A quarter of 1080.
                #expect(abs((panned["originX"] as! Double) - (zoomed["originX"] as! Double) + 270) < 1e-6)
                let mark = sound.recordedSampleCount()
                try display.pen("button", "2", "--press", "--at", "900,500")
                try display.pen("move", "1000,530")
                try display.pen("button", "2", "--release")
                try sound.waitForUtterance(after: mark)
                let dragged = try #require(try session.records(ofType: "viewport").last)
                #expect(abs((dragged["originX"] as! Double) - (panned["originX"] as! Double) - 100) < 1e-6)
                #expect(abs((dragged["originY"] as! Double) - (panned["originY"] as! Double) - 30) < 1e-6)
                // A drag is not a press: no announcement repeated.
                let last = try session.lastAnswer()
                #expect(last?.hasPrefix("Showing x ") == true)
                #expect(try session.quitWithKey() == 0)
            }
        }

        /// The panel is Unicode ("Tilt 20°, 10°" exactly as Xft renders it, not "20Â°"), sized by the
        /// desktop's Xft.dpi, and Ctrl++ makes it three times as large.
        @Test func thePanelReadsInUnicodeAtTheDesktopsScaleAndTheUsersSize() throws {
            try withServers("text") { display, sound, folder in
                // A desktop scaled by 1.5: Xft.dpi 144, as the desktop's settings write it.
                let xprop = try #require(Subprocess.which("xprop"), "xprop is not installed (x11-utils)")
                let set = try Subprocess.run(
                    xprop, ["-root", "-f", "RESOURCE_MANAGER", "8s", "-set", "RESOURCE_MANAGER", "Xft.dpi:\t144\n"],
                    environment: display.environment)
                #expect(set.status == 0, "\(set.output)")
                let session = try RunningPlay(
                    image: Fixtures.repository + "/images/shapes.png", display: display, sound: sound,
                    folder: folder)
                defer { session.stop() }
                try session.waitUntilShown()
                try session.waitForGreeting()
                func press(_ key: String) throws -> String? {
                    let mark = sound.recordedSampleCount()
                    try display.key(key)
                    try sound.waitForUtterance(after: mark)
                    return try session.lastAnswer()
                }
                #expect(try press("h") == "Status panel shown.")
                let tilt = display.hasRealPen ? (20, 10) : (0, 0)
                try display.pen("hover", "960,700", "--tilt", "\(tilt.0),\(tilt.1)")
                usleep(300_000)
                let line = "Pressure 0 %   Tilt \(tilt.0)°, \(tilt.1)°"
                // 13.5 points at 144 dpi.
                let normal = Int((TextSize.normalPoints * 144 / 72).rounded())
                let renderer = try TextRenderer(display: display.name)
                let small = try renderer.ink(line, pixelSize: normal, family: TextSize.fontFamily)
                let large = try renderer.ink(line, pixelSize: 3 * normal, family: TextSize.fontFamily)
                let panelArea = (x: 0..<display.width, y: 0..<display.height / 2)
                let before = InkMask(try Screenshot.capture(display), x: panelArea.x, y: panelArea.y)
                #expect(before.find(small) != nil, "no \"\(line)\" at \(normal) px in the panel")

                for expected in ["Text 1.5 times.", "Text 2 times.", "Text 2.5 times.", "Text 3 times."] {
                    #expect(try press("ctrl+plus") == expected)
                }
                usleep(300_000)
                let after = InkMask(try Screenshot.capture(display), x: panelArea.x, y: panelArea.y)
                #expect(after.find(large) != nil, "no \"\(line)\" at \(3 * normal) px in the panel")
                #expect(after.find(small) == nil, "the panel still shows its text at \(normal) px")
                #expect(try press("ctrl+minus") == "Text 2.5 times.")
                #expect(try session.quitWithKey() == 0)
            }
        }

        @Test func inspectDescribesTheImage() throws {
            let result = try Subprocess.run(
                Fixtures.binary, ["inspect", Fixtures.repository + "/images/calibration.png"])
            #expect(result.status == 0)
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.first == "calibration.png: 512 by 384 pixels, 16-bit gray, 196608 samples.")
            // Percentiles from the definition: the grid strip is 0 but for its lines.
            #expect(lines.contains { $0.hasPrefix("Minimum 0, maximum 65535") })
            #expect(lines.contains("No lattice of atom columns found."))
            #expect(lines.filter { $0.contains(" percent") && $0.first?.isNumber == true }.count == 16)
        }

        @Test func profilesListsShippedAndOwnProfiles() throws {
            let folder = try Fixtures.scratch("profiles")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let own = folder + "/sonic-atomic/profiles"
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
            try "description = \"My gentler default\"\n[tone]\namplitude = 0.3\n".write(
                toFile: own + "/default.toml", atomically: true, encoding: .utf8)
            try "[tone]\nloudness = 3\n".write(toFile: own + "/broken.toml", atomically: true, encoding: .utf8)
            let result = try Subprocess.run(Fixtures.binary, ["profiles"], environment: ["XDG_CONFIG_HOME": folder])
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(
                lines.contains {
                    $0.hasPrefix("default") && $0.contains("user")
                        && $0.hasSuffix("My gentler default (overrides the shipped one)")
                })
            #expect(
                lines.contains {
                    $0.hasPrefix("broken")
                        && $0.contains("not usable: \(own)/broken.toml:2: tone.loudness: unknown key")
                })
            for name in ["classic", "discrete", "pentatonic"] {
                #expect(lines.contains { $0.hasPrefix(name) && $0.contains("shipped") })
            }
            // And the user's default is the one that plays.
            let play = try Subprocess.run(
                Fixtures.binary, ["play", "--profile", "broken"],
                environment: ["XDG_CONFIG_HOME": folder, "DISPLAY": ""])
            #expect(play.status == 2 && play.output.contains("broken.toml:2: tone.loudness: unknown key"))
        }
    }
}
