import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// The diffractogram view on a 64 × 64 image of fringes 8 pixels apart along x and along y, with a little noise:
/// its reflections lie 8 steps right, left, below and above the diffractogram's centre (32, 32).
@Suite struct DiffractogramViewTests {
    static func fringes(width: Int = 64, height: Int = 64) -> GrayImage {
        var random = SeededRandom(seed: 7)
        var samples: [UInt16] = []
        for y in 0..<height {
            for x in 0..<width {
                let wave = 400 * cos(2 * Double.pi * Double(x) / 8) + 400 * cos(2 * Double.pi * Double(y) / 8)
                samples.append(UInt16(2000 + wave + 40 * random.gaussian()))
            }
        }
        return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
    }

    /// The pen touching image point (x, y), shown at scale 1 from (0, 0).
    static func touch(_ x: Double, _ y: Double, at time: Double = 1) -> PenEvent {
        var buttons = PenButtons()
        buttons.insert(PenButtons.tip)
        return PenEvent(
            time: time, rootX: x + 0.5, rootY: y + 0.5, pressure: 0.5, tiltX: 0, tiltY: 0, buttons: buttons,
            inWindow: true)
    }

    static func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    @Test func theKeyShowsTheDiffractogramWhichPlaysItsReflectionsHigherThanItsBackground() throws {
        let image = Self.fringes()
        let player = TestPlayer(image)
        let controller = player.controller(
            tags: TagBook(tags: [Tag(id: 1, x: 10, y: 10, snapped: true)]), pixelSize: PixelSize(picometres: 50))
        #expect(controller.overlay.marks.count == 1)
        let imagePitch = try #require(
            controller.handle(Self.touch(40, 32)).first { if case .pen = $0 { true } else { false } })
        let shownOutputs = controller.handle(key: "F", at: 2)
        let shownViews = shownOutputs.compactMap { if case .diffractogram(let shown?) = $0 { shown } else { nil } }
        let shown = try #require(shownViews.first)
        let reflections = shown.diffractogram.reflections
        #expect(Self.speech(shownOutputs) == ["Diffractogram, \(reflections.count) reflections."])
        #expect(reflections.contains { abs($0.spacing - 8) < 0.1 && abs($0.direction - 90) > 89 })
        #expect(reflections.contains { abs($0.spacing - 8) < 0.1 && abs($0.direction - 90) < 1 })
        #expect(player.instrument.image == shown.played.image && player.instrument.image.width == 64)
        // The still pen sounds the diffractogram under it at once: a reflection, higher than the background.
        #expect(shownOutputs.contains { if case .pen = $0 { true } else { false } })
        let onReflection = try #require(controller.handle(Self.touch(40, 32)).first.flatMap(Self.frequency))
        let onBackground = try #require(controller.handle(Self.touch(40, 10)).first.flatMap(Self.frequency))
        #expect(onReflection > 2 * onBackground, "\(onReflection) Hz against \(onBackground) Hz")
        #expect(Self.frequency(imagePitch) != onReflection)
        // Where am I names the reflection (its mate at (24, 32) too), or how far from the centre the nib is.
        _ = controller.handle(Self.touch(40, 32))
        let said = Self.speech(controller.handle(key: "Space", at: 3))
        #expect(
            said.first?.hasPrefix("reflection 400 picometres along 0 degrees, grain 1, intensity ") == true, "\(said)")
        _ = controller.handle(Self.touch(32, 24))
        #expect(
            Self.speech(controller.handle(key: "Space", at: 4)).first?.hasPrefix(
                "reflection 400 picometres along 90 degrees") == true)
        _ = controller.handle(Self.touch(48, 32))
        #expect(
            Self.speech(controller.handle(key: "Space", at: 5)).first?.hasPrefix(
                "no reflection, 5 per nanometre from the centre") == true)
        // Nothing of the image is drawn over it: not its tags.
        #expect(controller.overlay.marks.isEmpty)
        // The key again: the image plays again.
        let back = controller.handle(key: "F", at: 6)
        #expect(Self.speech(back) == ["Image."])
        #expect(back.contains(.diffractogram(nil)))
        #expect(player.instrument.image == image && controller.overlay.marks.count == 1)
        #expect(Self.speech(controller.handle(key: "Space", at: 7)).first?.hasPrefix("x 48, y 32, intensity") == true)
    }

    static func frequency(_ output: ControllerOutput) -> Double? {
        if case .pen(let record) = output { record.frequency } else { nil }
    }

    @Test func theStrainModePlaysTheDiffractogramAsAnImage() throws {
        let image = Self.fringes()
        let player = TestPlayer(image, profile: try ColumnModeTests.profile([.latticeStrain]))
        let controller = player.controller()
        // No lattice yet: the strain mode is quiet on the image, and the diffractogram plays as an image.
        #expect(controller.handle(Self.touch(40, 32)).first.flatMap(Self.frequency) == 0)
        _ = controller.handle(key: "F", at: 2)
        #expect((controller.handle(Self.touch(40, 32)).first.flatMap(Self.frequency) ?? 0) > 0)
    }

    @Test func anImageOfAnyShapeShowsItsDiffractogramAtItsOwnSize() {
        let image = Self.fringes(width: 48, height: 40)
        let shown = ShownDiffractogram(of: TestPlayer(image).instrument)
        #expect(shown.diffractogram.size == 64)
        #expect(shown.played.image.width == 48 && shown.played.image.height == 40)
        // Every peak shows, however the size changes.
        #expect(shown.played.image.samples.max() == shown.diffractogram.image.samples.max())
        // The centre of the picture is the diffractogram's.
        #expect(shown.frequency(at: ImagePoint(x: 24, y: 20)).length < 1.0 / 64)
    }

    @Test func aRenderPlaysTheDiffractogramWhileItWasShown() throws {
        let image = Self.fringes()
        // What the session heard, live, between the diffractogram's centre and a reflection, where the image is
        // half as bright as it gets.
        let player = TestPlayer(image)
        let controller = player.controller()
        let imageOnSpot = try #require(controller.handle(Self.touch(36, 32)).first.flatMap(Self.frequency))
        _ = controller.handle(key: "F", at: 2)
        let diffractogramOnSpot = try #require(controller.handle(Self.touch(36, 32)).first.flatMap(Self.frequency))
        #expect(abs(diffractogramOnSpot / imageOnSpot - 1) > 0.1)

        let start = StartRecord(
            t: 100, image: "/x.png", width: 64, height: 64, bitDepth: 16, sampleType: "uint16", profile: "default",
            sampleRate: 48000)
        func pen(_ t: Double, tip: Bool) -> SessionRecord {
            var buttons = PenButtons()
            if tip { buttons.insert(PenButtons.tip) }
            return .pen(
                PenRecord(
                    t: t, rootX: 36.5, rootY: 32.5, imageX: 36, imageY: 32, inImage: true, sample: 0, level: 0,
                    pressure: tip ? 0.5 : 0, tiltX: 0, tiltY: 0, buttons: buttons, mode: "intensity-pitch",
                    frequency: 0, amplitude: 0))
        }
        let records: [SessionRecord] = [
            .start(start), .viewport(t: 100, Viewport(originX: 0, originY: 0, scale: 1)),
            .view(t: 100.1, diffractogram: true), pen(100.5, tip: true), .view(t: 101.5, diffractogram: false),
            pen(101.5, tip: true), pen(102.5, tip: false)
        ]
        let stereo = replayed(records, start: start, image: image)
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let shownPitch = try #require(SignalAnalysis.zeroCrossingFrequency(left[30_000..<70_000], sampleRate: 48_000))
        let imagePitch = try #require(SignalAnalysis.zeroCrossingFrequency(left[80_000..<118_000], sampleRate: 48_000))
        #expect(abs(shownPitch / diffractogramOnSpot - 1) < 0.005, "\(shownPitch) Hz")
        #expect(abs(imagePitch / imageOnSpot - 1) < 0.005, "\(imagePitch) Hz")
    }

    @Test func theViewRecordRoundTrips() throws {
        for record in [SessionRecord.view(t: 3, diffractogram: true), .view(t: 4, diffractogram: false)] {
            #expect(try decodeLogLine(record.jsonLine, name: "log.jsonl", number: 1) == record)
        }
        #expect(
            SessionRecord.view(t: 3, diffractogram: true).jsonLine == #"{"type":"view","t":3,"shows":"diffractogram"}"#)
    }
}
