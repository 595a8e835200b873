import Testing

@testable import SonicCore

/// The panel a sighted colleague sees.
@Suite struct StatusPanelTests {
    @Test func hiddenItShowsNothingShownItSaysWhatIsHeard() {
        var panel = StatusPanel()
        #expect(
            panel.lines(modeNumber: 2, mode: .pressureAmplitude, pen: nil, zoom: 1.5, tagCount: 3, soundPlays: true)
                .isEmpty)
        panel.shown = true
        #expect(
            panel.lines(modeNumber: 2, mode: .pressureAmplitude, pen: nil, zoom: 1.5, tagCount: 3, soundPlays: true)
                == ["Mode 2: pressure amplitude", "Zoom 1.5 times   Tags 3"])
        let pen = PenRecord(
            t: 0, rootX: 0, rootY: 0, imageX: 12.34, imageY: 5, inImage: true, sample: 0, level: 0.5,
            pressure: 0.25, tiltX: 10.4, tiltY: -3, buttons: PenButtons(), mode: "pressure-amplitude",
            frequency: 440, amplitude: 0.2)
        #expect(
            panel.lines(modeNumber: 2, mode: .pressureAmplitude, pen: pen, zoom: 1, tagCount: 0, soundPlays: true)
                == [
                    "Mode 2: pressure amplitude", "Pitch 440.0 Hz (A4)", "Level 50 %   x 12.3, y 5.0",
                    "Pressure 25 %   Tilt 10°, -3°", "Zoom 1 time   Tags 0"
                ])
        #expect(
            panel.lines(
                modeNumber: 1, mode: .intensityPitch, pen: nil, zoom: 1, tagCount: 0, soundPlays: true,
                diffractogram: true) == ["Mode 1: intensity pitch", "Diffractogram", "Zoom 1 time   Tags 0"])
    }
}
