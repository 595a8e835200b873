import Foundation
import SonicCore
import TestSupport
import Testing

extension EndToEnd {
    /// A diffraction pattern in a session, on the real pen and sound server: once it has been read, N goes to its
    /// spots one after another, the strongest first, each where a spot of the generated pattern lies; the pen taken
    /// there hears "Here."; Shift+N goes back.
    @Suite struct DiffractionSessionTests {
        @Test func theSpotsAreSteppedThroughStrongestFirstAndThePenGuidedToEach() throws {
            try withServers("diffraction-play") { display, sound, folder in
                let spots = DiffractionSamples.spots(.high, hexagonal: false)
                let path = try writeDiffractionPattern(spots, in: folder)
                let session = try RunningPlay(image: path, display: display, sound: sound, folder: folder)
                defer { session.stop() }
                let view = try session.waitUntilShown()
                func screen(_ x: Double, _ y: Double) -> String { view.point(x, y) }
                try waitFor("the overview's first sentence", timeout: 30) {
                    (try? session.records(ofType: "speech"))?.contains { $0["after"] as? Bool == true } == true
                }
                try sound.waitForSilence()

                /// Where the guide leads after `key`, once its label has been said; and the label.
                func step(_ key: String) throws -> (target: (x: Double, y: Double), label: String) {
                    let (guides, said) = (try session.records(ofType: "guide").count, try session.spokenTexts().count)
                    try display.key(key)
                    try waitFor("the guide after \(key)", timeout: 5) {
                        (try? session.records(ofType: "guide"))?.count ?? 0 > guides
                    }
                    let guide = try #require(try session.records(ofType: "guide").last)
                    try waitFor("the spot's label", timeout: 5) {
                        let texts = (try? session.spokenTexts()) ?? []
                        return texts.count > said && texts.last?.hasPrefix("Spot ") == true
                    }
                    return (
                        (guide["ix"] as? Double ?? -1, guide["iy"] as? Double ?? -1),
                        try session.spokenTexts().last ?? ""
                    )
                }
                /// The generated spot nearest `point`, and how far it is.
                func nearestSpot(_ point: (x: Double, y: Double)) -> (spot: DiffractionSample.Spot, distance: Double) {
                    spots.spots.map { ($0, hypot($0.x - point.x, $0.y - point.y)) }.min { $0.1 < $1.1 }!
                }

                let first = try step("n")
                #expect(first.label.hasPrefix("Spot 1 of "), "\(first.label)")
                let firstSpot = nearestSpot(first.target)
                #expect(firstSpot.distance < 2, "\(first.target) is no generated spot")
                // Among the strongest: a spot's height varies with a structure factor, its peak with noise.
                let strongest = spots.spots.map(\.height).sorted(by: >)
                #expect(firstSpot.spot.height >= strongest[min(3, strongest.count - 1)], "\(firstSpot)")

                try display.pen("hover", screen(first.target.x + 1, first.target.y))
                try waitFor("Here. at the first spot", timeout: 5) { (try? session.spokenTexts())?.last == "Here." }

                let second = try step("n")
                #expect(second.label.hasPrefix("Spot 2 of "), "\(second.label)")
                let secondSpot = nearestSpot(second.target)
                #expect(secondSpot.distance < 2, "\(second.target) is no generated spot")
                #expect(hypot(secondSpot.spot.x - firstSpot.spot.x, secondSpot.spot.y - firstSpot.spot.y) > 10)

                let back = try step("shift+n")
                #expect(back.label.hasPrefix("Spot 1 of "), "\(back.label)")
                #expect(hypot(back.target.x - first.target.x, back.target.y - first.target.y) < 0.01)
                #expect(try session.quitWithKey() == 0)
            }
        }
    }
}
