import CTIFF
import SonicCore

/// One page (directory) of a TIFF file, described from its tags before any sample is read.
struct TIFFPage: Sendable {
    /// Titles longer than this are cut: a tag can hold megabytes, a spoken title cannot.
    static let maxTitleCharacters = 200

    var index: Int
    /// Where the page's directory starts, to tell on reopening that it is still the same page.
    var directoryOffset: UInt64
    var title: String
    var width: Int
    var height: Int
    var sampleType: SampleType?
    var unsupported: String?
    var calibration: Calibration

    /// Describes the handle's current directory. ImageJ writes its description, and so its unit,
    /// in the first page only: later pages of its stacks take `firstDescription`.
    init(_ handle: TIFFHandle, index: Int, firstDescription: String? = nil) {
        self.index = index
        directoryOffset = TIFFCurrentDirOffset(handle.tiff)
        title = Self.title(handle.string(TIFFTAG_PAGENAME) ?? handle.string(TIFFTAG_DOCUMENTNAME) ?? "")
        width = Int(handle.uint32(TIFFTAG_IMAGEWIDTH) ?? 0)
        height = Int(handle.uint32(TIFFTAG_IMAGELENGTH) ?? 0)
        let bits = handle.uint16(TIFFTAG_BITSPERSAMPLE, default: 1)
        let format = handle.uint16(TIFFTAG_SAMPLEFORMAT, default: UInt16(SAMPLEFORMAT_UINT))
        sampleType = Self.sampleType(bits: bits, format: format)
        unsupported =
            Self.colourReason(handle) ?? Self.sampleReason(bits: bits, format: format)
            ?? Self.layoutReason(handle)
        let inherited = firstDescription.flatMap { $0.hasPrefix(TIFFCalibration.imageJPrefix) ? $0 : nil }
        calibration = TIFFCalibration.of(
            description: handle.string(TIFFTAG_IMAGEDESCRIPTION) ?? inherited,
            xResolution: handle.float(TIFFTAG_XRESOLUTION),
            yResolution: handle.float(TIFFTAG_YRESOLUTION),
            resolutionUnit: handle.uint16(TIFFTAG_RESOLUTIONUNIT))
    }

    /// Whether `other` is this page, with the same samples to read.
    func hasSameSamples(as other: TIFFPage) -> Bool {
        (index, directoryOffset, width, height, sampleType, unsupported)
            == (other.index, other.directoryOffset, other.width, other.height, other.sampleType, other.unsupported)
    }

    static func sampleType(bits: UInt16, format: UInt16) -> SampleType? {
        switch (Int32(format), bits) {
        case (SAMPLEFORMAT_UINT, 8): .uint8
        case (SAMPLEFORMAT_UINT, 16): .uint16
        case (SAMPLEFORMAT_UINT, 32): .uint32
        case (SAMPLEFORMAT_INT, 8): .int8
        case (SAMPLEFORMAT_INT, 16): .int16
        case (SAMPLEFORMAT_INT, 32): .int32
        case (SAMPLEFORMAT_IEEEFP, 32): .float32
        case (SAMPLEFORMAT_IEEEFP, 64): .float64
        default: nil
        }
    }

    /// Why the page is not one gray value per pixel, or nil. MinIsWhite pages are read as stored,
    /// the raw values, as for every other type: the inversion is only a display convention.
    private static func colourReason(_ handle: TIFFHandle) -> String? {
        let samplesPerPixel = handle.uint16(TIFFTAG_SAMPLESPERPIXEL, default: 1)
        switch handle.uint16(TIFFTAG_PHOTOMETRIC).map(Int32.init) {
        case nil, PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: break
        case PHOTOMETRIC_RGB, PHOTOMETRIC_YCBCR: return "RGB data"
        case PHOTOMETRIC_PALETTE: return "palette colour data"
        case PHOTOMETRIC_SEPARATED: return "CMYK data"
        case PHOTOMETRIC_CIELAB, PHOTOMETRIC_ICCLAB, PHOTOMETRIC_ITULAB: return "Lab colour data"
        case PHOTOMETRIC_MASK: return "a transparency mask"
        case let other?: return "colour data (photometric interpretation \(other))"
        }
        return samplesPerPixel == 1 ? nil : "\(samplesPerPixel) samples per pixel"
    }

    private static func sampleReason(bits: UInt16, format: UInt16) -> String? {
        guard sampleType(bits: bits, format: format) == nil else { return nil }
        switch Int32(format) {
        case SAMPLEFORMAT_COMPLEXINT, SAMPLEFORMAT_COMPLEXIEEEFP: return "complex data"
        case SAMPLEFORMAT_VOID: return "untyped data"
        case SAMPLEFORMAT_IEEEFP: return "\(bits)-bit float data"
        case SAMPLEFORMAT_UINT, SAMPLEFORMAT_INT: return bits == 1 ? "1-bit (black and white) data" : "\(bits)-bit data"
        default: return "an unknown sample format (\(format))"
        }
    }

    private static func layoutReason(_ handle: TIFFHandle) -> String? {
        let depth = handle.uint32(TIFFTAG_IMAGEDEPTH, default: 1)
        if depth > 1 { return "a 3-D volume, not an image" }
        let compression = handle.uint16(TIFFTAG_COMPRESSION, default: UInt16(COMPRESSION_NONE))
        if TIFFIsCODECConfigured(compression) == 0 {
            return "compressed in a way libtiff cannot decode here (scheme \(compression))"
        }
        return nil
    }

    /// One line, trimmed and bounded.
    static func title(_ text: String) -> String {
        let scalars = text.unicodeScalars.prefix(4 * maxTitleCharacters).map { scalar in
            scalar.properties.generalCategory == .control ? " " : scalar
        }
        let line = String(String.UnicodeScalarView(scalars))
        guard let first = line.firstIndex(where: { $0 != " " }),
            let last = line.lastIndex(where: { $0 != " " })
        else { return "" }
        return String(line[first...last].prefix(maxTitleCharacters))
    }
}
