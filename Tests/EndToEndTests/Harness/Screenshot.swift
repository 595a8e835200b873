import Foundation

/// The root window as `xwd` captures it, decoded to 0xRRGGBB pixels.
struct Screenshot {
    let width: Int
    let height: Int
    let pixels: [UInt32]

    subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] }

    /// Gray level of a pixel whose three channels agree, nil otherwise.
    func gray(x: Int, y: Int) -> Int? {
        let p = self[x, y]
        let r = Int(p >> 16 & 0xFF), g = Int(p >> 8 & 0xFF), b = Int(p & 0xFF)
        return r == g && g == b ? r : nil
    }

    static func capture(_ display: TestDisplay) throws -> Screenshot {
        guard let xwd = Subprocess.which("xwd") else { throw HarnessError("xwd is not installed (x11-apps)") }
        let path = NSTemporaryDirectory() + "sonic-shot-\(getpid())-\(UUID().uuidString.prefix(6)).xwd"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Subprocess.run(xwd, ["-root", "-silent", "-out", path], environment: display.environment)
        guard result.status == 0 else { throw HarnessError("xwd failed: \(result.output)") }
        return try decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// XWD: a big-endian header of 25 CARD32 fields, the window name, the colour map, then ZPixmap data.
    static func decode(_ bytes: [UInt8]) throws -> Screenshot {
        func field(_ index: Int) -> Int {
            (0..<4).reduce(0) { $0 << 8 | Int(bytes[index * 4 + $1]) }
        }
        guard bytes.count >= 100 else { throw HarnessError("xwd output too short") }
        let headerSize = field(0), format = field(2), width = field(4), height = field(5)
        let byteOrder = field(7), bitsPerPixel = field(11), bytesPerLine = field(12)
        let redMask = UInt32(field(14)), greenMask = UInt32(field(15)), blueMask = UInt32(field(16))
        let colours = field(19)
        guard format == 2, bitsPerPixel == 32 else {
            throw HarnessError("unexpected xwd format \(format)/\(bitsPerPixel) bpp")
        }
        let data = headerSize + colours * 12
        guard bytes.count >= data + bytesPerLine * height else { throw HarnessError("xwd output truncated") }
        func channel(_ word: UInt32, _ mask: UInt32) -> UInt32 {
            let shift = UInt32(mask.trailingZeroBitCount)
            return (word & mask) >> shift * 255 / (mask >> shift)
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let o = data + y * bytesPerLine + x * 4
                let b = bytes[o..<o + 4].map(UInt32.init)
                let word =
                    byteOrder == 0
                    ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
                pixels[y * width + x] =
                    channel(word, redMask) << 16 | channel(word, greenMask) << 8 | channel(word, blueMask)
            }
        }
        return Screenshot(width: width, height: height, pixels: pixels)
    }
}
