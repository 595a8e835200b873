import Testing

@testable import SonicPipeWire

/// Missed graph cycles, told from the graph's clock.
@Suite struct CycleWatchTests {
    /// Which of the cycles, each a (position, length) in the graph's frames, missed cycles before it.
    func missed(_ cycles: [(position: UInt64, length: UInt64)]) -> [Int] {
        var watch = CycleWatch()
        return cycles.indices.filter { watch.missedCycles(position: cycles[$0].position, length: cycles[$0].length) }
    }

    @Test func steadyCyclesMissNothing() {
        #expect(missed((0..<1000).map { (5000 + UInt64($0) * 128, 128) }).isEmpty)
    }

    @Test func aGapInTheClockIsOneDropoutHoweverLong() {
        // 0.3 s without this stream, then steady again; then a single cycle missed.
        let cycles: [(UInt64, UInt64)] = [
            (0, 128), (128, 128), (14_592, 128), (14_720, 128), (14_976, 128), (15_104, 128)
        ]
        #expect(missed(cycles) == [2, 4])
    }

    @Test func aChangedPeriodIsNoDropout() {
        // The graph moves to 1024-frame cycles, then to 64.
        #expect(missed([(0, 128), (128, 1024), (1152, 64), (1216, 64)]).isEmpty)
    }

    @Test func aResampledStreamsUnevenCyclesAreNoDropout() {
        // A 48 kHz stream on a 44.1 kHz graph: its cycles' lengths, in the graph's frames, differ by one.
        var position: UInt64 = 77
        let cycles = (0..<500).map { cycle -> (UInt64, UInt64) in
            defer { position += cycle % 3 == 0 ? 118 : 117 }
            return (position, cycle % 3 == 0 ? 117 : 118)
        }
        #expect(missed(cycles).isEmpty)
    }

    @Test func theClockStartingAgainLowerIsNoDropout() {
        #expect(missed([(100_000, 256), (512, 256), (768, 256)]).isEmpty)
    }
}
