import Foundation
import Testing
@testable import SonicCore

@Suite struct InstrumentTests {
    /// 4×1 image 0, 100, 200, 300 shown at scale 10 from (0, 0).
    func makeInstrument() -> (Instrument, SynthControls) {
        let image = GrayImage(width: 4, height: 1, bitDepth: 16, samples: [0, 100, 200, 300])
        let controls = SynthControls()
        let instrument = Instrument(image: image, profile: .builtIn, statistics: SampleStatistics(image),
                                    viewport: Viewport(originX: 0, originY: 0, scale: 10), controls: controls)
        return (instrument, controls)
    }

    func pen(x: Double, y: Double = 5, tip: Bool, pressure: Double = 0.5, inWindow: Bool = true) -> PenEvent {
        var buttons = PenButtons()
        if tip { buttons.insert(PenButtons.tip) }
        return PenEvent(time: 1, rootX: x, rootY: y, pressure: tip ? pressure : 0, tiltX: 3, tiltY: -4,
                        buttons: buttons, inWindow: inWindow)
    }

    @Test func touchingSoundsThePixelUnderTheNib() {
        let (instrument, controls) = makeInstrument()
        let record = instrument.handle(pen(x: 25, tip: true))
        #expect(record.sample == 200 && record.inImage)
        #expect(record.imageX == 2 && record.imageY == 0)
        #expect(abs(record.level - 2.0 / 3) < 1e-12)     // percentiles 0.5/99.5 of 4 samples: 0 and 300
        #expect(abs(record.frequency - 110 * pow(16, 2.0 / 3)) < 1e-9)
        #expect(abs(controls.targets.frequency - record.frequency) < 1e-12)
        #expect(controls.targets.amplitude == 0.5 && record.amplitude == 0.5)
    }

    @Test func liftedHoveringOutsideOrLeftIsSilent() {
        let (instrument, controls) = makeInstrument()
        for event in [pen(x: 25, tip: false), pen(x: 45, tip: true), pen(x: 25, y: -1, tip: true),
                      pen(x: 25, tip: true, inWindow: false), pen(x: 25, tip: true, pressure: 0)] {
            instrument.handle(pen(x: 5, tip: true))
            let record = instrument.handle(event)
            #expect(record.frequency == 0 && record.amplitude == 0)
            #expect(controls.targets.amplitude == 0)
        }
    }

    @Test func recordCarriesThePenState() {
        let (instrument, _) = makeInstrument()
        let record = instrument.handle(pen(x: 12.5, tip: true))
        #expect(record.rootX == 12.5 && record.tiltX == 3 && record.tiltY == -4 && record.pressure == 0.5)
        #expect(record.buttons.list == [1] && record.mode == "intensity-pitch")
        #expect(record.imageX == 0.75)
    }
}
