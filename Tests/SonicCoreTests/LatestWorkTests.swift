import Foundation
import SonicCore
import Synchronization
import Testing

/// Work in the background that the loop needs only the latest of, and the waits on it.
@Suite struct LatestWorkTests {
    /// Waits until `condition` holds, up to ten seconds.
    static func spin(until condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline {}
    }

    @Test func whoeverSeesTheResultSeesTheWorkEnded() {
        let work = LatestWork<Int, Int>(label: "test") { $0 * 2 }
        var stillBusy = 0
        for request in 0..<2000 {
            work.submit(request)
            var result: Int?
            Self.spin {
                result = work.takeFinished(); return result != nil
            }
            #expect(result == request * 2)
            if work.isBusy { stillBusy += 1 }
        }
        #expect(stillBusy == 0)
    }

    /// A value shared with the work's thread.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    @Test func requestsMadeDuringTheWorkAreReplacedByTheLatest() {
        let gate = Shared(false)
        let worked = Shared<[Int]>([])
        let work = LatestWork<Int, Int>(label: "test") { request in
            worked.value.withLock { $0.append(request) }
            Self.spin { gate.value.withLock { $0 } }
            return request
        }
        work.submit(1)
        Self.spin { !worked.value.withLock { $0.isEmpty } }
        for request in 2...5 { work.submit(request) }
        gate.value.withLock { $0 = true }
        Self.spin { !work.isBusy }
        #expect(worked.value.withLock { $0 } == [1, 5])
        #expect(work.takeFinished() == 5)
        #expect(work.takeFinished() == nil)
    }

    @Test func aWaitIsToldOnlyOnceItHasLastedAndIsSaidEndedOnlyThen() {
        let wait = LongWait("reading the frame")
        #expect(wait.underWay(busy: true, at: 10) == nil)
        #expect(wait.underWay(busy: true, at: 11.9) == nil)
        #expect(wait.underWay(busy: true, at: 12.1)?.what == "reading the frame")
        wait.progress.begin("reading the spectra", steps: 4)
        wait.progress.advance()
        let told = wait.underWay(busy: true, at: 13)
        #expect(told?.what == "reading the spectra" && told?.fraction == 0.25)
        #expect(wait.underWay(busy: false, at: 13.5) == nil)
        #expect(wait.ended(at: 13.5))
        // The next wait starts its own clock: a short one is not said ended.
        #expect(wait.underWay(busy: true, at: 20) == nil)
        #expect(wait.underWay(busy: false, at: 20.5) == nil)
        #expect(!wait.ended(at: 20.5))
    }
}
