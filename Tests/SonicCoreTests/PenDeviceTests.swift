import Foundation
import Testing

@testable import SonicCore

@Suite struct PenDeviceTests {
    /// The wacom stylus as X reports it (see pen-tablet's README).
    let wacom: [Valuator] = [
        Valuator(number: 0, label: "Abs X", minimum: 0, maximum: 19199, resolution: 100_000),
        Valuator(number: 1, label: "Abs Y", minimum: 0, maximum: 10799, resolution: 100_000),
        Valuator(number: 2, label: "Abs Pressure", minimum: 0, maximum: 65536, resolution: 1),
        Valuator(number: 3, label: "Abs Tilt X", minimum: -64, maximum: 63, resolution: 57),
        Valuator(number: 4, label: "Abs Tilt Y", minimum: -64, maximum: 63, resolution: 57),
        Valuator(number: 5, label: "Abs Wheel", minimum: -900, maximum: 899, resolution: 1)
    ]

    @Test func axesAreFoundByLabelWhateverTheOrder() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<20 {
            // Shuffle both the listing order and the valuator numbers.
            let numbers = Array(0..<wacom.count).shuffled(using: &random)
            var shuffled = wacom.enumerated().map { index, v in
                Valuator(
                    number: numbers[index], label: v.label, minimum: v.minimum, maximum: v.maximum,
                    resolution: v.resolution)
            }
            shuffled.shuffle(using: &random)
            var device = PenDevice(valuators: shuffled)
            let pressureNumber = shuffled.first { $0.label == "Abs Pressure" }!.number
            let tiltXNumber = shuffled.first { $0.label == "Abs Tilt X" }!.number
            let tiltYNumber = shuffled.first { $0.label == "Abs Tilt Y" }!.number
            #expect(device.pressureAxis?.number == pressureNumber)
            // Every axis gets a distinctive value; only the labelled ones may come through.
            for v in shuffled { device.update(number: v.number, value: 1000 + Double(v.number)) }
            device.update(number: pressureNumber, value: 16384)
            device.update(number: tiltXNumber, value: 57)
            device.update(number: tiltYNumber, value: -28.5)
            #expect(device.pressure(buttons: PenButtons()) == 0.25)
            #expect(abs(device.tiltXDegrees - 180 / Double.pi) < 1e-12) // 57 units = 1 rad
            #expect(abs(device.tiltYDegrees + 90 / Double.pi) < 1e-12)
        }
    }

    @Test func pressureIsScaledByTheReportedRange() {
        var device = PenDevice(valuators: [
            Valuator(number: 7, label: "Abs Pressure", minimum: 100, maximum: 1123, resolution: 0)
        ])
        device.update(number: 7, value: 100)
        #expect(device.pressure(buttons: PenButtons()) == 0)
        device.update(number: 7, value: 1123)
        #expect(device.pressure(buttons: PenButtons()) == 1)
        device.update(number: 7, value: 611.5)
        #expect(device.pressure(buttons: PenButtons()) == 0.5)
        device.update(number: 7, value: 5000) // out of range clamps
        #expect(device.pressure(buttons: PenButtons()) == 1)
    }

    @Test func tiltWithoutResolutionIsAlreadyDegrees() {
        var device = PenDevice(valuators: [
            Valuator(number: 0, label: "Abs Tilt X", minimum: -64, maximum: 64, resolution: 0)
        ])
        device.update(number: 0, value: -30)
        #expect(device.tiltXDegrees == -30)
        #expect(device.tiltYDegrees == 0)
    }

    @Test func aMouseWithoutPressurePressesFullyWhileTheTipButtonIsHeld() {
        let mouse = PenDevice(valuators: [
            Valuator(number: 0, label: "Rel X", minimum: -1, maximum: -1, resolution: 0),
            Valuator(number: 1, label: "Rel Y", minimum: -1, maximum: -1, resolution: 0)
        ])
        #expect(!mouse.hasPressure)
        var buttons = PenButtons()
        #expect(mouse.pressure(buttons: buttons) == 0)
        buttons.insert(PenButtons.tip)
        #expect(mouse.pressure(buttons: buttons) == 1)
        buttons.insert(PenButtons.lowerBarrel)
        buttons.remove(PenButtons.tip)
        #expect(mouse.pressure(buttons: buttons) == 0)
    }

    @Test func valuesPersistUntilTheAxisChanges() {
        var device = PenDevice(valuators: wacom)
        device.update(number: 2, value: 32768)
        device.update(number: 0, value: 5000) // a later event carrying only X
        #expect(device.pressure(buttons: PenButtons()) == 0.5)
    }

    @Test func buttonSetListsHeldButtons() {
        var b = PenButtons()
        b.insert(3); b.insert(1); b.insert(40)
        #expect(b.list == [1, 3])
        #expect(b.contains(3) && !b.contains(2))
    }
}
