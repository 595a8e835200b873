import CTIFF
import SonicCore

/// Writes an image as a 32-bit float TIFF with libtiff, its calibration in ImageJ's form (the unit
/// in the description, pixels per unit in the resolution tags, the origin in pixels), which ImageJ,
/// Fiji, tifffile and this program's reader read back.
public enum TIFFWriter {
    public static func writeFloat(_ image: GrayImage, calibration: Calibration, to path: String)
        throws(ImageFileError)
    {
        let messages = UnsafeMutablePointer<SonicTIFFMessages>.allocate(capacity: 1)
        messages.initialize(to: SonicTIFFMessages())
        defer { messages.deallocate() }
        func failure(_ what: String) -> ImageFileError {
            let said = TIFFHandle.text(of: messages)
            return ImageFileError(said.isEmpty ? what : "\(what) (\(said))")
        }
        guard let tiff = sonic_tiff_create(path, messages) else { throw failure("cannot create \(path)") }
        var closed = false
        defer { if !closed { TIFFClose(tiff) } }
        let fields: [(Int32, UInt32)] = [
            (TIFFTAG_IMAGEWIDTH, UInt32(image.width)), (TIFFTAG_IMAGELENGTH, UInt32(image.height)),
            (TIFFTAG_ROWSPERSTRIP, UInt32(max(1, min(image.height, (1 << 16) / max(image.width, 1)))))
        ]
        let shortFields: [(Int32, UInt16)] = [
            (TIFFTAG_BITSPERSAMPLE, 32), (TIFFTAG_SAMPLESPERPIXEL, 1),
            (TIFFTAG_SAMPLEFORMAT, UInt16(SAMPLEFORMAT_IEEEFP)),
            (TIFFTAG_PHOTOMETRIC, UInt16(PHOTOMETRIC_MINISBLACK)), (TIFFTAG_PLANARCONFIG, UInt16(PLANARCONFIG_CONTIG)),
            (TIFFTAG_COMPRESSION, UInt16(COMPRESSION_NONE))
        ]
        var set = fields.allSatisfy { sonic_tiff_set_uint32(tiff, UInt32($0.0), $0.1) != 0 }
        set = set && shortFields.allSatisfy { sonic_tiff_set_uint16(tiff, UInt32($0.0), $0.1) != 0 }
        if let imageJ = imageJ(calibration) {
            set = set && sonic_tiff_set_string(tiff, UInt32(TIFFTAG_IMAGEDESCRIPTION), imageJ.description) != 0
            set = set && sonic_tiff_set_rational(tiff, UInt32(TIFFTAG_XRESOLUTION), imageJ.xPerUnit) != 0
            set = set && sonic_tiff_set_rational(tiff, UInt32(TIFFTAG_YRESOLUTION), imageJ.yPerUnit) != 0
            set = set && sonic_tiff_set_uint16(tiff, UInt32(TIFFTAG_RESOLUTIONUNIT), UInt16(RESUNIT_NONE)) != 0
        }
        guard set else { throw failure("cannot describe the image in \(path)") }
        var row = [Float](repeating: 0, count: image.width)
        for y in 0..<image.height {
            for x in 0..<image.width { row[x] = image[x, y] }
            let written = row.withUnsafeMutableBytes { TIFFWriteScanline(tiff, $0.baseAddress, UInt32(y), 0) }
            guard written >= 0 else { throw failure("cannot write \(path)") }
        }
        closed = true
        TIFFFlush(tiff)
        TIFFClose(tiff)
        if TIFFHandle.text(of: messages).isEmpty == false { throw failure("cannot write \(path)") }
    }

    /// ImageJ's description and pixels per unit, when the x axis has a length unit ImageJ can write.
    private static func imageJ(_ calibration: Calibration)
        -> (description: String, xPerUnit: Double, yPerUnit: Double)?
    {
        guard let x = calibration.x, x.scale != 0, let unit = imageJUnit(x.unit) else { return nil }
        let y = calibration.y ?? x
        var lines = ["ImageJ=1.11a", "unit=\(unit)"]
        if y.unit != x.unit, let yUnit = imageJUnit(y.unit) { lines.append("yunit=\(yUnit)") }
        if x.offset != 0 { lines.append("xorigin=\(-x.offset / x.scale)") }
        if y.offset != 0, y.scale != 0 { lines.append("yorigin=\(-y.offset / y.scale)") }
        return (
            lines.joined(separator: "\n") + "\n", 1 / Swift.abs(x.scale),
            1 / Swift.abs(y.scale == 0 ? x.scale : y.scale)
        )
    }

    /// The unit in ImageJ's ASCII spelling, or nil when it has none.
    private static func imageJUnit(_ unit: String) -> String? {
        switch unit {
        case "µm", "μm": return "micron"
        case "Å": return "A"
        default: return !unit.isEmpty && unit.allSatisfy(\.isASCII) && !unit.contains("\n") ? unit : nil
        }
    }
}
