import Foundation
import SonicCore
import SonicImageFiles

/// One kind of input and what must hold for it.
protocol FuzzTrial {
    /// The input that damaged copies are made from, from a seed file: by default its bytes.
    func seedInput(_ path: String) throws -> [UInt8]
    /// A damaged copy of a seed's input: by default damaged as bytes.
    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8]
    /// Reads the input at `path`, made from the seed file `seed`; throws the reader's own error when
    /// it refuses it, or a `FuzzFinding`.
    func run(_ path: String, seed: String) throws
}

extension FuzzTrial {
    func seedInput(_ path: String) throws -> [UInt8] { try ImageFiles.readBytes(path) }
    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] { mutator.mutate(input) }
}

/// The reader accepted an input but gave a wrong result: a finding, which stops the run.
struct FuzzFinding: Error {
    let message: String
}

/// Image files: their datasets listed, and every signal read at the size its entry promised: an
/// image, a stack's first and last frames, a spectrum image's total counts, summed spectrum, the
/// spectrum near its centre and a map with a background taken away.
struct ImageFileTrial: FuzzTrial {
    /// Many images alike in a row (a multi-page TIFF's pages) are read alike: the first and last
    /// few stand for the rest.
    static let framesReadAtEachEnd = 8

    func run(_ path: String, seed: String) throws {
        let contents = try ImageFiles.contents(of: path)
        for entry in Self.sampled(contents.entries.filter(\.isImage)) {
            let image = try entry.read()
            guard image.width == entry.width, image.height == entry.height else {
                throw FuzzFinding(
                    message: "an entry of \(entry.width) × \(entry.height) read as \(image.width) × \(image.height)")
            }
        }
        for entry in contents.entries {
            if let stack = entry.stack {
                for index in Set([0, stack.count - 1]) { try check(try stack.frame(index), stack.width, stack.height) }
            }
            if let cube = entry.spectra { try Self.read(cube) }
        }
    }

    private func check(_ image: GrayImage, _ width: Int, _ height: Int) throws {
        guard image.width == width, image.height == height, image.samples.count == width * height else {
            throw FuzzFinding(message: "a frame of \(width) × \(height) read as \(image.width) × \(image.height)")
        }
    }

    /// Reads what a spectrum image is played by, at the sizes it promised.
    static func read(_ cube: SpectrumCube) throws {
        let (width, height, channels) = (cube.width, cube.height, cube.channels)
        let overview = try cube.overview()
        guard overview.totalCounts.values.count == width * height, overview.summed.count == channels else {
            throw FuzzFinding(
                message:
                    "spectra of \(width) × \(height) × \(channels) gave a map of \(overview.totalCounts.values.count) "
                    + "and a spectrum of \(overview.summed.count)")
        }
        guard try cube.spectrum(x: width / 2, y: height / 2, radius: 1).count == channels else {
            throw FuzzFinding(message: "a spectrum of other than \(channels) channels")
        }
        let window = (channels / 3)..<max(channels / 3 + 1, 2 * channels / 3)
        let map = try cube.map(window, background: 0..<max(1, channels / 10))
        guard map.values.count == width * height else {
            throw FuzzFinding(message: "a map of \(map.values.count) values for \(width) × \(height) pixels")
        }
        // The elements the spectra hold, where each is, and where a window's signal is.
        let (_, places) = try ElementMaps.places(in: cube)
        let signal = try ElementMaps.signal(in: cube, window: window)
        guard (places.map(\.fraction) + [signal.fraction]).allSatisfy({ (0...1).contains($0) }) else {
            throw FuzzFinding(message: "an element's share of the pixels outside 0 to 1")
        }
    }

    /// Every image, but of each run of images alike in size and type, only the first and last few.
    static func sampled(_ images: [ImageEntry]) -> [ImageEntry] {
        var runs: [[ImageEntry]] = []
        for image in images {
            if let last = runs.last?.last, last.width == image.width, last.height == image.height,
                last.sampleType == image.sampleType
            {
                runs[runs.count - 1].append(image)
            } else {
                runs.append([image])
            }
        }
        let ends = framesReadAtEachEnd
        return runs.flatMap { $0.count <= 2 * ends ? $0 : Array($0.prefix(ends) + $0.suffix(ends)) }
    }
}

/// Session logs: every line decoded and the whole checked as `render` does; those that pass are
/// replayed, and must give no more sound than the check allowed, all of it finite and within ±1.
struct SessionLogTrial: FuzzTrial {
    let image: GrayImage
    let profile: Profile
    /// A spectrum image's spectra, read again for the spectra and windows' maps a log plays.
    let spectra: SpectrumVoice?
    /// Longer replays are checked but not rendered, to keep the run's pace.
    static let longestRender = 60.0

    init(imagePath: String, profilePath: String?) throws {
        let opened = try ImageFiles.open(imagePath)
        image = opened.image
        let chosen: Profile
        if let profilePath {
            let text = try String(contentsOfFile: profilePath, encoding: .utf8)
            chosen = try Profile(
                name: URL(fileURLWithPath: profilePath).deletingPathExtension().lastPathComponent,
                file: profilePath, text: text)
        } else {
            chosen = .builtIn
        }
        profile = chosen
        spectra = opened.entry.spectra.map { SpectrumVoice(cube: $0, profile: chosen) }
    }

    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] { mutator.mutate(input, text: true) }

    func run(_ path: String, seed: String) throws {
        let bytes = try ImageFiles.readBytes(path)
        var decoder = SessionLogDecoder(name: "input")
        var check = SessionLogCheck()
        var records: [SessionRecord] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let record = try line.withUnsafeBufferPointer { buffer throws(SessionLogError) in
                try decoder.decode(buffer, number: lineNumber)
            }
            guard let record else { continue }
            try check.admit(record, place: "input:\(lineNumber)")
            records.append(record)
        }
        guard let start = check.start, start.width == image.width, start.height == image.height else { return }
        let replay = SessionReplay(
            image: image, profile: profile, sampleRate: AudioFormat.sampleRate, speech: nil, start: start,
            spectra: spectra)
        let mostFrames = replay.frame(at: check.lastTime) + replay.maximumTailFrames
        guard Double(mostFrames) <= Self.longestRender * Double(AudioFormat.sampleRate) else { return }
        var bad: String?
        func listen(_ sound: UnsafeBufferPointer<Float>) {
            if bad == nil, sound.contains(where: { !$0.isFinite || abs($0) > 1 }) {
                bad = "the replay made sound beyond ±1"
            }
        }
        for record in records { replay.play(record, into: listen) }
        replay.finish(into: listen)
        if let bad { throw FuzzFinding(message: bad) }
        guard replay.frames <= mostFrames else {
            throw FuzzFinding(
                message: "the replay made \(replay.frames) frames, more than the \(mostFrames) its check allowed")
        }
    }
}
