import Foundation
import Testing

extension EndToEnd {
    /// The tests' own pen (scripts/pen-tablet): what is sent arrives as XInput2 events.
    @Suite struct PenTabletTests {
        @Test(.enabled(if: Fixtures.hasRealPen, "needs the pen tablet: \(Fixtures.penTabletMissing ?? "")"))
        func thePenTabletDeliversPositionPressureTiltAndButtons() throws {
            let display = ":\(try TestDisplay.freeDisplayNumber())"
            let result = try Subprocess.run(Fixtures.penTablet + "/selftest", [display], timeout: 60)
            #expect(result.status == 0, "\(result.output)")
            // Its five checks, each on the events xinput saw.
            #expect(
                result.output.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.count == 5, "\(result.output)")
        }
    }
}
