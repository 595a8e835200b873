/// Tells from the graph's clock when the stream missed cycles. From one cycle to the next the
/// graph's position moves on by the length of the earlier cycle; when it has moved further, cycles
/// ran without this stream and the sink played nothing of it. However many cycles were missed in a
/// row, that is one dropout, as a sound server counts one underflow per time its buffer runs dry.
struct CycleWatch {
    private var expectedPosition: UInt64?
    private var slack: UInt64 = 0

    /// Called once per cycle with the graph's position and this cycle's length, both in the
    /// graph's frames: true when cycles were missed since the last call.
    mutating func missedCycles(position: UInt64, length: UInt64) -> Bool {
        defer {
            expectedPosition = position &+ length
            // A resampled stream's cycles differ by a frame; a missed cycle is a whole period.
            slack = length / 2
        }
        guard let expectedPosition else { return false }
        return position > expectedPosition &+ slack
    }
}
