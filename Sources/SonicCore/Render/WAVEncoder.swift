/// RIFF/WAVE files from interleaved float samples: 16-bit PCM (rounded, clipped) or 32-bit float.
public enum WAVEncoder {
    public enum Format: Sendable {
        case pcm16
        case float32
    }

    public static func encode(_ samples: [Float], channels: Int, sampleRate: Int, format: Format) -> [UInt8] {
        let bytesPerSample = format == .pcm16 ? 2 : 4
        let dataBytes = samples.count * bytesPerSample
        var out: [UInt8] = []
        out.reserveCapacity(dataBytes + 64)
        func text(_ s: String) { out += Array(s.utf8) }
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out += $0 } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { out += $0 } }

        // Float data needs the extended format chunk and a fact chunk (the frame count).
        let formatChunkSize = format == .pcm16 ? 16 : 18
        let factChunk = format == .pcm16 ? 0 : 12
        text("RIFF")
        u32(4 + (8 + formatChunkSize) + factChunk + (8 + dataBytes))
        text("WAVE")
        text("fmt ")
        u32(formatChunkSize)
        u16(format == .pcm16 ? 1 : 3)
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * channels * bytesPerSample)
        u16(channels * bytesPerSample)
        u16(bytesPerSample * 8)
        if format == .float32 {
            u16(0)
            text("fact")
            u32(4)
            u32(samples.count / channels)
        }
        text("data")
        u32(dataBytes)
        switch format {
        case .pcm16:
            for s in samples {
                let clipped = s.isFinite ? min(max(s, -1), 1) : 0
                u16(Int(Int16((clipped * 32767).rounded())) & 0xFFFF)
            }
        case .float32:
            for s in samples { u32(Int(s.bitPattern)) }
        }
        return out
    }
}
