import Foundation

/// A WAV file read from its bytes, independently of the program's encoder: PCM 16-bit or float 32-bit.
public struct WAVFile {
    public let channels: Int
    public let sampleRate: Int
    public let bitsPerSample: Int
    public let isFloat: Bool
    /// Interleaved samples scaled to −1...1.
    public let samples: [Float]

    public func channel(_ c: Int) -> [Float] { stride(from: c, to: samples.count, by: channels).map { samples[$0] } }

    public init(bytes: [UInt8]) throws {
        func u32(_ o: Int) -> Int {
            Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
        }
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func tag(_ o: Int) -> String { String(decoding: bytes[o..<o + 4], as: UTF8.self) }
        struct Bad: Error, CustomStringConvertible { let description: String }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE", u32(4) == bytes.count - 8 else {
            throw Bad(description: "not a RIFF/WAVE file of the size its header says")
        }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var data: ArraySlice<UInt8>?
        while offset + 8 <= bytes.count {
            let size = u32(offset + 4)
            let body = offset + 8
            if tag(offset) == "fmt " { format = (u16(body), u16(body + 2), u32(body + 4), u16(body + 14)) }
            if tag(offset) == "data" { data = bytes[body..<body + size] }
            offset = body + size + size % 2
        }
        guard let format, let data else { throw Bad(description: "no fmt or data chunk") }
        channels = format.channels
        sampleRate = format.rate
        bitsPerSample = format.bits
        isFloat = format.tag == 3
        let base = data.startIndex
        if isFloat {
            samples = (0..<data.count / 4).map { Float(bitPattern: UInt32(u32(base + $0 * 4))) }
        } else {
            samples = (0..<data.count / 2).map { Float(Int16(bitPattern: UInt16(u16(base + $0 * 2)))) / 32767 }
        }
    }
}
