import SonicCore

/// The chunk layer of a PNG file, walked in Swift before libpng sees the bytes:
/// it reads the header's dimensions without allocating and drops the colour-space chunks.
struct PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// gAMA, sRGB, iCCP and cHRM make libpng convert samples towards linear light; detector data is not light.
    static let colourSpaceChunks: Set<String> = ["gAMA", "sRGB", "iCCP", "cHRM"]

    struct Header {
        let width: Int
        let height: Int
        let bitDepth: Int
        let colourType: Int
    }

    /// Reads IHDR, which the format requires to be the first chunk.
    static func header(of bytes: [UInt8]) throws(ImageFileError) -> Header {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw ImageFileError("not a PNG file") }
        guard bytes.count >= 33 else { throw ImageFileError("the file is truncated") }
        guard bigEndian(bytes, 8) == 13, chunkType(bytes, 8) == "IHDR" else {
            throw ImageFileError("the PNG header (IHDR) is missing or damaged")
        }
        return Header(
            width: Int(bigEndian(bytes, 16)), height: Int(bigEndian(bytes, 20)),
            bitDepth: Int(bytes[24]), colourType: Int(bytes[25]))
    }

    /// The file without its colour-space chunks. Stops copying chunk by chunk where the structure
    /// breaks and passes the rest through, so libpng reports the damage itself.
    static func removingColourSpace(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array(bytes[0..<min(8, bytes.count)])
        out.reserveCapacity(bytes.count)
        var offset = 8
        while offset + 12 <= bytes.count {
            let end = offset + 12 + Int(bigEndian(bytes, offset))
            guard end <= bytes.count else { break }
            if !colourSpaceChunks.contains(chunkType(bytes, offset)) {
                out.append(contentsOf: bytes[offset..<end])
            }
            offset = end
        }
        if offset < bytes.count { out.append(contentsOf: bytes[offset...]) }
        return out
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func chunkType(_ bytes: [UInt8], _ offset: Int) -> String {
        String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
    }
}
