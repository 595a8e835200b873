import Foundation
import RealModule
import Testing

@testable import SonicCore

/// The spectrum mode: how a spectrum becomes the spectrum bank's amplitudes, the bank itself, the controller asking
/// for spectra and saying what peaks are under the pen, and the session log's spectrum records.
@Suite struct SpectrumModeTests {
    /// An EDS spectrum image of 8 × 6 pixels over 0–10.24 keV: a continuum a tenth as high as the lines everywhere,
    /// titanium Kα on the left half, copper Kα on the right, and pixel (7, 5) holds nothing.
    static func edsCube() -> SpectrumCube {
        let source = ArraySpectra(width: 8, height: 6, channels: 1024) { x, y, c in
            if x == 7 && y == 5 { return 0 }
            let energy = Double(c) * 0.01
            let line = x < 4 ? 4.51 : 8.04
            return Float(20 + 200 * Double.exp(-Double.pow((energy - line) / 0.06, 2)))
        }
        return SpectrumCube(
            source: source,
            spectralAxis: SignalAxis(name: "Energy", size: 1024, scale: 0.01, units: "keV", navigation: false),
            spectroscopy: .eds)
    }

    static func touch(_ t: Double, x: Double, y: Double, pressure: Double = 0.1) -> PenEvent {
        var buttons = PenButtons()
        buttons.insert(PenButtons.tip)
        return PenEvent(
            time: t, rootX: x, rootY: y, pressure: pressure, tiltX: 0, tiltY: 0, buttons: buttons, inWindow: true)
    }

    /// A controller of a session on the cube's total counts, shown one screen pixel a pixel from (0, 0).
    static func session(spectra: Bool = true) -> (SessionController, SynthControls) {
        let cube = edsCube()
        let image = try! cube.totalCounts().image
        let controls = SynthControls()
        let voice = spectra ? SpectrumVoice(cube: cube, profile: .plainMapping) : nil
        let sound = SessionSound(
            instrument: Instrument(
                image: image, profile: .plainMapping, statistics: SampleStatistics(image), spectra: voice),
            controls: controls)
        let controller = SessionController(sound: sound, opened: OpenedImage(fileName: "eds.hspy"))
        _ = controller.place(window: ScreenRect(x: 0, y: 0, width: 8, height: 6))
        return (controller, controls)
    }

    @Test func theEnergyAxisIsLaidOutEvenlyInOctavesOver100To5000Hertz() {
        #expect(SpectrumBank.bands == 48)
        for band in 0..<48 {
            let expected = 100 * Double.pow(50, (Double(band) + 0.5) / 48)
            #expect(abs(SpectrumBank.frequency(band: band) - expected) < 1e-9)
        }
        #expect(abs(SpectrumBank.frequency(band: 0) - 104.2) < 0.1)
        #expect(abs(SpectrumBank.frequency(band: 47) - 4800.3) < 0.1)
        // Equal parts of the axis: 1024 channels, about 21 a band; titanium Kα (4.51 keV) in band 21, at 577 Hz.
        #expect(SpectrumTimbre.band(ofChannel: 0, channels: 1024) == 0)
        #expect(SpectrumTimbre.band(ofChannel: 21, channels: 1024) == 0)
        #expect(SpectrumTimbre.band(ofChannel: 22, channels: 1024) == 1)
        #expect(SpectrumTimbre.band(ofChannel: 451, channels: 1024) == 21)
        #expect(SpectrumTimbre.band(ofChannel: 1023, channels: 1024) == 47)
        #expect(abs(SpectrumBank.frequency(band: 21) - 577) < 1)
        #expect(SpectrumTimbre.band(ofChannel: 3, channels: 5) == 28)
    }

    @Test func eachBandsPowerIsItsShareOfTheCountsAndTheLoudnessFollowsTheCounts() {
        let timbre = SpectrumTimbre(channels: 96, fullCounts: 100, amplitude: 0.5, peak: 0.9)
        // All the counts in one band: that band alone, at the full amplitude.
        var single = [Double](repeating: 0, count: 96)
        single[40] = 100
        let one = timbre.amplitudes(of: single, pixels: 1)
        #expect(one.count == 48 && abs(Double(one[20]) - 0.5) < 1e-6)
        #expect(one.enumerated().allSatisfy { $0.offset == 20 || $0.element == 0 })
        // Two bands with 3 : 1 of the counts: powers 3 : 1, together as loud as one tone.
        var two = [Double](repeating: 0, count: 96)
        two[4] = 75
        two[90] = 25
        let split = timbre.amplitudes(of: two, pixels: 1)
        #expect(abs(Double(split[2] * split[2]) / Double(split[45] * split[45]) - 3) < 1e-4)
        #expect(abs(Double(split[2] * split[2] + split[45] * split[45]) - 0.25) < 1e-4)
        // Half the counts a pixel of a full pixel, over four pixels: 40 % of the loudness.
        let quieter = timbre.amplitudes(of: single.map { $0 * 0.4 * 4 }, pixels: 4)
        #expect(abs(Double(quieter[20]) - 0.2) < 1e-6)
        // A flat spectrum: the amplitudes add up to no more than the peak.
        let flat = timbre.amplitudes(of: [Double](repeating: 5, count: 96), pixels: 1)
        #expect(abs(flat.reduce(0, +) - 0.9) < 1e-5)
        // Negative counts count as none; no counts are silence.
        #expect(timbre.amplitudes(of: single.map { -$0 }, pixels: 1).allSatisfy { $0 == 0 })
        #expect(timbre.amplitudes(of: [], pixels: 1) == [Float](repeating: 0, count: 48))
    }

    @Test func theFullLoudnessIsTheImagesNinetyNinthPercentileOfTotalCounts() throws {
        let voice = SpectrumVoice(cube: Self.edsCube(), profile: .plainMapping)
        let totals = try voice.cube.totalCounts().values.sorted()
        let timbre = try voice.timbre()
        #expect(timbre.fullCounts == totals[Int((0.99 * Double(totals.count - 1)).rounded(.up))])
        // The left half's spectrum peaks in titanium Kα's band, the right half's in copper Kα's.
        let left = try voice.levels(SpectrumRequest(x: 1, y: 2, radius: 1)).amplitudes
        let right = try voice.levels(SpectrumRequest(x: 6, y: 2, radius: 0)).amplitudes
        #expect(left.firstIndex(of: left.max()!) == 21 && right.firstIndex(of: right.max()!) == 37)
        #expect(try voice.levels(SpectrumRequest(x: 7, y: 5, radius: 0)).amplitudes.allSatisfy { $0 == 0 })
        #expect(SpectrumRequest.radius(pressure: 0) == 0 && SpectrumRequest.radius(pressure: 0.3) == 1)
        #expect(SpectrumRequest.radius(pressure: 0.6) == 2 && SpectrumRequest.radius(pressure: 1) == 3)
    }

    @Test func theBankDeclaresItsParametersAndCrossfadesEveryBandInAStraightLine() {
        #expect(SpectrumBank.crossfadeDef.unit == .seconds && SpectrumBank.crossfadeDef.defaultValue == 0.03)
        #expect(SpectrumBank.lowestDef.defaultValue == 100 && SpectrumBank.highestDef.defaultValue == 5000)
        #expect(SpectrumBank.gainDef.range == 0...1 && SpectrumBank.amplitudeDef.range == 0...1)
        let bank = SpectrumBank(sampleRate: 48000, rampSamples: 240, crossfade: 0.01)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 960)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: 960)
        defer { left.deallocate(); right.deallocate() }
        func render(_ frames: Int) -> [Float] {
            left.update(repeating: 0, count: frames)
            right.update(repeating: 0, count: frames)
            bank.process(StereoBuffer(left: left, right: right), frames: frames)
            return Array(UnsafeBufferPointer(start: left, count: frames))
        }
        var amplitudes = [Float](repeating: 0, count: 48)
        amplitudes[10] = 0.4
        amplitudes[11] = .nan
        amplitudes[12] = 7
        amplitudes.withUnsafeBufferPointer { bank.setAmplitudes($0.baseAddress!) }
        // Silent while its gain is 0: the crossfade is over at once.
        #expect(render(480).allSatisfy { $0 == 0 })
        #expect(bank.amplitude(band: 10) == Double(Float(0.4)) && bank.amplitude(band: 11) == 0)
        #expect(bank.amplitude(band: 12) == 1)
        bank.gain.glide(to: 1)
        let rising = render(960)
        #expect(rising.allSatisfy { $0.isFinite && abs($0) <= 1.41 })
        #expect(abs(rising[0]) < 1e-3, "comes in from silence")
        // Another spectrum: half-way through the crossfade, each band is half-way.
        amplitudes[10] = 0
        amplitudes[12] = 0.2
        amplitudes.withUnsafeBufferPointer { bank.setAmplitudes($0.baseAddress!) }
        _ = render(240)
        #expect(abs(bank.amplitude(band: 10) - 0.2) < 1e-3 && abs(bank.amplitude(band: 12) - 0.6) < 1e-3)
        _ = render(240)
        #expect(bank.amplitude(band: 10) == 0 && bank.amplitude(band: 12) == Double(Float(0.2)))
        // No step between blocks: the largest change from one sample to the next stays small.
        let steady = render(960)
        let largestStep = zip(steady.dropFirst(), steady).map { abs($0 - $1) }.max()!
        #expect(largestStep < 0.03)
    }

    @Test func spectraReachTheEngineThroughTheControlsAndSoundAtTheirBands() {
        let controls = SynthControls()
        let engine = SynthEngine(chain: Profile.plainMapping.chain, sampleRate: 48000, controls: controls)
        var amplitudes = [Float](repeating: 0, count: 48)
        amplitudes[21] = 0.5
        controls.setSpectrum(amplitudes, at: SynthControls.immediately)
        controls.set(SynthTargets(spectrum: 1), at: SynthControls.immediately)
        #expect(controls.targets.spectrum == 1)
        let frames = 48000 / 2
        let output = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { output.deallocate() }
        engine.render(into: output, frames: frames, channels: 1)
        let sound = Array(UnsafeBufferPointer(start: output + frames / 2, count: frames / 2))
        // Its energy is at band 21's 577 Hz, not at the pen's tone (silent) nor elsewhere.
        func power(at frequency: Double) -> Double {
            var re = 0.0, im = 0.0
            for (i, s) in sound.enumerated() {
                let phase = 2 * Double.pi * frequency * Double(i) / 48000
                re += Double(s) * Double.cos(phase)
                im += Double(s) * Double.sin(phase)
            }
            return (re * re + im * im) / Double(sound.count * sound.count)
        }
        let band = SpectrumBank.frequency(band: 21)
        #expect(power(at: band) > 100 * power(at: SpectrumBank.frequency(band: 30)))
        #expect(power(at: band) > 0.01)
    }

    @Test func theSpectrumModeComesAfterTheProfilesModesOnlyForSpectra() {
        let (plain, _) = Self.session(spectra: false)
        let (spectral, _) = Self.session()
        #expect(plain.instrument.modes == Profile.plainMapping.modes)
        #expect(spectral.instrument.modes == Profile.plainMapping.modes + [.spectrum])
        let last = spectral.instrument.modes.count
        #expect(
            spectral.handle(.chooseMode(last), at: 1) == [
                .mode(.spectrum), .speak("Mode \(last), spectrum.")
            ])
        #expect(plain.handle(.chooseMode(last), at: 1) == [.speak("There is no mode \(last).")])
    }

    @Test func thePenAsksForTheSpectrumUnderItWidenedByPressureAndPlaysItWhenRead() throws {
        let (controller, controls) = Self.session()
        _ = controller.handle(.chooseMode(controller.instrument.modes.count), at: 1)
        let first = controller.handle(Self.touch(2, x: 1.2, y: 2.4, pressure: 0.1))
        #expect(first.contains(.fetchSpectrum(SpectrumRequest(x: 1, y: 2, radius: 0))))
        // The oscillators are silent; the bank comes in.
        #expect(controls.targets.amplitude == 0 && controls.targets.spectrum == 1)
        // The same pixel and radius again: no new request; pressing harder widens the neighbourhood.
        #expect(
            !controller.handle(Self.touch(2.1, x: 1.3, y: 2.4, pressure: 0.15)).contains { output in
                if case .fetchSpectrum = output { true } else { false }
            })
        #expect(
            controller.handle(Self.touch(2.2, x: 1.3, y: 2.4, pressure: 0.8)).contains(
                .fetchSpectrum(SpectrumRequest(x: 1, y: 2, radius: 3))))
        let levels = try controller.instrument.spectra!.levels(SpectrumRequest(x: 1, y: 2, radius: 3))
        #expect(controller.spectrumFetched(levels, at: 2.25) == [.spectrum(levels.request, time: 2.25)])
        // Lifted: silent; another mode: no spectra asked for.
        var lifted = Self.touch(3, x: 1.3, y: 2.4)
        lifted.buttons = PenButtons()
        _ = controller.handle(lifted)
        #expect(controls.targets.spectrum == 0)
        _ = controller.handle(.chooseMode(1), at: 4)
        #expect(
            !controller.handle(Self.touch(5, x: 5, y: 2)).contains {
                if case .fetchSpectrum = $0 { true } else { false }
            })
        #expect(controls.targets.spectrum == 0 && controls.targets.amplitude > 0)
    }

    @Test func whereAmISaysTheStrongestPeaksAndTheirLikelyElements() {
        let (controller, _) = Self.session()
        _ = controller.handle(.chooseMode(controller.instrument.modes.count), at: 1)
        _ = controller.handle(Self.touch(2, x: 1.2, y: 2.4))
        let said = controller.handle(.whereAmI, at: 3)
        #expect(said.count == 1)
        guard case .speak(let text) = said.first else { return }
        #expect(text.hasSuffix(". Peak at 4.51 kilo electron volts, titanium K alpha."), "\(text)")
        // Outside the spectrum mode, nothing of peaks.
        _ = controller.handle(.chooseMode(1), at: 4)
        guard case .speak(let plain) = controller.handle(.whereAmI, at: 5).first else { return }
        #expect(!plain.contains("Peak"))
    }

    @Test func peaksAreSpokenWithTheirUnitOnceAndTheirNames() {
        func peak(_ position: Double, _ spoken: String?) -> SpectrumPeak {
            SpectrumPeak(channel: 0, position: position, height: 1, prominence: 1, line: nil, spokenLine: spoken)
        }
        #expect(
            Phrases.peaks([peak(4.5109, "titanium K alpha"), peak(8.04, "copper K alpha")], units: "keV")
                == "Peaks at 4.51 kilo electron volts, titanium K alpha, and 8.04, copper K alpha.")
        #expect(
            Phrases.peaks([peak(456, "titanium L edge"), peak(532.4, nil), peak(100, nil)], units: "eV")
                == "Peaks at 456 electron volts, titanium L edge, 532, unidentified, and 100, unidentified.")
        #expect(Phrases.peaks([peak(612.5, nil)], units: "") == "Peak at 613.")
        #expect(Phrases.peaks([], units: "keV") == "No peaks.")
    }

    @Test func spectrumRecordsRoundTripAndBrokenOnesAreRejectedInOneLine() throws {
        let record = SessionRecord.spectrum(t: 12.5, SpectrumRequest(x: 40, y: 3, radius: 2))
        #expect(record.jsonLine == #"{"type":"spectrum","t":12.5,"px":40,"py":3,"radius":2}"#)
        func decode(_ line: String) throws(SessionLogError) -> SessionRecord? {
            try decodeLogLine(line, name: "s.jsonl", number: 7)
        }
        #expect(try decode(record.jsonLine) == record)
        for (line, message) in [
            (#"{"type":"spectrum","t":1,"px":1,"py":2,"radius":4}"#, #"s.jsonl:7: "radius" must be between 0 and 3"#),
            (#"{"type":"spectrum","t":1,"px":-1,"py":2,"radius":0}"#, #"s.jsonl:7: "px" must be between 0 and 65535"#),
            (#"{"type":"spectrum","t":1,"px":1.5,"py":2,"radius":0}"#, #"s.jsonl:7: "px" must be a whole number"#),
            (#"{"type":"spectrum","t":1,"px":1,"radius":0}"#, #"s.jsonl:7: "py" must be a number"#)
        ] {
            #expect(throws: SessionLogError(message: message)) { try decode(line) }
        }
        // A spectrum beyond the image the log played is refused.
        var check = SessionLogCheck()
        try check.admit(
            .start(
                StartRecord(
                    t: 1, image: "/x.hspy", width: 48, height: 40, bitDepth: 32, sampleType: "float32", profile: "p",
                    sampleRate: 48000)), place: "s.jsonl:1")
        try check.admit(record, place: "s.jsonl:2")
        #expect(check.playsSpectra)
        #expect(throws: SessionLogError(message: "s.jsonl:3: the spectrum's pixel is outside the image")) {
            try check.admit(.spectrum(t: 13, SpectrumRequest(x: 48, y: 0, radius: 0)), place: "s.jsonl:3")
        }
    }

    /// `render` makes each logged spectrum at its time, read again from the file: the same samples as the session's
    /// own changes, made live through the same controls, give.
    @Test func aReplayedSpectrumSessionSoundsAsTheLiveTargetsDo() throws {
        let cube = Self.edsCube()
        let image = try cube.totalCounts().image
        let start = StartRecord(
            t: 100, image: "/eds.hspy", width: 8, height: 6, bitDepth: 32, sampleType: "float32", profile: "default",
            sampleRate: 48000)
        let request = SpectrumRequest(x: 1, y: 2, radius: 1)
        var buttons = PenButtons()
        buttons.insert(PenButtons.tip)
        let pen = PenRecord(
            t: 100.1, rootX: 1, rootY: 2, imageX: 1, imageY: 2, inImage: true, sample: 0, level: 0, pressure: 0.3,
            tiltX: 0, tiltY: 0, buttons: buttons, mode: "spectrum", frequency: 0, amplitude: 1)
        let records: [SessionRecord] = [
            .viewport(t: 100, Viewport(originX: 0, originY: 0, scale: 1)), .mode(t: 100.05, .spectrum), .pen(pen),
            .spectrum(t: 100.104, request)
        ]
        func rendered() -> [Float] {
            let replay = SessionReplay(
                image: image, profile: .plainMapping, sampleRate: 48000, speech: nil, start: start,
                spectra: SpectrumVoice(cube: cube, profile: .plainMapping))
            var sound: [Float] = []
            for record in records { replay.play(record) { sound += $0 } }
            replay.play(.cursor(t: 100.4, nil)) { sound += $0 }
            return sound
        }
        let first = rendered()
        #expect(first == rendered())
        // The bank sounds titanium Kα's band once the spectrum is made.
        let after = Array(first[(2 * 48000 * 2 / 10)...])
        #expect(after.contains { abs($0) > 0.05 })
    }

    @Test func theWindowKeysMoveAndWidenTheWindowSayItAndAskForItsMap() throws {
        let (controller, _) = Self.session()
        // No window chosen: the keys start from the strongest identified line, copper Kα; above it lies nothing.
        let first = controller.handle(key: "]", at: 1)
        let axis = controller.instrument.spectra!.cube.spectralAxis
        let lines = controller.instrument.spectra!.lineWindows()
        let start = try #require(lines.strongest)
        #expect(abs((start.start + start.end) / 2 - 8.0478) < 1e-9)
        let up = try #require(start.moved(by: 1, on: axis))
        #expect(abs(up.start - start.end) < 1e-9)
        #expect(
            first == [
                .speak(
                    "Window 8.2 to 8.5 kilo electron volts. The window holds no significant signal above the "
                        + "background."), .makeWindowMap(up)
            ])
        // The next key steps from the window asked for, even before its map is made.
        let wider = try #require(up.scaled(by: 1.5, on: axis))
        #expect(controller.handle(key: "}", at: 2).last == .makeWindowMap(wider))
        #expect(abs((wider.end - wider.start) - 1.5 * (up.end - up.start)) < 1e-9)
        #expect(abs((wider.start + wider.end) - (up.start + up.end)) < 1e-9)
        // Its map made: it plays and shows, logged; the pen sounds it.
        let map = controller.instrument.preparation.prepare(
            try wider.map(of: controller.instrument.spectra!.cube), ownStretch: true)
        let made = controller.windowMapMade(map, for: wider, at: 3)
        #expect(made.prefix(2) == [.window(wider, time: 3), .windowMap(map)])
        #expect(controller.instrument.image == map.image && controller.state.window == wider)
        // A window on titanium Kα is named by it; at the axis's end it goes no further.
        var titanium = PlayedWindow(start: 4.36, end: 4.66)
        #expect(
            Phrases.window(titanium, units: "keV", feature: lines.feature(of: titanium))
                == "Window 4.36 to 4.66 kilo electron volts, titanium K alpha.")
        #expect(lines.feature(of: PlayedWindow(start: 6, end: 6.3)) == nil)
        titanium.background = true
        #expect(
            Phrases.window(titanium, units: "eV", feature: nil)
                == "Window 4.36 to 4.66 electron volts, background taken away.")
        #expect(PlayedWindow(start: 9.9, end: 10.2).moved(by: 1, on: axis) == nil)
        #expect(PlayedWindow(start: 0, end: 0.01).scaled(by: 1 / 1.5, on: axis) == nil)
        #expect(PlayedWindow(start: 0, end: 10.24).scaled(by: 1.5, on: axis) == nil)
        // Without spectra the keys say so.
        let (plain, _) = Self.session(spectra: false)
        #expect(plain.handle(key: "[", at: 1) == [.speak("Only a spectrum image has an energy window.")])
    }

    /// E and Shift+E step the window from one identified element's line to the next: from copper Kα, the strongest,
    /// down to titanium Kα and back.
    @Test func theLineKeysStepFromOneIdentifiedLineToTheNext() throws {
        let (controller, _) = Self.session()
        #expect(controller.handle(key: "E", at: 1) == [.speak("No further line of an element the spectra hold.")])
        let titanium = controller.handle(key: "Shift+E", at: 2)
        #expect(titanium.first == .speak("Window 4.4 to 4.63 kilo electron volts, titanium K alpha."), "\(titanium)")
        let copper = controller.handle(key: "E", at: 3)
        #expect(copper.first == .speak("Window 7.9 to 8.2 kilo electron volts, copper K alpha."), "\(copper)")
        // Spectra of a continuum alone name no line.
        let flat = SpectrumCube(
            source: ArraySpectra(width: 4, height: 4, channels: 1024) { _, _, _ in 5 },
            spectralAxis: SignalAxis(name: "Energy", size: 1024, scale: 0.01, units: "keV", navigation: false),
            spectroscopy: .eds)
        let none = SpectrumVoice(cube: flat, profile: .plainMapping).lineWindows()
        #expect(none.windows.isEmpty && none.strongest == nil)
    }

    @Test func aWindowsMapTakesTheBackgroundBelowItAwayWhenAsked() throws {
        let cube = Self.edsCube()
        let plain = try PlayedWindow(start: 4.36, end: 4.66).map(of: cube)
        let corrected = try PlayedWindow(start: 4.36, end: 4.66, background: true).map(of: cube)
        let expected = try cube.map(436..<466, background: 406..<436).image
        let unchanged = try cube.map(436..<466).image
        #expect(corrected == expected && plain == unchanged)
        // At the axis's start there is no room below: no background.
        let lowest = try PlayedWindow(start: 0, end: 0.3, background: true).map(of: cube)
        let lowestWithout = try cube.map(0..<30).image
        #expect(lowest == lowestWithout)
    }

    @Test func windowRecordsRoundTripAndBrokenOnesAreRejected() throws {
        let record = SessionRecord.window(t: 3.25, PlayedWindow(start: 4.36, end: 4.66, background: true))
        #expect(record.jsonLine == #"{"type":"window","t":3.25,"start":4.36,"end":4.66,"background":true}"#)
        func decode(_ line: String) throws(SessionLogError) -> SessionRecord? {
            try decodeLogLine(line, name: "s.jsonl", number: 2)
        }
        #expect(try decode(record.jsonLine) == record)
        #expect(
            try decode(#"{"type":"window","t":1,"start":1,"end":2}"#)
                == .window(t: 1, PlayedWindow(start: 1, end: 2)))
        #expect(throws: SessionLogError(message: #"s.jsonl:2: a window's "end" must be above its "start""#)) {
            try decode(#"{"type":"window","t":1,"start":2,"end":2}"#)
        }
        #expect(throws: SessionLogError(message: #"s.jsonl:2: "end" must be a number"#)) {
            try decode(#"{"type":"window","t":1,"start":2}"#)
        }
    }

    /// Another image put in the session's place reaches the sweeps through the controls: a black image's sweep is
    /// silent, the bright image put in its place sweeps loud, and the engine says which tables it holds.
    @Test func anotherImageReachesTheSweepsThroughTheControls() {
        let black = GrayImage(width: 16, height: 16, sampleType: .float32, samples: [Float](repeating: 0, count: 256))
        let bright = GrayImage(
            width: 16, height: 16, sampleType: .float32, samples: (0..<256).map { Float($0 % 16 < 8 ? 1000 : 0) })
        let stack = SoundStack(profile: .plainMapping, sampleRate: 48000, speechSeconds: 1)
        let sound = stack.sound(playing: black)
        var state = sound.instrument.initialState
        let frames = 24000
        let output = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { output.deallocate() }
        func sweptLoudness() -> Double {
            sound.apply(.sweep(.image), to: &state, at: SynthControls.immediately)
            stack.renderer.render(into: output, frames: frames, channels: 1)
            sound.apply(.sweep(nil), to: &state, at: SynthControls.immediately)
            return UnsafeBufferPointer(start: output, count: frames).map { Double(abs($0)) }.max() ?? 0
        }
        #expect(sweptLoudness() < 1e-4)
        sound.apply(
            .playedImage(sound.instrument.preparation.prepare(bright, ownStretch: true)), to: &state,
            at: SynthControls.immediately)
        #expect(sound.instrument.image == bright)
        #expect(sweptLoudness() > 0.05)
    }
}
