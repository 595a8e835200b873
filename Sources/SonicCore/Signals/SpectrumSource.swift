/// Where the spectra of a spectrum image, a line scan (one row) or a single spectrum (one pixel)
/// come from. Sources read a few pixels or a band of rows at a time, from a mapped file, a helper
/// process or a decoded stream: no file is ever read whole into memory.
public protocol SpectrumSource: Sendable {
    var width: Int { get }
    var height: Int { get }
    var channels: Int { get }
    /// The spectra of the pixels `columns` × `rows` (inside the grid): channel fastest, then x, then y.
    func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float]
    /// Goes through every spectrum once: for each window, the sum of its channels at every pixel,
    /// row by row; and, if asked, the spectrum summed over every pixel.
    func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep
}

/// What one pass over a spectrum image gives.
public struct SpectrumSweep: Sendable, Equatable {
    /// One per window: width × height sums, row by row.
    public var maps: [[Double]]
    /// The spectrum summed over every pixel, when asked for.
    public var summed: [Double]?

    public init(maps: [[Double]], summed: [Double]?) {
        self.maps = maps
        self.summed = summed
    }
}

extension SpectrumSource {
    /// About this many values are read at a time when going through every spectrum (32 MiB of floats).
    public static var valuesPerBlock: Int { 8 << 20 }

    public func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        try sweepBlockByBlock(windows: windows, summing: summing)
    }

    /// Goes through the spectra a block of pixels at a time, through `spectra(columns:rows:)`.
    public func sweepBlockByBlock(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        var sweep = SpectrumSweep(
            maps: windows.map { _ in [Double](repeating: 0, count: width * height) },
            summed: summing ? [Double](repeating: 0, count: channels) : nil)
        let tally = WindowTally(windows: windows, channels: channels)
        let columnsPerBlock = max(1, min(width, Self.valuesPerBlock / max(channels, 1)))
        let rowsPerBlock = columnsPerBlock < width ? 1 : max(1, Self.valuesPerBlock / max(width * channels, 1))
        let progress = WorkProgress.current
        let blocksPerRow = (width + columnsPerBlock - 1) / columnsPerBlock
        progress?.begin("reading the spectra", steps: (height + rowsPerBlock - 1) / rowsPerBlock * blocksPerRow)
        for top in stride(from: 0, to: height, by: rowsPerBlock) {
            let rows = top..<min(height, top + rowsPerBlock)
            for left in stride(from: 0, to: width, by: columnsPerBlock) {
                if progress?.isStopped == true { throw WorkProgress.stopped }
                let columns = left..<min(width, left + columnsPerBlock)
                let block = try spectra(columns: columns, rows: rows)
                guard block.count == columns.count * rows.count * channels else {
                    throw ImageFileError("the spectra read are not the size they should be")
                }
                block.withUnsafeBufferPointer { values in
                    var at = 0
                    for y in rows {
                        for x in columns {
                            let spectrum = UnsafeBufferPointer(rebasing: values[at..<(at + channels)])
                            tally.add(spectrum, pixel: y * width + x, to: &sweep)
                            at += channels
                        }
                    }
                }
                progress?.advance()
            }
        }
        return sweep
    }
}

/// Adds spectra into window sums and the summed spectrum.
public struct WindowTally: Sendable {
    public let windows: [Range<Int>]

    private let channels: Int

    public init(windows: [Range<Int>], channels: Int) {
        self.windows = windows.map { $0.clamped(to: 0..<max(channels, 0)) }
        self.channels = max(channels, 0)
    }

    /// For each channel, the windows it falls in: for sources that go through counts rather than whole spectra.
    public var windowsOfChannels: ChannelWindows { ChannelWindows(windows, channels: channels) }

    /// Adds one pixel's spectrum.
    @inline(__always)
    public func add(_ spectrum: UnsafeBufferPointer<Float>, pixel: Int, to sweep: inout SpectrumSweep) {
        for (index, window) in windows.enumerated() {
            var sum = 0.0
            for channel in window { sum += Double(spectrum[channel]) }
            sweep.maps[index][pixel] += sum
        }
        if sweep.summed != nil {
            for channel in 0..<spectrum.count { sweep.summed![channel] += Double(spectrum[channel]) }
        }
    }
}

/// The windows each channel falls in, in one flat list: a count takes a few nanoseconds, and nested arrays
/// cost more than that.
public struct ChannelWindows: Sendable {
    /// Channel c falls in windows `members[starts[c]..<starts[c + 1]]`.
    public let starts: [Int]
    public let members: [Int]

    /// `windows` already clamped to the `channels`.
    init(_ windows: [Range<Int>], channels: Int) {
        var starts = [0]
        var members: [Int] = []
        for channel in 0..<channels {
            members += windows.indices.filter { windows[$0].contains(channel) }
            starts.append(members.count)
        }
        self.starts = starts
        self.members = members
    }

    /// The windows channel `channel` falls in.
    @inline(__always)
    public func of(_ channel: Int) -> ArraySlice<Int> { members[starts[channel]..<starts[channel + 1]] }
}
