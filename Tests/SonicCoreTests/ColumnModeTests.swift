import Foundation
import Testing

@testable import SonicCore

/// The column modes on a made-up perovskite-like lattice: heavy columns 20 px apart, the one at (110, 110) 1.3 times
/// as bright as the others, and light ones at the cells' centres, shifted 0.5 px right in the left half and 0.5 px
/// left in the right half — two polar domains of the same size.
@Suite struct ColumnModeTests {
    static let spacing = 20 / 2.0.squareRoot()

    /// The centre of the light column in cell (n, m).
    static func light(_ n: Int, _ m: Int) -> (x: Double, y: Double) {
        (20 + 20 * Double(n) + (n < 4 ? 0.5 : -0.5), 20 + 20 * Double(m))
    }

    static func lattice(pixelSize: PixelSize? = nil) -> LatticeColumns {
        var columns: [AtomColumn] = []
        for m in 0..<9 {
            for n in 0..<9 {
                let peak: Double = n == 5 && m == 5 ? 1300 : 1000
                columns.append(
                    AtomColumn(x: 10 + 20 * Double(n), y: 10 + 20 * Double(m), peak: peak, quality: 1, sigma: 3))
                if n < 8 && m < 8 {
                    let p = light(n, m)
                    columns.append(AtomColumn(x: p.x, y: p.y, peak: 400, quality: 1, sigma: 3))
                }
            }
        }
        return LatticeColumns(
            LatticeAnalysis(columns: columns, spacing: spacing, width: 200, height: 200), spacing: spacing,
            pixelSize: pixelSize)
    }

    static func profile(_ modes: [Mode]) throws -> Profile {
        let order = modes.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        return try Profile(name: "test", file: "test.toml", text: "[modes]\norder = [\(order)]\n")
    }

    /// A blank 200 × 200 image played with `modes`, shown at scale 1 from (0, 0).
    static func player(_ modes: [Mode]) throws -> TestPlayer {
        TestPlayer(
            GrayImage(width: 200, height: 200, bitDepth: 16, samples: [UInt16](repeating: 100, count: 40_000)),
            profile: try profile(modes))
    }

    static func touch(_ x: Double, _ y: Double) -> PenEvent {
        var buttons = PenButtons()
        buttons.insert(PenButtons.tip)
        return PenEvent(
            time: 1, rootX: x, rootY: y, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: buttons, inWindow: true)
    }

    @Test func columnIntensityPitchesEachColumnByItsBrightnessAndIsQuietBetween() throws {
        let player = try Self.player([.columnIntensity])
        // Before the lattice is known: silence.
        #expect(player.handle(Self.touch(110, 110)).amplitude == 0)
        player.set(lattice: Self.lattice())
        let dopant = player.handle(Self.touch(111, 109))
        #expect(abs(dopant.frequency - 440 * pow(2, 0.5)) < 1e-6 && dopant.amplitude == 0.5)
        let dopantNote = player.targets.note
        let usual = player.handle(Self.touch(70, 110))
        #expect(usual.amplitude == 0.5)
        #expect(abs(usual.frequency - 440) < 1e-6)
        #expect(player.targets.note != dopantNote, "each column is a note of its own")
        // Between columns, beyond the reach of 0.3 spacings: quiet.
        #expect(player.handle(Self.touch(100, 110)).amplitude == 0)
    }

    @Test func latticeDisplacementPitchesHowFarAndPansWhichWay() throws {
        let player = try Self.player([.latticeDisplacement])
        let lattice = Self.lattice(pixelSize: PixelSize(picometres: 20))
        #expect(lattice.analysis.sublatticeCount == 2)
        player.set(lattice: lattice)
        // 0.5 px at 20 pm a pixel: 10 pm, a fifth of the full scale of 50 pm.
        let left = Self.light(6, 3)
        let leftRecord = player.handle(Self.touch(left.x, left.y))
        #expect(abs(leftRecord.frequency - 220 * pow(2, 2 * 10.0 / 50)) < 1e-6)
        #expect(abs(player.targets.pan + 0.8) < 1e-6)
        // Neither up (all of tilt-filter's FM index of 6) nor down (none): half of it.
        #expect(abs((player.targets.timbre ?? 0) - 3) < 1e-6)
        let right = Self.light(1, 3)
        let rightRecord = player.handle(Self.touch(right.x, right.y))
        #expect(abs(rightRecord.frequency - leftRecord.frequency) < 1e-6)
        #expect(abs(player.targets.pan - 0.8) < 1e-6)
        // A heavy column on its site: the lowest pitch, in the middle.
        let heavy = player.handle(Self.touch(70, 70))
        #expect(abs(heavy.frequency - 220) < 1e-3 && abs(player.targets.pan) < 1e-3)
    }

    @Test func theModesSayWhatTheyNeedUntilThereIsALattice() throws {
        let player = try Self.player([.intensityPitch, .columnIntensity, .latticeDisplacement])
        let controller = SessionController(sound: player.sound, opened: OpenedImage(fileName: "test.png"))
        func speech(_ outputs: [ControllerOutput]) -> [String] {
            outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
        }
        #expect(
            speech(controller.handle(key: "2", at: 1))
                == ["Mode 2, column intensity. This mode needs the lattice, which is still being found."])
        let none = LatticeColumns(
            LatticeAnalysis(columns: [], spacing: 0, width: 200, height: 200), spacing: 0, pixelSize: nil)
        _ = controller.setColumns([], lattice: none)
        #expect(
            speech(controller.handle(key: "3", at: 2))
                == [
                    "Mode 3, lattice displacement. This mode needs atom columns on a lattice, and this image shows none."
                ])
        let lattice = Self.lattice()
        _ = controller.setColumns(
            lattice.analysis.columns.map { ImagePoint(x: $0.column.x, y: $0.column.y) }, lattice: lattice)
        #expect(speech(controller.handle(key: "2", at: 3)) == ["Mode 2, column intensity."])
        // Where am I, on the dopant; the arrow keys step from column to column and say the same.
        _ = controller.handle(Self.touch(110, 110))
        let here = speech(controller.handle(key: "Space", at: 4))
        #expect(here.first?.hasSuffix(", column intensity 1.30 times its sublattice's median") == true, "\(here)")
        let step = speech(controller.handle(key: "Right", at: 5))
        #expect(step.first?.hasPrefix("Column at x 110.0, y 110.0") == true, "\(step)")
        #expect(step.first?.hasSuffix(", column intensity 1.30 times its sublattice's median.") == true, "\(step)")
        _ = controller.handle(key: "3", at: 6)
        let left = Self.light(6, 3)
        _ = controller.handle(Self.touch(left.x, left.y))
        let displaced = speech(controller.handle(key: "Space", at: 7))
        #expect(displaced.first?.hasSuffix(", displaced 0.5 pixels, towards the left") == true, "\(displaced)")
        // Between columns.
        _ = controller.handle(Self.touch(40, 30))
        #expect(speech(controller.handle(key: "Space", at: 8)).first?.hasSuffix(", between columns") == true)
    }

    @Test func displacementsAreSpokenInPicometresAndEightWays() {
        let size = PixelSize(picometres: 18)
        #expect(
            Phrases.displaced(PixelVector(x: -0.55, y: -0.55), pixelSize: size)
                == "displaced 14 picometres, towards the upper left")
        #expect(
            Phrases.displaced(PixelVector(x: 0, y: 0.83), pixelSize: size)
                == "displaced 15 picometres, towards the bottom")
        #expect(Phrases.displaced(PixelVector(x: 1, y: 0), pixelSize: nil) == "displaced 1.0 pixels, towards the right")
        #expect(Phrases.displaced(PixelVector(x: 0.01, y: 0), pixelSize: size) == "on its ideal site")
    }

    @Test func theLatticeRecordRoundTrips() throws {
        for record in [
            SessionRecord.lattice(t: 12.5, pixelSize: PixelSize(picometres: 18)), .lattice(t: 13, pixelSize: nil)
        ] {
            var decoder = SessionLogDecoder(name: "log.jsonl")
            let line = Array(record.jsonLine.utf8)
            #expect(try line.withUnsafeBufferPointer { try decoder.decode($0, number: 1) } == record)
        }
        #expect(
            SessionRecord.lattice(t: 1, pixelSize: PixelSize(picometres: 18)).jsonLine
                == #"{"type":"lattice","t":1,"pixelSize":18}"#)
    }
}
