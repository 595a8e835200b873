import Foundation
import TestSupport
import Testing

@testable import SonicCore

@Suite struct ZoomControllerTests {
    @Test func keysZoomPanAndShowTheStatus() {
        let image = GrayImage(
            width: 1500, height: 900, bitDepth: 16, samples: (0..<1_350_000).map { UInt16($0 % 60000) })
        let c = SessionController(
            sound: TestPlayer(image, profile: .builtIn).sound, opened: OpenedImage(fileName: "big.png"))
        #expect(
            c.place(window: ScreenRect(x: 0, y: 0, width: 1920, height: 1080)) == [
                .viewport(Viewport(fitting: 1500, 900, into: ScreenRect(x: 0, y: 0, width: 1920, height: 1080)))
            ])
        func speech(_ o: [ControllerOutput]) -> [String] {
            o.compactMap { if case .speak(let t) = $0 { t } else { nil } }
        }
        #expect(speech(c.handle(key: "+", at: 1)) == ["Zoom 1.5 times."])
        #expect(speech(c.handle(key: "=", at: 2)) == ["Zoom 2 times."])
        #expect(speech(c.handle(key: "-", at: 3)) == ["Zoom 1.5 times."])
        #expect(speech(c.handle(key: "Left", at: 4)).first?.hasPrefix("Showing x ") == true)
        #expect(speech(c.handle(key: "0", at: 5)) == ["Zoom 1 time."])
        #expect(speech(c.handle(key: "-", at: 6)) == ["Zoom 1 time: the whole image."])
        #expect(speech(c.handle(key: "Left", at: 7)) == ["The whole image is in view."])
        #expect(c.overlay.status.isEmpty)
        #expect(speech(c.handle(key: "H", at: 8)) == ["Status panel shown."])
        #expect(c.overlay.status.first == "Mode 1: intensity pitch" && c.overlay.status.last == "Zoom 1 time   Tags 0")
    }

    @Test func controlPlusAndMinusSizeTheTextFromTheProfilesSize() throws {
        let image = GrayImage(width: 40, height: 30, bitDepth: 16, samples: [UInt16](repeating: 7, count: 1200))
        let profile = try Profile(name: "large", file: "large.toml", text: "[display]\ntext_size = 2.5\n")
        let c = SessionController(
            sound: TestPlayer(image, profile: profile).sound, opened: OpenedImage(fileName: "small.png"))
        func speech(_ o: [ControllerOutput]) -> [String] {
            o.compactMap { if case .speak(let t) = $0 { t } else { nil } }
        }
        #expect(c.overlay.textSize.scale == 2.5)
        #expect(speech(c.handle(key: "Ctrl++", at: 1)) == ["Text 3 times."])
        #expect(c.overlay.textSize.scale == 3)
        #expect(speech(c.handle(key: "Ctrl+=", at: 2)) == ["Text 4 times."])
        #expect(speech(c.handle(key: "Ctrl++", at: 3)) == ["Text 4 times: as large as it goes."])
        for (time, expected) in [
            (4.0, "Text 3 times."), (5, "Text 2.5 times."), (6, "Text 2 times."), (7, "Text 1.5 times.")
        ] {
            #expect(speech(c.handle(key: "Ctrl+-", at: time)) == [expected])
        }
        #expect(speech(c.handle(key: "Ctrl+-", at: 8)) == ["Text 1 time."])
        #expect(speech(c.handle(key: "Ctrl+-", at: 9)) == ["Text 1 time: as small as it goes."])
        #expect(c.overlay.textSize.scale == 1)
        #expect(throws: ProfileError.self) {
            try Profile(name: "x", file: "x.toml", text: "[display]\ntext_size = 5\n")
        }
    }
}
