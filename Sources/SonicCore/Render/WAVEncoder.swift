/// RIFF/WAVE files from interleaved float samples: 16-bit PCM (rounded, clipped) or 32-bit float.
/// Written as a stream: the header (whose sizes are known only at the end, when it is written again),
/// then the samples chunk by chunk. Files whose sizes do not fit RIFF's 32 bits are RF64 (EBU Tech
/// 3306): the same layout with a ds64 chunk holding the 64-bit sizes.
public enum WAVEncoder {
    public enum Format: Sendable {
        case pcm16
        case float32

        public var bytesPerSample: Int { self == .pcm16 ? 2 : 4 }
    }

    /// The largest size a plain RIFF file can state.
    static let riffLimit = Int(UInt32.max)

    /// The header for `frames` frames, or for a stream of unknown length (nil: the sizes say "as long as
    /// it goes", as streamed WAV does). `large` chooses RF64: decide it from the most frames the file can
    /// reach, before writing, since the header's length differs.
    public static func header(frames: Int?, channels: Int, sampleRate: Int, format: Format, large: Bool) -> [UInt8] {
        let dataBytes = (frames ?? 0) * channels * format.bytesPerSample
        var out: [UInt8] = []
        func text(_ s: String) { out += Array(s.utf8) }
        func u64(_ v: Int) { withUnsafeBytes(of: UInt64(v).littleEndian) { out += $0 } }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { out += $0 } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { out += $0 } }

        // Float data needs the extended format chunk and a fact chunk (the frame count).
        let formatChunkSize = format == .pcm16 ? 16 : 18
        let factChunk = format == .pcm16 ? 0 : 12
        let ds64Chunk = large ? 8 + 28 : 0
        let riffSize = 4 + ds64Chunk + (8 + formatChunkSize) + factChunk + (8 + dataBytes)
        let unknown = frames == nil
        text(large ? "RF64" : "RIFF")
        u32(large || unknown ? riffLimit : riffSize)
        text("WAVE")
        if large {
            text("ds64")
            u32(28)
            u64(riffSize)
            u64(dataBytes)
            u64(frames ?? 0)
            u32(0)
        }
        text("fmt ")
        u32(formatChunkSize)
        u16(format == .pcm16 ? 1 : 3)
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * channels * format.bytesPerSample)
        u16(channels * format.bytesPerSample)
        u16(format.bytesPerSample * 8)
        if format == .float32 {
            u16(0)
            text("fact")
            u32(4)
            u32(large || unknown ? riffLimit : frames ?? 0)
        }
        text("data")
        u32(large || unknown ? riffLimit : dataBytes)
        return out
    }

    /// Appends the samples' bytes to `out`, reusing its storage.
    public static func append(_ samples: UnsafeBufferPointer<Float>, format: Format, to out: inout [UInt8]) {
        let start = out.count
        out += repeatElement(0, count: samples.count * format.bytesPerSample)
        out.withUnsafeMutableBytes { raw in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[start...])
            switch format {
            case .pcm16:
                for (i, s) in samples.enumerated() {
                    let clipped = s.isFinite ? min(max(s, -1), 1) : 0
                    bytes.storeBytes(
                        of: Int16((clipped * 32767).rounded()).littleEndian, toByteOffset: 2 * i, as: Int16.self)
                }
            case .float32:
                for (i, s) in samples.enumerated() {
                    bytes.storeBytes(of: s.bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
            }
        }
    }
}
