import SonicCore
import Testing

@Suite struct VeloxStreamTests {
    /// A stream of counts[frame][pixel] (each pixel's channels, in any order), 65535 between pixels.
    static func stream(_ counts: [[[Int]]], trailingSeparator: Bool = false) -> FileBytes {
        var values: [UInt16] = []
        let pixels = counts.flatMap { $0 }
        for (index, channels) in pixels.enumerated() {
            values += channels.map(UInt16.init)
            if trailingSeparator || index + 1 < pixels.count { values.append(65535) }
        }
        return FileBytes(copying: values.withUnsafeBytes { Array($0) })
    }

    /// 20 pixels (past the index's 16-pixel steps), three frames (the last cut short), two detectors:
    /// each pixel's spectrum is every count of every frame and detector at it.
    @Test func pixelsSumEveryFrameAndDetector() throws {
        let (width, height, channels) = (5, 4, 6)
        var generator = SeededRandom(seed: 7)
        func frame() -> [[Int]] {
            (0..<20).map { _ in
                (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                    Int.random(in: 0..<channels, using: &generator)
                }
            }
        }
        let first = [frame(), frame(), Array(frame().prefix(9))]
        let second = [frame(), frame()]
        let source = try VeloxStreamSpectra(
            streams: [Self.stream(first), Self.stream(second, trailingSeparator: true)], width: width, height: height,
            channels: channels)
        #expect(source.frames == 3)
        func expected(_ pixel: Int) -> [Float] {
            var spectrum = [Float](repeating: 0, count: channels)
            for frames in [first, second] {
                for frame in frames where pixel < frame.count { for channel in frame[pixel] { spectrum[channel] += 1 } }
            }
            return spectrum
        }
        for y in 0..<height {
            for x in 0..<width {
                #expect(
                    try source.spectra(columns: x..<(x + 1), rows: y..<(y + 1)) == expected(y * width + x),
                    "(\(x), \(y))")
            }
        }
        let block = try source.spectra(columns: 1..<4, rows: 2..<4)
        #expect(block == [2, 3].flatMap { y in (1..<4).flatMap { expected(y * width + $0) } })
        let sweep = try source.sweep(windows: [0..<channels, 2..<4], summing: true)
        #expect(sweep.maps[0] == (0..<20).map { Double(expected($0).reduce(0, +)) })
        #expect(sweep.maps[1] == (0..<20).map { Double(expected($0)[2..<4].reduce(0, +)) })
        #expect(sweep.summed == (0..<channels).map { c in (0..<20).reduce(0) { $0 + Double(expected($1)[c]) } })
    }

    /// Both passes, the index and a sweep, say how far they have got, and stop when the user asks for
    /// other work.
    @Test func theStreamsTellTheirProgressAndStopWhenAsked() throws {
        let streams = [Self.stream([[[1], [2, 3]]]), Self.stream([[[0], [3], [1]]])]
        let progress = WorkProgress()
        let source = try WorkProgress.$current.withValue(progress) {
            try VeloxStreamSpectra(streams: streams, width: 3, height: 1, channels: 4)
        }
        #expect(progress.now?.what == "indexing the spectrum streams" && progress.now?.fraction == 1)
        _ = try WorkProgress.$current.withValue(progress) { try source.sweep(windows: [0..<4], summing: false) }
        #expect(progress.now?.what == "reading the spectra" && progress.now?.fraction == 1)
        progress.stop()
        let stopped: (any Error) -> Bool = { ($0 as? ImageFileError)?.message == WorkProgress.stopped.message }
        #expect {
            try WorkProgress.$current.withValue(progress) { try source.sweep(windows: [0..<4], summing: false) }
        } throws: { stopped($0) }
        #expect {
            try WorkProgress.$current.withValue(progress) {
                try VeloxStreamSpectra(streams: streams, width: 3, height: 1, channels: 4)
            }
        } throws: { stopped($0) }
    }

    @Test func aCountBeyondTheChannelsIsRefused() {
        #expect {
            try VeloxStreamSpectra(streams: [Self.stream([[[1, 2], [4, 3]]])], width: 2, height: 1, channels: 4)
        } throws: { "\($0)".contains("channel 4 at value 3, beyond the 4 channels") }
        #expect(throws: ImageFileError.self) {
            try VeloxStreamSpectra(streams: [Self.stream([[[0]]])], width: 0, height: 1, channels: 4)
        }
    }

    @Test func emptyAndOddStreamsReadAsNoCounts() throws {
        let empty = try VeloxStreamSpectra(streams: [FileBytes(copying: [])], width: 2, height: 2, channels: 3)
        #expect(try empty.spectra(columns: 0..<2, rows: 0..<2) == [Float](repeating: 0, count: 12))
        // A dangling byte is not a value.
        let odd = try VeloxStreamSpectra(streams: [FileBytes(copying: [2, 0, 7])], width: 1, height: 1, channels: 3)
        #expect(try odd.spectra(columns: 0..<1, rows: 0..<1) == [0, 0, 1])
    }

    /// A stream in pieces where an HDF5 file keeps its chunks — each anywhere in the file, at odd
    /// places too, in any order, the last part-filled — reads as the same stream whole.
    @Test func aStreamInPiecesReadsAsItWhole() throws {
        let whole = Self.stream(
            (0..<3).map { frame in (0..<12).map { pixel in (0..<((pixel + frame) % 5)).map { ($0 * 3 + pixel) % 6 } } })
        let values = whole.buffer.count / 2
        let pieceLength = 7
        let count = (values + pieceLength - 1) / pieceLength
        // The pieces backwards, each after three bytes of padding, the last in full as a chunk is stored.
        var file: [UInt8] = [9]
        var starts = [Int](repeating: 0, count: count)
        for piece in (0..<count).reversed() {
            file += [1, 2, 3]
            starts[piece] = file.count
            let first = piece * pieceLength
            let stored = Array(whole.buffer[(2 * first)..<(2 * min(values, first + pieceLength))])
            file += stored + [UInt8](repeating: 0xFF, count: 2 * pieceLength - stored.count)
        }
        let bytes = FileBytes(copying: file)
        let pieces = try VeloxStreamValues(file: bytes, starts: starts, pieceLength: pieceLength, count: values)
        let (width, height, channels) = (4, 3, 6)
        let inPieces = try VeloxStreamSpectra(pieces: [pieces], width: width, height: height, channels: channels)
        let inOne = try VeloxStreamSpectra(streams: [whole], width: width, height: height, channels: channels)
        #expect(inPieces.frames == 3)
        #expect(
            try inPieces.spectra(columns: 0..<width, rows: 0..<height)
                == inOne.spectra(columns: 0..<width, rows: 0..<height))
        let windows = [0..<channels, 1..<3]
        #expect(
            try inPieces.sweep(windows: windows, summing: true).maps
                == inOne.sweep(windows: windows, summing: true).maps)
        #expect(throws: ImageFileError.self) {
            try VeloxStreamValues(file: bytes, starts: starts.dropLast(), pieceLength: pieceLength, count: values)
        }
        #expect(throws: ImageFileError.self) {
            try VeloxStreamValues(
                file: bytes, starts: starts.dropLast() + [file.count - 1], pieceLength: pieceLength, count: values)
        }
    }
}
