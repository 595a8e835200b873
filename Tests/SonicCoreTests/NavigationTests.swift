import Testing

@testable import SonicCore

/// Zoom, pan and the upper barrel button's drag.
@Suite struct NavigationTests {
    /// A 100 × 50 image in a 400 × 200 window at (0, 0): 4 screen pixels a pixel at zoom 1.
    func make() -> Navigation {
        var navigation = Navigation(imageWidth: 100, imageHeight: 50)
        _ = navigation.place(window: ScreenRect(x: 0, y: 0, width: 400, height: 200))
        return navigation
    }

    func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    @Test func placingTheWindowFitsTheImageAndReturnsThePlacement() {
        var navigation = make()
        #expect(navigation.view!.viewport == Viewport(originX: 0, originY: 0, scale: 4))
        #expect(navigation.shown == "Showing x 0 to 99, y 0 to 49.")
        let moved = navigation.place(window: ScreenRect(x: 100, y: 0, width: 400, height: 200))
        #expect(moved == [.viewport(Viewport(originX: 100, originY: 0, scale: 4))])
    }

    @Test func zoomStepsAboutTheWindowsCentreAndSaysTheLimits() {
        var navigation = make()
        #expect(speech(navigation.zoom(inward: false, pen: nil, cursor: nil)) == ["Zoom 1 time: the whole image."])
        #expect(speech(navigation.zoom(inward: true, pen: nil, cursor: nil)) == ["Zoom 1.5 times."])
        #expect(navigation.view!.viewport.scale == 6)
        // The image point at the window's centre stays there.
        #expect(abs(navigation.view!.viewport.imagePoint(rootX: 200, rootY: 100).x - 49.5) < 1e-9)
        #expect(speech(navigation.zoom(to: 16, pen: nil, cursor: nil)) == ["Zoom 16 times."])
        #expect(
            speech(navigation.zoom(inward: true, pen: nil, cursor: nil)) == ["Zoom 16 times: as far in as it goes."])
        // About the column cursor's column when the pen is not over the image.
        _ = navigation.zoom(to: 1, pen: nil, cursor: nil)
        _ = navigation.zoom(to: 4, pen: nil, cursor: ImagePoint(x: 20, y: 10))
        let kept = navigation.view!.viewport.rootPoint(of: ImagePoint(x: 20, y: 10))
        #expect(abs(kept.x - 82) < 1e-9 && abs(kept.y - 42) < 1e-9)
    }

    @Test func arrowsPanAQuarterOfTheWindowUntilTheEdge() {
        var navigation = make()
        #expect(speech(navigation.pan(.left)) == ["The whole image is in view."])
        _ = navigation.zoom(to: 2, pen: nil, cursor: nil)
        // A quarter of 200 screen pixels is 6.25 pixels at zoom 2.
        #expect(speech(navigation.pan(.left)) == ["Showing x 18 to 68, y 12 to 37."])
        #expect(speech(navigation.pan(.up)) == ["Showing x 18 to 68, y 6 to 31."])
        var said: [String] = []
        for _ in 5...10 { said += speech(navigation.pan(.left)) }
        #expect(said.last == "At the left edge.")
        #expect(said.last { $0.hasPrefix("Showing") } == "Showing x 0 to 50, y 6 to 31.")
    }

    @Test func theImageFollowsADragOnlyOnceItStarted() {
        var navigation = make()
        _ = navigation.zoom(to: 2, pen: nil, cursor: nil)
        let before = navigation.view!.viewport
        #expect(navigation.drag(dx: 40, dy: 0).isEmpty && navigation.endDrag().isEmpty)
        navigation.startDrag()
        let dragged = navigation.drag(dx: 40, dy: 0)
        #expect(
            dragged == [.viewport(Viewport(originX: before.originX + 40, originY: before.originY, scale: before.scale))]
        )
        #expect(speech(navigation.endDrag()) == [navigation.shown] && navigation.endDrag().isEmpty)
    }
}
