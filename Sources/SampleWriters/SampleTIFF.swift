/// A baseline TIFF writer written from the specification (TIFF 6.0), independent of libtiff, so tests
/// compare libtiff's reading against a separate implementation: one uncompressed gray page per image,
/// little-endian, in one strip, with an optional ImageJ calibration.
public struct SampleTIFF {
    public enum SampleKind: Sendable {
        case unsigned(bits: Int)
        case signed(bits: Int)
        case float(bits: Int)
    }

    public struct Page: Sendable {
        public var width: Int
        public var height: Int
        public var kind: SampleKind
        public var values: [Double]
        /// ImageJ's calibration: pixels per `unit` (written as XResolution and YResolution).
        public var imageJ: (pixelsPerUnit: Double, unit: String)?

        public init(
            width: Int, height: Int, kind: SampleKind, values: [Double],
            imageJ: (pixelsPerUnit: Double, unit: String)? = nil
        ) {
            precondition(values.count == width * height)
            self.width = width; self.height = height; self.kind = kind; self.values = values; self.imageJ = imageJ
        }
    }

    public var pages: [Page]

    public init(pages: [Page]) { self.pages = pages }

    public var bytes: [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 42, 0]
        func u16(_ v: Int, into data: inout [UInt8]) { data += littleEndian(v, bytes: 2) }
        func u32(_ v: Int, into data: inout [UInt8]) { data += littleEndian(v, bytes: 4) }
        func patch32(_ v: Int, at offset: Int) {
            out.replaceSubrange(offset..<(offset + 4), with: littleEndian(v, bytes: 4))
        }
        var nextLink = out.count
        u32(0, into: &out)
        for page in pages {
            let (bits, format): (Int, Int) =
                switch page.kind {
                case .unsigned(let bits): (bits, 1)
                case .signed(let bits): (bits, 2)
                case .float(let bits): (bits, 3)
                }
            // The samples, then the texts and rationals the IFD points at, then the IFD itself.
            let strip = out.count
            for value in page.values { out += Self.sample(value, bits: bits, format: format) }
            var description = 0, resolution = 0
            let descriptionText: [UInt8] = page.imageJ.map { Array("ImageJ=1.54f\nunit=\($0.unit)\n".utf8) + [0] } ?? []
            if page.imageJ != nil {
                description = out.count
                out += descriptionText
                if out.count % 2 == 1 { out.append(0) }
                resolution = out.count
                // pixels per unit as a rational with a large denominator.
                let denominator = 1_000_000
                u32(Int(((page.imageJ?.pixelsPerUnit ?? 1) * Double(denominator)).rounded()), into: &out)
                u32(denominator, into: &out)
            }
            var entries: [(tag: Int, type: Int, count: Int, value: Int)] = [
                (256, 4, 1, page.width), (257, 4, 1, page.height), (258, 3, 1, bits), (259, 3, 1, 1), (262, 3, 1, 1),
                (273, 4, 1, strip), (277, 3, 1, 1), (278, 4, 1, page.height),
                (279, 4, 1, page.values.count * bits / 8), (339, 3, 1, format)
            ]
            if page.imageJ != nil {
                entries += [
                    (270, 2, descriptionText.count, description), (282, 5, 1, resolution), (283, 5, 1, resolution),
                    (296, 3, 1, 1)
                ]
            }
            entries.sort { $0.tag < $1.tag }
            if out.count % 2 == 1 { out.append(0) }
            patch32(out.count, at: nextLink)
            u16(entries.count, into: &out)
            for entry in entries {
                u16(entry.tag, into: &out)
                u16(entry.type, into: &out)
                u32(entry.count, into: &out)
                if entry.type == 3 {
                    u16(entry.value, into: &out)
                    u16(0, into: &out)
                } else {
                    u32(entry.value, into: &out)
                }
            }
            nextLink = out.count
            u32(0, into: &out)
        }
        return out
    }

    static func sample(_ value: Double, bits: Int, format: Int) -> [UInt8] {
        let pattern: UInt64
        switch (format, bits) {
        case (3, 32): pattern = UInt64(Float(value).bitPattern)
        case (3, 64): pattern = value.bitPattern
        case (2, _): pattern = UInt64(bitPattern: Int64(value))
        default: pattern = UInt64(value)
        }
        return (0..<(bits / 8)).map { UInt8(truncatingIfNeeded: pattern >> (8 * UInt64($0))) }
    }
}
