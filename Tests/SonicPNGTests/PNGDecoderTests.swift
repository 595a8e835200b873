import Foundation
import SonicCore
import TestSupport
import Testing

@testable import SonicPNG

@Suite struct PNGDecoderTests {
    /// 16-bit values that catch byte swaps, scaling and gamma: both extremes, byte boundaries, mid-scale.
    static let awkward16: [UInt16] = [0, 1, 255, 256, 257, 4095, 32767, 32768, 65534, 65535]

    func gray16(width: Int = 37, height: Int = 11) -> TestPNG {
        let samples = (0..<width * height).map { i in
            i < Self.awkward16.count ? Self.awkward16[i] : UInt16(truncatingIfNeeded: i &* 2_654_435_761 >> 7)
        }
        return TestPNG(width: width, height: height, bitDepth: 16, colourType: .gray, samples: samples)
    }

    @Test func sixteenBitGrayIsExact() throws {
        let png = gray16()
        let image = try PNGDecoder.decode(bytes: png.bytes)
        #expect(image.bitDepth == 16 && image.width == 37 && image.height == 11)
        #expect(image.samples == png.samples.map(Float.init))
    }

    @Test func sixteenBitGrayIsExactDespiteColourSpaceChunks() throws {
        var png = gray16()
        png.extraChunks = [
            ("gAMA", [0, 0, 0xB1, 0x8F]), // 1/2.2
            ("cHRM", [UInt8](repeating: 1, count: 32)),
            ("sRGB", [0]),
            ("iCCP", Array("icc\0".utf8) + [0, 0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0, 0, 0, 1])
        ]
        #expect(try PNGDecoder.decode(bytes: png.bytes).samples == png.samples.map(Float.init))
    }

    @Test func gammaAloneAndSRGBAloneLeaveSamplesAlone() throws {
        for chunk in [("gAMA", [0, 0, 0xB1, 0x8F] as [UInt8]), ("sRGB", [0] as [UInt8])] {
            var png = gray16()
            png.extraChunks = [chunk]
            #expect(try PNGDecoder.decode(bytes: png.bytes).samples == png.samples.map(Float.init), "\(chunk.0)")
        }
    }

    @Test func interlacedSixteenBitIsExact() throws {
        var png = gray16(width: 37, height: 23)
        png.interlaced = true
        png.extraChunks = [("gAMA", [0, 0, 0xB1, 0x8F])]
        #expect(try PNGDecoder.decode(bytes: png.bytes).samples == png.samples.map(Float.init))
    }

    @Test func eightBitGrayIsExact() throws {
        for interlaced in [false, true] {
            var png = TestPNG(
                width: 19, height: 13, bitDepth: 8, colourType: .gray,
                samples: (0..<19 * 13).map { UInt16($0 % 256) })
            png.interlaced = interlaced
            let image = try PNGDecoder.decode(bytes: png.bytes)
            #expect(image.bitDepth == 8 && image.samples == png.samples.map(Float.init))
        }
    }

    @Test func lowBitDepthGrayIsSpreadOverEightBits() throws {
        for depth in [1, 2, 4] {
            let top = (1 << depth) - 1
            let png = TestPNG(
                width: 9, height: 2, bitDepth: depth, colourType: .gray,
                samples: (0..<18).map { UInt16($0 % (top + 1)) })
            let image = try PNGDecoder.decode(bytes: png.bytes)
            #expect(image.bitDepth == 8)
            #expect(image.samples == png.samples.map { Float($0 * UInt16(255 / top)) }, "depth \(depth)")
        }
    }

    @Test func rgbBecomesLuminance() throws {
        // Grays stay themselves; pure colours order as luminance does: green > red > blue.
        let pixels: [[UInt16]] = [
            [0, 0, 0], [77, 77, 77], [200, 200, 200], [255, 255, 255],
            [255, 0, 0], [0, 255, 0], [0, 0, 255]
        ]
        let png = TestPNG(width: 7, height: 1, bitDepth: 8, colourType: .rgb, samples: pixels.flatMap { $0 })
        let image = try PNGDecoder.decode(bytes: png.bytes)
        #expect(Array(image.samples[0..<4]) == [0, 77, 200, 255])
        let (red, green, blue) = (image.samples[4], image.samples[5], image.samples[6])
        #expect(green > red && red > blue && blue > 0)
        // Rec. 709 luminance of pure green is 0.7152 in linear light: about 220 in sRGB.
        #expect(abs(Int(green) - 220) <= 3)
    }

    @Test func rgbaAndGrayAlphaBecomeLuminance() throws {
        let rgba = TestPNG(
            width: 2, height: 1, bitDepth: 8, colourType: .rgba, samples: [90, 90, 90, 255, 10, 10, 10, 255])
        #expect(try PNGDecoder.decode(bytes: rgba.bytes).samples == [90, 10])
        let grayAlpha = TestPNG(width: 2, height: 1, bitDepth: 8, colourType: .grayAlpha, samples: [123, 255, 45, 255])
        #expect(try PNGDecoder.decode(bytes: grayAlpha.bytes).samples == [123, 45])
        let grayAlpha16 = TestPNG(
            width: 2, height: 1, bitDepth: 16, colourType: .grayAlpha,
            samples: [40000, 65535, 7, 65535])
        let wide = try PNGDecoder.decode(bytes: grayAlpha16.bytes)
        #expect(wide.bitDepth == 16 && wide.samples == [40000, 7])
    }

    @Test func paletteBecomesLuminance() throws {
        var gray = TestPNG(width: 4, height: 1, bitDepth: 8, colourType: .palette, samples: [0, 1, 2, 1])
        gray.palette = [(0, 0, 0), (128, 128, 128), (250, 250, 250)]
        #expect(try PNGDecoder.decode(bytes: gray.bytes).samples == [0, 128, 250, 128])
        var colour = TestPNG(width: 2, height: 1, bitDepth: 4, colourType: .palette, samples: [0, 1])
        colour.palette = [(255, 0, 0), (0, 0, 255)]
        let image = try PNGDecoder.decode(bytes: colour.bytes)
        #expect(image.samples[0] > image.samples[1])
    }

    // MARK: - Bad files: one clear error each, never a crash

    func expectError(_ bytes: [UInt8], containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) { try PNGDecoder.decode(bytes: bytes) } throws: { error in
            let message = "\(error)"
            return error is ImageFileError && message.contains(text) && !message.contains("\n")
        }
    }

    @Test func badFilesGiveOneClearError() {
        let good = gray16().bytes
        expectError([], containing: "not a PNG")
        expectError(Array("hello, this is text\n".utf8), containing: "not a PNG")
        expectError(Array(good[0..<20]), containing: "truncated")
        expectError(Array(good[0..<good.count / 2]), containing: "truncated")
        expectError(Array(good[0..<(good.count - 20)]), containing: "truncated")
        var corruptData = good
        let idat = good.count / 2
        for i in idat..<idat + 8 { corruptData[i] ^= 0x5A }
        expectError(corruptData, containing: "damaged")
        var badHeader = good
        badHeader[12] = UInt8(ascii: "X") // IHDR renamed
        expectError(badHeader, containing: "IHDR")
    }

    @Test func absurdDimensionsAreRefusedBeforeAllocating() {
        for (w, h) in [(100_000, 100_000), (8193, 8193), (1, 70_000_000), (0x7FFF_FFFF, 0x7FFF_FFFF)] {
            var png = TestPNG(width: 1, height: 1, bitDepth: 16, colourType: .gray, samples: [0]).bytes
            // Rewrite the header's dimensions (and its CRC) while the data stays one pixel.
            png.replaceSubrange(16..<24, with: bigEndian(UInt32(w)) + bigEndian(UInt32(h)))
            png.replaceSubrange(29..<33, with: bigEndian(TestPNG.crc32(Array(png[12..<29]))))
            expectError(png, containing: "limit")
        }
    }

    func bigEndian(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    @Test func zeroDimensionsAreRefused() {
        var png = TestPNG(width: 1, height: 1, bitDepth: 8, colourType: .gray, samples: [0]).bytes
        png.replaceSubrange(16..<20, with: [0, 0, 0, 0])
        expectError(png, containing: "no pixels")
    }

    @Test func randomDamageNeverCrashes() throws {
        let good = gray16(width: 64, height: 48).bytes
        var random = SeededRandom(seed: 99)
        for _ in 0..<400 {
            var bytes = good
            for _ in 0..<(1 + Int(random.next() % 6)) {
                let at = Int(random.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.next() % 3 == 0 { bytes.removeLast(Int(random.next() % UInt64(bytes.count))) }
            // Either a clean error or an image of the declared size: nothing else.
            if let image = try? PNGDecoder.decode(bytes: bytes) {
                #expect(image.samples.count == image.width * image.height)
            }
        }
    }

    @Test func encoderRoundTripsWithoutColourSpaceChunks() throws {
        for image in [
            GrayImage(width: 5, height: 3, bitDepth: 16, samples: (0..<15).map { UInt16($0) * 4369 }),
            GrayImage(width: 3, height: 2, bitDepth: 8, samples: [0, 1, 2, 128, 254, 255])
        ] {
            let bytes = try PNGEncoder.encode(image)
            #expect(try PNGDecoder.decode(bytes: bytes) == image)
            let text = String(decoding: bytes, as: UTF8.self)
            for chunk in ["gAMA", "sRGB", "cHRM", "iCCP"] { #expect(!text.contains(chunk)) }
        }
    }
}
