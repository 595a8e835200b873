/// A Bruker `.bcf` writer written from the format's description (RosettaSciIO's reader documents
/// it), independent of the reader: an AidAim SFS container of small chunks, so that its tables run
/// over several, holding the XML header and one hypermap, each file stored as it is or in zlib
/// blocks (stored, not deflated: a zlib stream needs no compressor to be valid).
public struct SampleBCF {
    /// How a pixel's counts are packed.
    public enum Packing: Sendable {
        /// A list of 16-bit pulses, one per count.
        case pulses16
        /// A list of 12-bit pulses, four in three 16-bit words.
        case pulses12
        /// Runs of channels, each a gain and the values above it; then `extra` pulses after.
        case runs(extra: [Int])
    }

    public var width: Int
    public var height: Int
    public var channels: Int
    /// Micrometres per pixel, or none.
    public var pixelSize: Double?
    public var energyOffset = -0.5
    public var energyScale = 0.01
    /// The BSE image, row by row.
    public var image: [UInt16]
    /// Each pixel's counts per channel, row by row; pixels without counts are left out.
    public var counts: [[Int]]
    public var packing: (_ pixel: Int) -> Packing = { _ in .runs(extra: []) }
    public var compressed = false
    public var chunkSize = 0x300

    public init(width: Int, height: Int, channels: Int, image: [UInt16], counts: [[Int]]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.image = image
        self.counts = counts
    }

    /// 5 × 3 pixels of 300 channels: counts past 16 bits, a pixel left out, every packing (the
    /// reader's tests, and the fuzzer's seeds).
    public static func example(compressed: Bool) -> SampleBCF {
        let (width, height, channels) = (5, 3, 300)
        var counts = [[Int]](repeating: [Int](repeating: 0, count: channels), count: width * height)
        for pixel in 0..<(width * height) where pixel != 7 {
            for channel in 0..<channels { counts[pixel][channel] = (pixel * 7 + channel * 3) % 5 }
            counts[pixel][40 + pixel] += 300 + 20 * pixel
        }
        counts[3][100] = 3_000_000
        counts[4][200] = 70_000
        var sample = SampleBCF(
            width: width, height: height, channels: channels, image: (0..<15).map { UInt16(1000 + 37 * $0) },
            counts: counts)
        sample.pixelSize = 0.25
        sample.packing = { pixel in
            switch pixel {
            case 0, 9: .pulses12
            case 1: .pulses16
            case 5: .runs(extra: [41, 45, 45])
            default: .runs(extra: [])
            }
        }
        sample.compressed = compressed
        return sample
    }

    public func bytes() -> [UInt8] {
        let files: [(name: String, parent: Int32, data: [UInt8]?)] = [
            ("EDSDatabase", -1, nil), ("HeaderData", 0, Array(header().utf8)), ("SpectrumData0", 0, hypermap())
        ]
        var chunks: [[UInt8]] = [[]] // chunk 0 holds the container's header
        let usable = chunkSize - 32
        /// Stores `data` in new chunks, each naming the next; returns the first chunk's number.
        func store(_ data: [UInt8], chained: Bool, perChunk: Int) -> Int {
            let first = chunks.count
            let count = max(1, (data.count + perChunk - 1) / perChunk)
            for index in 0..<count {
                let piece = Array(data[min(data.count, index * perChunk)..<min(data.count, (index + 1) * perChunk)])
                let next = chained && index < count - 1 ? first + index + 1 : 0
                chunks.append(littleEndian(next, bytes: 4) + [UInt8](repeating: 0, count: 28) + piece)
            }
            return first
        }
        var items: [UInt8] = []
        for file in files {
            var pointerTable = 0
            var size = 0
            if let data = file.data {
                let stored = compressed ? Self.compress(data) : data
                size = stored.count
                let first = store(stored, chained: false, perChunk: usable)
                let pieces = (0..<((stored.count + usable - 1) / usable)).flatMap { littleEndian(first + $0, bytes: 4) }
                pointerTable = store(pieces, chained: true, perChunk: usable / 4 * 4)
            }
            var item =
                littleEndian(pointerTable, bytes: 4) + littleEndian(size, bytes: 8) + [UInt8](repeating: 0, count: 24)
            item +=
                littleEndian(0, bytes: 4) + littleEndian(Int(UInt32(bitPattern: file.parent)), bytes: 4)
                + [UInt8](repeating: 0, count: 176)
            item += [file.data == nil ? 1 : 0, 0, 0, 0]
            item += Array(file.name.utf8) + [UInt8](repeating: 0, count: 256 - file.name.utf8.count)
            item += [UInt8](repeating: 0, count: 32)
            items += item
        }
        let tree = store(items, chained: true, perChunk: usable / 0x200 * 0x200)
        var output = Array("AAMVHFSS".utf8) + [UInt8](repeating: 0, count: 0x118 - 8)
        for (index, chunk) in chunks.enumerated() {
            var chunk = chunk
            if index == 0 {
                // The container's header runs on into chunk 0: version, chunk size, tree, counts.
                chunk =
                    [UInt8](repeating: 0, count: 0x0C) + [0x66, 0x66, 0x26, 0x40] + littleEndian(chunkSize, bytes: 4)
                chunk += [UInt8](repeating: 0, count: 0x140 - 0x118 - chunk.count)
                chunk +=
                    littleEndian(tree, bytes: 4) + littleEndian(files.count, bytes: 4)
                    + littleEndian(chunks.count, bytes: 4)
            }
            output += chunk + [UInt8](repeating: 0, count: chunkSize - chunk.count)
        }
        return output
    }

    private func header() -> String {
        let plane = image.flatMap { littleEndian(Int($0), bytes: 2) }
        var xml = #"<?xml version="1.0" encoding="WINDOWS-1252" standalone="yes"?><TRTSpectrumDatabase>"#
        xml += #"<!-- written for tests --><RTHeader/><ClassInstance Type="TRTSpectrumDatabase" Name="Sample">"#
        xml += #"<ClassInstance Type="TRTSEMData"><HV>20</HV>"#
        if let pixelSize { xml += "<DX>\(pixelSize)</DX><DY>\(pixelSize)</DY>" }
        xml += "</ClassInstance>"
        xml += #"<ClassInstance Type="TRTImageData" Name="Counter"><Width>1</Width><Height>1</Height></ClassInstance>"#
        xml += #"<ClassInstance Type="TRTImageData"><TRTHeaderedClass/><ItemSize>2</ItemSize>"#
        xml += "<Width>\(width)</Width><Height>\(height)</Height><PlaneCount>2</PlaneCount>"
        xml += "<Plane0><Description>BSE</Description><Data>\(Self.base64(plane))</Data></Plane0>"
        xml += "<Plane1><Description>SE</Description><Data>\(Self.base64(plane.map { _ in 0 }))</Data></Plane1>"
        xml += "</ClassInstance><ChCount>\(channels)</ChCount><SpectrumData0>"
        xml += #"<ClassInstance Type="TRTSpectrum"><ClassInstance Type="TRTSpectrumHeader">"#
        xml += "<ChannelCount>\(channels)</ChannelCount><CalibAbs>\(energyOffset)</CalibAbs>"
        xml += "<CalibLin>\(energyScale)</CalibLin></ClassInstance>"
        xml += "<Channels>\((0..<channels).map { _ in "0" }.joined(separator: ","))</Channels>"
        xml += "</ClassInstance></SpectrumData0></ClassInstance></TRTSpectrumDatabase>"
        return xml
    }

    private func hypermap() -> [UInt8] {
        var data =
            littleEndian(height, bytes: 4) + littleEndian(width, bytes: 4) + [UInt8](repeating: 0, count: 0x1A0 - 8)
        for y in 0..<height {
            let present = (0..<width).filter { counts[y * width + $0].contains { $0 != 0 } }
            data += littleEndian(present.count, bytes: 4)
            for x in present {
                let pixel = y * width + x
                let spectrum = counts[pixel]
                let pulses = spectrum.indices.flatMap { channel in [Int](repeating: channel, count: spectrum[channel]) }
                let (flag, body, pulseCount, after): (Int, [UInt8], Int, [UInt8])
                switch packing(pixel) {
                case .pulses16:
                    (flag, body, pulseCount, after) = (
                        0, pulses.flatMap { littleEndian($0, bytes: 2) }, pulses.count, []
                    )
                case .pulses12:
                    (flag, body, pulseCount, after) = (1, Self.pack12(pulses), pulses.count, [])
                case .runs(let extra):
                    var adjusted = spectrum
                    for channel in extra { adjusted[channel] -= 1 }
                    let tail = extra.flatMap { littleEndian($0, bytes: 2) }
                    (flag, body, pulseCount, after) = (
                        2, Self.runs(adjusted) + littleEndian(tail.count, bytes: 4), extra.count, tail
                    )
                }
                data +=
                    littleEndian(x, bytes: 4) + littleEndian(channels, bytes: 2) + littleEndian(channels, bytes: 2)
                    + littleEndian(0x0C0000, bytes: 4)
                data +=
                    littleEndian(flag, bytes: 2) + littleEndian(body.count, bytes: 2)
                    + littleEndian(pulseCount, bytes: 2) + littleEndian(body.count, bytes: 4)
                data += body + after
            }
        }
        return data
    }

    /// Runs of at most 255 channels: zeros as a count alone, others as the run's least value (the
    /// gain) and each value above it, in the fewest bits that hold them: 4, 8, 16 or 32.
    private static func runs(_ counts: [Int]) -> [UInt8] {
        var output: [UInt8] = []
        for start in stride(from: 0, to: counts.count, by: 255) {
            let run = Array(counts[start..<min(counts.count, start + 255)])
            if run.allSatisfy({ $0 == 0 }) {
                output += [0, UInt8(run.count)]
                continue
            }
            let gain = run.min()!
            let above = run.map { $0 - gain }
            let most = above.max()!
            let size = most < 16 ? 1 : most < 256 ? 2 : most < 65536 ? 4 : 8
            output += [UInt8(size), UInt8(run.count)] + littleEndian(gain, bytes: size)
            if size == 1 {
                for pair in stride(from: 0, to: above.count, by: 2) {
                    output.append(UInt8(above[pair] | (pair + 1 < above.count ? above[pair + 1] << 4 : 0)))
                }
            } else {
                output += above.flatMap { littleEndian($0, bytes: size / 2) }
            }
        }
        return output
    }

    /// Four 12-bit pulses v0…v3 in bytes b0…b5: v0 = b1·16 + b0/16, v1 = (b0 mod 16)·256 + b3,
    /// v2 = b2·16 + b5/16, v3 = (b5 mod 16)·256 + b4.
    private static func pack12(_ pulses: [Int]) -> [UInt8] {
        var output: [UInt8] = []
        for start in stride(from: 0, to: pulses.count, by: 4) {
            let v = (0..<4).map { start + $0 < pulses.count ? pulses[start + $0] : 0 }
            output += [
                UInt8((v[0] & 0xF) << 4 | v[1] >> 8), UInt8(v[0] >> 4), UInt8(v[2] >> 4), UInt8(v[1] & 0xFF),
                UInt8(v[3] & 0xFF), UInt8((v[2] & 0xF) << 4 | v[3] >> 8)
            ]
        }
        return output
    }

    /// The AACS header, then blocks of zlib streams of stored (uncompressed) deflate blocks.
    private static func compress(_ data: [UInt8]) -> [UInt8] {
        let blockSize = 0x1000
        let blocks = stride(from: 0, to: max(data.count, 1), by: blockSize).map {
            Array(data[$0..<min(data.count, $0 + blockSize)])
        }
        var output =
            Array("AACS".utf8) + littleEndian(blockSize, bytes: 4) + littleEndian(0, bytes: 4)
            + littleEndian(blocks.count, bytes: 4)
        output += [UInt8](repeating: 0, count: 0x80 - output.count)
        for block in blocks {
            var a = 1
            var b = 0
            for byte in block {
                a = (a + Int(byte)) % 65521
                b = (b + a) % 65521
            }
            let stream =
                [0x78, 0x01, 0x01] + littleEndian(block.count, bytes: 2) + littleEndian(block.count ^ 0xFFFF, bytes: 2)
                + block
                + [b >> 8, b & 0xFF, a >> 8, a & 0xFF].map(UInt8.init)
            output +=
                littleEndian(stream.count, bytes: 4) + littleEndian(block.count, bytes: 4) + littleEndian(0, bytes: 4)
                + littleEndian(stream.count + 16, bytes: 4) + stream
        }
        return output
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let group = (0..<3).map { start + $0 < bytes.count ? Int(bytes[start + $0]) : 0 }
            let value = group[0] << 16 | group[1] << 8 | group[2]
            let kept = min(3, bytes.count - start) + 1
            for index in 0..<4 { text.append(index < kept ? alphabet[value >> (18 - 6 * index) & 0x3F] : "=") }
        }
        return text
    }

}
