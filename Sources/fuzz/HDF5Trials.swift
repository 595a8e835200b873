import Foundation
import SonicCore
import SonicHDF5
import SonicImageFiles

/// What the HDF5 helper answers about a file, as the reader takes it over: the seed's real answer
/// (asked once), damaged half the time as a message and half the time as the facts a hostile file
/// would make it report. It must be refused, or make entries whose every signal has pixels, axes
/// that match its sizes, and spectra of a size the readers accept (an image or a stack too large is
/// listed, and refused when read). Only spectra the program reads from the mapped file itself are
/// read (one pixel's): their places in the file, damaged, must be refused or read inside it.
struct SurveyTrial: FuzzTrial {
    func seedInput(_ path: String) throws -> [UInt8] { try EMDReader.survey(path: path).encoded() }

    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] {
        guard mutator.below(2) == 0, var survey = try? Survey(decoding: input) else { return mutator.mutate(input) }
        for _ in 0..<(1 + mutator.below(3)) { mutator.damage(&survey) }
        return survey.encoded()
    }

    func run(_ path: String, seed: String) throws {
        let survey = try Survey(decoding: try ImageFiles.readBytes(path))
        let entries = try EMDReader.contents(of: survey, path: seed).entries
        for entry in entries {
            try Self.check(entry, among: entries)
            if let source = entry.spectra?.source, EMDReader.readsInPlace(source) {
                _ = try? source.spectra(columns: 0..<1, rows: 0..<1)
            }
        }
    }

    static func check(_ entry: ImageEntry, among entries: [ImageEntry]) throws {
        func finding(_ what: String) -> FuzzFinding {
            FuzzFinding(message: "the entry \"\(entry.title.prefix(60))\" (\(entry.shape)) \(what)")
        }
        guard entry.shape.allSatisfy({ $0 >= 0 }) else { throw finding("has a negative size") }
        guard entry.isSignal else { return }
        let (width, height) = (entry.width, entry.height)
        guard width > 0, height > 0 else { throw finding("is a signal of \(width) × \(height)") }
        guard entry.axes.allSatisfy({ $0.size > 0 && $0.scale.isFinite && $0.offset.isFinite && $0.scale != 0 }) else {
            throw finding("has an axis of no size, or whose scale or offset is not a number")
        }
        let pictureSizes = entry.pictureAxes.map(\.size)
        switch entry.content {
        case .image:
            guard pictureSizes == [width, height] else { throw finding("has axes of \(pictureSizes)") }
        case .stack(let stack):
            guard (1...ImageLimits.maxFrames).contains(stack.count), entry.axes.first?.size == stack.count,
                pictureSizes == [width, height]
            else { throw finding("is a stack of \(stack.count) frames with axes of \(entry.axes.map(\.size))") }
        case .spectra(let cube):
            do { try ImageLimits.check(width: width, height: height, channels: cube.channels) } catch {
                throw finding("holds spectra reading refuses: \(error)")
            }
            let scan = entry.kind == .spectrum ? [] : entry.kind == .lineScan ? [width] : [width, height]
            guard pictureSizes == scan, entry.kind != .lineScan || height == 1, entry.kind != .spectrum || width == 1,
                cube.spectralAxis.size == cube.channels, entry.axes.last?.size == cube.channels
            else {
                throw finding(
                    "holds \(width) × \(height) spectra of \(cube.channels) channels, with axes of \(entry.axes.map(\.size))"
                )
            }
        case .skipped:
            throw finding("is skipped, yet a signal")
        }
        if let image = entry.acquiredImage {
            guard entries.indices.contains(image), entries[image].isImage, entries[image].width == width,
                entries[image].height == height
            else { throw finding("names entry \(image) as its image, not an image of its size") }
        }
    }
}

/// Velox's EDS streams as the reader decodes them: each seed's streams (read once) with the scan size
/// and channels the reader finds for them, the values damaged as bytes or the sizes set to hostile
/// ones. They must be refused, or give spectra and maps of the sizes promised, the spectra read
/// through the index agreeing with the sweep that goes through every value in order.
struct StreamTrial: FuzzTrial {
    /// Scans of at most this many values are read whole, to check each spectrum against the sweep.
    static let mostValuesReadWhole = 1 << 22

    /// A stream input: the scan's size and channels, then each stream's values.
    struct Streams {
        var width: Int
        var height: Int
        var channels: Int
        var streams: [[UInt8]]

        func encoded() -> [UInt8] {
            let header = [width, height, channels, streams.count] + streams.map(\.count)
            return header.withUnsafeBytes { Array($0) } + streams.flatMap { $0 }
        }

        init(width: Int, height: Int, channels: Int, streams: [[UInt8]]) {
            (self.width, self.height, self.channels, self.streams) = (width, height, channels, streams)
        }

        init(decoding bytes: [UInt8]) throws {
            func int(_ index: Int) throws -> Int {
                guard bytes.count >= 8 * (index + 1) else { throw FuzzFinding(message: "a stream input cut short") }
                return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8 * index, as: Int.self) }
            }
            (width, height, channels) = (try int(0), try int(1), try int(2))
            let count = try int(3)
            guard (0...64).contains(count) else { throw FuzzFinding(message: "a stream input of \(count) streams") }
            var at = 8 * (4 + count)
            streams = []
            for index in 0..<count {
                let length = try int(4 + index)
                guard length >= 0, length <= bytes.count - at else {
                    throw FuzzFinding(message: "a stream input cut short")
                }
                streams.append(Array(bytes[at..<(at + length)]))
                at += length
            }
        }
    }

    func seedInput(_ path: String) throws -> [UInt8] {
        let survey = try EMDReader.survey(path: path)
        let streams = try EMDReader.veloxStreams(of: survey, path: path)
        guard !streams.isEmpty,
            let cube = try EMDReader.contents(of: survey, path: path).entries.first(where: {
                $0.kind == .spectrumImage && $0.spectra?.spectroscopy == .eds
            })?.spectra
        else { throw ImageFileError("no EDS spectrum streams") }
        return Streams(
            width: cube.width, height: cube.height, channels: cube.channels,
            streams: streams.map { Array($0.buffer) }
        ).encoded()
    }

    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] {
        guard var streams = try? Streams(decoding: input) else { return input }
        let (width, height, channels) = (streams.width, streams.height, streams.channels)
        func hostile(_ size: Int, _ mutator: inout Mutator) -> Int {
            switch mutator.below(4) {
            case 0: size &+ mutator.below(5) &- 2
            case 1: mutator.below(2) == 0 ? size &* 2 : size / 2
            default: Mutator.hostileSizes[mutator.below(Mutator.hostileSizes.count)]
            }
        }
        for _ in 0..<(1 + mutator.below(2)) {
            switch mutator.below(6) {
            case 0, 1, 2:
                let at = mutator.below(streams.streams.count)
                streams.streams[at] = mutator.mutate(streams.streams[at])
            case 3:
                if mutator.below(2) == 0 {
                    streams.width = hostile(width, &mutator)
                } else {
                    streams.height = hostile(height, &mutator)
                }
            case 4:
                streams.channels = hostile(channels, &mutator)
            default:
                // A detector's stream gone, repeated, or cut at a pixel's end.
                let at = mutator.below(streams.streams.count)
                switch mutator.below(3) {
                case 0: if streams.streams.count > 1 { streams.streams.remove(at: at) }
                case 1: streams.streams.append(streams.streams[at])
                default: streams.streams[at].removeLast(2 * mutator.below(streams.streams[at].count / 2))
                }
            }
        }
        return streams.encoded()
    }

    func run(_ path: String, seed: String) throws {
        let input = try Streams(decoding: try ImageFiles.readBytes(path))
        let source = try VeloxStreamSpectra(
            streams: input.streams.map(FileBytes.init(copying:)), width: input.width, height: input.height,
            channels: input.channels)
        let (width, height, channels) = (source.width, source.height, source.channels)
        guard (width, height, channels) == (input.width, input.height, input.channels) else {
            throw FuzzFinding(message: "spectra of \(width) × \(height) × \(channels) made for \(input.width) × …")
        }
        for (x, y) in [(0, 0), (width - 1, height - 1), (width / 2, height / 2)] {
            let spectrum = try source.spectra(columns: x..<(x + 1), rows: y..<(y + 1))
            guard spectrum.count == channels, spectrum.allSatisfy({ $0 >= 0 && $0 == $0.rounded() }) else {
                throw FuzzFinding(message: "the spectrum at (\(x), \(y)) is not \(channels) counts")
            }
        }
        guard (try? source.spectra(columns: width..<(width + 1), rows: 0..<1)) == nil else {
            throw FuzzFinding(message: "a spectrum beyond the scan's \(width) columns was given")
        }
        let windows = [0..<channels, (channels / 3)..<(2 * channels / 3), channels..<(channels + 4)]
        let sweep = try source.sweep(windows: windows, summing: true)
        guard sweep.maps.count == windows.count, sweep.maps.allSatisfy({ $0.count == width * height }),
            let summed = sweep.summed, summed.count == channels
        else { throw FuzzFinding(message: "a sweep of other sizes than \(width) × \(height) × \(channels)") }
        guard sweep.maps[0].reduce(0, +) == summed.reduce(0, +), sweep.maps[2].allSatisfy({ $0 == 0 }) else {
            throw FuzzFinding(message: "the sweep's maps do not add up to its summed spectrum")
        }
        if width * height * channels <= Self.mostValuesReadWhole {
            let all = try source.spectra(columns: 0..<width, rows: 0..<height)
            for pixel in 0..<(width * height) {
                let total = all[(pixel * channels)..<((pixel + 1) * channels)].reduce(0.0) { $0 + Double($1) }
                guard total == sweep.maps[0][pixel] else {
                    throw FuzzFinding(
                        message:
                            "pixel \(pixel)'s spectrum holds \(total) counts, the sweep's map \(sweep.maps[0][pixel])")
                }
            }
        }
        let cube = SpectrumCube(
            source: source, spectralAxis: SignalAxis(name: "X-ray energy", size: channels, navigation: false),
            spectroscopy: .eds)
        try ImageFileTrial.read(cube)
    }
}
